import { createMetrics } from '../platform/metrics/registry.ts';
import type { FastifyInstance } from 'fastify';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createAreaModules } from '../app.ts';
import { loadConfig } from '../config.ts';
import type { AreaModule } from '../platform/module.ts';
import { systemOutside } from '../platform/outside.ts';
import type { Platform } from '../platform/platform.ts';
import { buildPriceTable } from '../platform/points/prices.ts';
import { buildServer } from '../server.ts';
import { CliError } from './output.ts';

export const OPENAPI_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../openapi/openapi.json',
);

// Anything a module would call: every property is another such thing, and calling one throws.
// Modules only keep references while they are built, so a server built over this platform has
// every route and schema of the real one and fails only if a request reaches a service.
const unavailable: never = new Proxy(() => {}, {
  get: (_target, property) => (property === 'then' ? undefined : unavailable),
  apply: () => {
    throw new Error('not available on a server built for its route schemas only');
  },
}) as never;

// The hooks the server installs for every /v1 request (Fastify binds them as it boots).
async function unavailableRequest(): Promise<never> {
  throw new Error('not available on a server built for its route schemas only');
}

// The settings a module reads while it is built; the key is never used to seal anything.
const SCHEMA_ONLY_CONFIG = loadConfig({
  LOG_LEVEL: 'silent',
  ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
});

function schemaOnlyPlatform(): Platform {
  return {
    config: SCHEMA_ONLY_CONFIG,
    log: pino({ level: 'silent' }),
    outside: systemOutside(),
    database: { db: unavailable, pool: unavailable, relaxedPool: unavailable,
      sessionPool: unavailable, url: '', embedded: false, preparedStatements: false,
      created: false, markReady() {}, close: async () => {} },
    accounts: unavailable,
    points: unavailable,
    prices: buildPriceTable('{}'),
    charge: unavailable,
    jobs: unavailable,
    queueMail: unavailable,
    queueMails: unavailable,
    registerMailKind: () => {},
    jobDefinitions: [],
    metrics: createMetrics(),
    close: async () => {},
  };
}

// A server for what depends only on the route schemas (the OpenAPI document, the route contract
// checked at boot), built from the same module list as the real one, without a database.
// `instrument` sees the server before any route is registered (a test reading every route's
// options with an onRoute hook).
export async function buildSchemaOnlyServer(
  extraModule?: AreaModule,
  instrument?: (server: FastifyInstance) => void,
): Promise<FastifyInstance> {
  const { list } = await createAreaModules(schemaOnlyPlatform());
  return buildServer({
    logger: false,
    bodyLimitBytes: SCHEMA_ONLY_CONFIG.BODY_LIMIT_BYTES,
    requestReceiveTimeoutMs: SCHEMA_ONLY_CONFIG.REQUEST_RECEIVE_TIMEOUT_MS,
    publicBaseUrl: 'http://localhost:8080',
    keys: { resolveHeader: unavailableRequest, forget: unavailable, forgetKeyId: unavailable },
    rateLimiter: { hook: unavailableRequest },
    modules: extraModule ? [...list, extraModule] : list,
    ...(instrument === undefined ? {} : { instrument }),
  });
}

export async function renderOpenApiDocument(): Promise<string> {
  const app = await buildSchemaOnlyServer();
  await app.ready();
  const document = JSON.stringify(app.swagger(), null, 2);
  await app.close();
  return `${document}\n`;
}

export async function writeOpenApiDocument(check: boolean): Promise<void> {
  const rendered = await renderOpenApiDocument();
  if (check) {
    const committed = await readFile(OPENAPI_FILE, 'utf8').catch(() => '');
    if (committed !== rendered) {
      throw new CliError('openapi/openapi.json is stale: run `npm run openapi` and commit it');
    }
    process.stdout.write('openapi/openapi.json is current\n');
    return;
  }
  await writeFile(OPENAPI_FILE, rendered);
  process.stdout.write(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}\n`);
}
