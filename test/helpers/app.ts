import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { DestinationStream } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { Environment, Plan } from '../../src/platform/accounts/keys.ts';
import type { Scope } from '../../src/platform/scope.ts';
import type {
  CertificateValidator,
  TaxAuthority,
} from '../../src/upstream/tax-authority/index.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { checkSentResponse } from './response-contract.ts';

// A whole etax app on its own database, driven with fastify.inject. Every response it sends is
// checked against openapi/openapi.json (test/helpers/response-contract.ts).

export type TestApp = App & {
  database: TestDatabase;
  createAccount(options?: { plan?: Plan; name?: string }): Promise<{
    accountId: string;
    keys: Record<Environment, string>;
  }>;
  // A new account whose balance of `environment` holds `points` on top of its signup points.
  createFundedAccount(points: number, environment?: Environment): Promise<{
    accountId: string;
    keys: Record<Environment, string>;
  }>;
  // A new account's live balance holding `points` (live balances start at 0).
  createLiveBalance(points: number): Promise<Scope>;
  close(): Promise<void>;
};

export type TestAppOptions = {
  env?: Record<string, string>;
  jobs?: boolean;
  extraRoutes?: FastifyPluginAsync;
  liveTaxAuthority?: TaxAuthority;
  liveCertificateValidator?: CertificateValidator;
  // Where the app's log lines go (LOG_LEVEL in env decides which); nowhere without it.
  logDestination?: DestinationStream;
  // The app's clock; the system's without it.
  now?: () => Date;
};

// Statuses whose payload Fastify leaves off the wire.
const WITHOUT_BODY = new Set([204, 304]);

function checkEveryResponse(server: FastifyInstance) {
  server.addHook('onSend', async (request, reply, payload) => {
    const sent = !WITHOUT_BODY.has(reply.statusCode) &&
      (typeof payload === 'string' || Buffer.isBuffer(payload));
    const body = sent ? payload as string | Buffer : null;
    checkSentResponse({ method: request.method, routeUrl: request.routeOptions.url,
      status: reply.statusCode, headers: reply.getHeaders(), body });
    return payload;
  });
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    REDIS_URL: undefined,
    ...database.env,
    ...options.env,
  });
  const { extraRoutes } = options;
  const app = await createApp(config, {
    outside: { upstreams: { taxAuthority: options.liveTaxAuthority,
      certificateValidator: options.liveCertificateValidator },
      logDestination: options.logDestination,
      ...(options.now === undefined ? {} : { now: options.now }) },
    extraModules: () => (extraRoutes ? [{ name: 'test', routes: extraRoutes }] : []),
    instrument: checkEveryResponse,
  });
  // Without jobs the app stages jobs into queues that are never created or worked.
  if (options.jobs) await app.start();
  await app.server.ready();
  async function createFundedAccount(points: number, environment: Environment = 'test') {
    const account = await app.platform.accounts.createAccount({
      name: 'Test account',
      plan: 'STANDARD',
    });
    if (points > 0) {
      await app.platform.points.grant({ accountId: account.accountId, environment, points });
    }
    return account;
  }
  return {
    ...app,
    database,
    async createAccount(accountOptions = {}) {
      return app.platform.accounts.createAccount({
        name: accountOptions.name ?? 'Test account',
        plan: accountOptions.plan ?? 'STANDARD',
      });
    },
    createFundedAccount,
    async createLiveBalance(points) {
      const { accountId } = await createFundedAccount(points, 'live');
      return { accountId, environment: 'live' };
    },
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

// One app for all the tests of a file: made before the first test and closed after the last.
// `receive` hands it to the file's own variable (and may set up more on it), which its tests use.
export function useApp<A extends { close(): Promise<void> }>(
  createApp: () => Promise<A>,
  receive: (app: A) => void | Promise<void>,
): void {
  let app: A | undefined;
  beforeAll(async () => {
    app = await createApp();
    await receive(app);
  });
  afterAll(async () => {
    await app?.close();
  });
}

export { basicAuth } from './http.ts';
