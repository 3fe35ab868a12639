import { afterAll, beforeAll } from 'vitest';
import { connectDatabase, type Database } from '../../src/platform/db/connect.ts';
import { basicAuth } from './http.ts';
import { createAccountWithCli, type CreatedAccount } from './cli.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import {
  freePorts,
  hasExited,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from './server-process.ts';

// Several real `etax serve` processes on one fresh PostgreSQL database and one Redis, as
// docs/operations.md describes a production setup, plus the CLI and a database connection of
// the test's own for assertions. PostgreSQL and Redis only: an embedded database belongs to the
// one process that opened it, and without Redis each process counts rate limits alone.

// Bounds the wait for a server to become ready: 240 × 250 ms.
const READY = { attemptsMax: 240, pollIntervalMs: 250 };
// Above the server's own shutdown timeout (25 s), so a slow but orderly exit is still seen.
const EXIT_WAIT_MS = 30_000;
// Enough connections for the test's own queries while the servers are busy.
const ASSERTION_POOL_MAX = 4;

export const clusterEnabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
export const CLUSTER_SKIP_REASON =
  'needs DATABASE_URL and REDIS_URL: several processes share one PostgreSQL and one Redis';

export type ClusterOptions = {
  count: number;
  // Settings of every process, on top of the database, Redis and quiet logs.
  env?: NodeJS.ProcessEnv;
  // Extra `etax serve` arguments of the process at each index, such as --no-workers.
  argsFor?: (index: number) => string[];
  // The URL the processes and the CLI reach the database by, made from its own (such as the
  // URL of a proxy in front of it); the test's own connection always uses the database's.
  serverDatabaseUrl?: (databaseUrl: string) => string;
  // With serverDatabaseUrl: give the processes the database's own URL as DATABASE_DIRECT_URL
  // (a pooler in transaction mode in front of it).
  directDatabaseUrl?: boolean;
};

export type { CreatedAccount };

export type Cluster = {
  database: TestDatabase;
  // The test's own connection, for audits and for setting up state the API cannot.
  assertions: Database;
  servers: ServerProcess[];
  // The rows of one query on the test's own connection.
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
  createAccount(options?: { testSignupPoints?: number }): Promise<CreatedAccount>;
  // Ends a process at once, as a crash or the OOM killer would: no shutdown runs.
  kill(index: number): Promise<void>;
  // Starts the process at index again, on its port and with its arguments.
  restart(index: number): Promise<void>;
  // Stops every process with SIGTERM and returns their exit codes, then drops the database.
  stop(): Promise<(number | null)[]>;
};

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const database = await createTestDatabase();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...database.env,
    REDIS_URL: process.env.REDIS_URL,
    LOG_LEVEL: 'warn',
    ...options.env,
  };
  if (options.serverDatabaseUrl) {
    env.DATABASE_URL = options.serverDatabaseUrl(database.env.DATABASE_URL!);
    if (options.directDatabaseUrl) env.DATABASE_DIRECT_URL = database.env.DATABASE_URL;
  }
  // The test database is a copy of the run's migrated template (test/helpers/database.ts), so
  // the processes start on a ready database.
  const ports = await freePorts(options.count);
  const argsFor = options.argsFor ?? (() => []);
  const start = (index: number) =>
    startServerProcess({ port: ports[index]!, env, args: argsFor(index) });
  const servers = ports.map((_, index) => start(index));
  await Promise.all(servers.map((server) => waitUntilReady(server, READY)));
  const assertions = await connectDatabase({
    databaseUrl: database.env.DATABASE_URL, dataDir: database.env.DATA_DIR,
    poolMax: ASSERTION_POOL_MAX,
  });
  return {
    database,
    assertions,
    servers,
    async query<T>(text: string, values: unknown[] = []) {
      return (await assertions.pool.query(text, values)).rows as T[];
    },
    async createAccount({ testSignupPoints } = {}) {
      const extraEnv = testSignupPoints === undefined
        ? {} : { TEST_SIGNUP_POINTS: String(testSignupPoints) };
      return createAccountWithCli({ ...env, ...extraEnv });
    },
    async kill(index) {
      const server = servers[index]!;
      if (hasExited(server)) return;
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGKILL');
      await exited;
    },
    async restart(index) {
      servers[index] = start(index);
      await waitUntilReady(servers[index]!, READY);
    },
    async stop() {
      const codes = await Promise.all(servers.map((server) =>
        stopServerProcess(server, { exitWaitMs: EXIT_WAIT_MS })));
      await assertions.close();
      await database.drop();
      return codes;
    },
  };
}

// A cluster and an account made on it for all the tests of a file, where PostgreSQL and Redis
// are there (clusterEnabled): started before the first test and stopped after the last.
// `receive` hands them to the file's own variables.
export function useCluster(
  options: ClusterOptions,
  receive: (made: { cluster: Cluster; account: CreatedAccount }) => void | Promise<void>,
): void {
  let cluster: Cluster | undefined;
  beforeAll(async () => {
    if (!clusterEnabled) return;
    cluster = await startCluster(options);
    await receive({ cluster, account: await cluster.createAccount() });
  });
  afterAll(async () => {
    await cluster?.stop();
  });
}

export type JsonResponse = { status: number; body: Record<string, unknown> };

// One request to a process as a client sends it: an API key, and a JSON body where there is one.
export async function sendJson(
  server: ServerProcess,
  key: string,
  request: { method: string; path: string; body?: unknown; headers?: Record<string, string> },
): Promise<JsonResponse> {
  const { body } = request;
  const response = await fetch(`${server.baseUrl}${request.path}`, {
    method: request.method,
    headers: { authorization: basicAuth(key),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() as Record<string, unknown> };
}
