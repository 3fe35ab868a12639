import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTaxInvoicesPlugins } from '../areas/tax-invoices/index.ts';
import { buildServer } from '../server.ts';
import { CliError } from './output.ts';

export const OPENAPI_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../openapi/openapi.json',
);

function unavailable(): never {
  throw new Error('not available on a server built for its route schemas only');
}

// A server for what depends only on the route schemas (the OpenAPI document, the route contract
// checked at boot), built without a database: its services are never called, and each throws.
export function buildSchemaOnlyServer(extraRoutes?: FastifyPluginAsync): Promise<FastifyInstance> {
  return buildServer({
    logger: false,
    bodyLimitBytes: 1_048_576,
    publicBaseUrl: 'http://localhost:8080',
    keys: { resolveHeader: unavailable, forget: unavailable },
    rateLimiter: { policyFor: unavailable, hook: unavailable, close: async () => {} },
    points: new Proxy({}, { get: unavailable }) as never,
    bank: { inquireHolders: unavailable, inquireHolder: unavailable },
    businesses: {
      checkNumber: unavailable, retrieveProfile: unavailable, searchProfiles: unavailable,
    },
    registrationStatuses: { inquireStatuses: unavailable, inquireStatus: unavailable },
    webhooks: new Proxy({}, { get: unavailable }) as never,
    issuers: new Proxy({}, { get: unavailable }) as never,
    taxInvoices: createTaxInvoicesPlugins({
      service: new Proxy({}, { get: unavailable }) as never,
      reverseIssuance: new Proxy({}, { get: unavailable }) as never,
    }),
    readiness: unavailable,
    extraRoutes,
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
