import assert from 'node:assert/strict';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { PreparingClient } from './prepared.ts';
import * as schema from './tables.ts';
import type { EmbeddedDatabase, EmbeddedOpenOptions } from './embedded.ts';
import { markPhase } from '../startup-phases.ts';

import type { Db } from './executor.ts';

export type { Db, Executor, Tx } from './executor.ts';

export type Database = {
  db: Db;
  pool: pg.Pool;
  // Connections whose commits do not wait for the WAL flush (synchronous_commit off), for
  // statements whose loss in a database crash is harmless: a lost point reservation takes its
  // hold on the balance with it, in the same transaction. Any later durable commit flushes it
  // too. The embedded database uses the main pool.
  relaxedPool: pg.Pool;
  // Connections for session-level advisory locks (the migrations and the job queues' setup),
  // which a pooler in transaction mode cannot hold: to DATABASE_DIRECT_URL when it is set,
  // otherwise the main pool.
  sessionPool: pg.Pool;
  url: string;
  embedded: boolean;
  // Whether the hot statements run as named prepared statements (prepared.ts): never on the
  // embedded database, and not where DATABASE_PREPARED_STATEMENTS is false (a pooler in
  // transaction mode that does not track them).
  preparedStatements: boolean;
  // True when this process just created the embedded database files.
  created: boolean;
  // The database is migrated. An embedded database held by a server then lets other etax
  // processes connect to it; with PostgreSQL nothing waits for this.
  markReady(): void;
  close(): Promise<void>;
};

// Points and counts are bigint in SQL and plain numbers here; a value past 2^53 is a bug.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => {
  const parsed = Number(value);
  assert(Number.isSafeInteger(parsed), `int8 value ${value} is not a safe integer`);
  return parsed;
});

type ConnectOptions = {
  databaseUrl?: string;
  dataDir: string;
  poolMax: number;
  // False turns named prepared statements off (Database.preparedStatements); default true.
  preparedStatements?: boolean;
  // PostgreSQL itself when databaseUrl is a pooler in transaction mode (Database.sessionPool).
  directUrl?: string;
  // How the embedded database (no databaseUrl) is opened. Without it: as a command that waits
  // for another holder of DATA_DIR for at most EMBEDDED_WAIT_DEFAULT_MS.
  embedded?: EmbeddedOpenOptions;
};

// The default of DATABASE_CONNECT_TIMEOUT_SECONDS, for callers without a configuration.
const EMBEDDED_WAIT_DEFAULT_MS = 30_000;

// A connection that sits idle this long is closed; new ones are made on demand.
const POOL_IDLE_TIMEOUT_MS = 30_000;
const POOL_CONNECT_TIMEOUT_MS = 10_000;
// The relaxed pool serves the reservation batches, of which at most two run at once.
const RELAXED_POOL_MAX = 4;
// The session pool holds one lock at a time, with a query beside it at most.
const SESSION_POOL_MAX = 2;
// Every statement here answers a request in milliseconds. PostgreSQL compiles a statement
// whose estimated cost passes jit_above_cost, and its estimates for the profile search (a GIN
// lookup per search bucket) pass it: half a second of compiling for a 5 ms query.
const SESSION_OPTIONS = '-c jit=off';

// PGlite is loaded only when this process uses it: a server on PostgreSQL never needs it.
async function openEmbedded(
  dataDir: string,
  options: EmbeddedOpenOptions,
): Promise<EmbeddedDatabase> {
  const { openEmbeddedDatabase } = await import('./embedded.ts');
  return openEmbeddedDatabase(dataDir, options);
}

// A connection that drops (the database restarts, a network cut) must not end the process.
// The pool listens for errors on its idle clients and replaces them, but node-postgres emits the
// error of a checked-out client (a transaction, an advisory lock) on that client, with no
// listener, which Node turns into an uncaught exception. Its query in flight fails anyway, and
// the pool discards the broken client when it is released.
function surviveLostConnections(pool: pg.Pool): void {
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
}

export async function connectDatabase(options: ConnectOptions): Promise<Database> {
  const embeddedOptions = options.embedded ??
    { holder: 'command', waitMs: EMBEDDED_WAIT_DEFAULT_MS };
  const embedded = options.databaseUrl ? null
    : await openEmbedded(options.dataDir, embeddedOptions);
  // A mark costs microseconds.
  markPhase('database');
  const url = options.databaseUrl ?? embedded!.url;
  const preparedStatements = embedded === null && options.preparedStatements !== false;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax,
    idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    // The embedded database has no JIT to turn off, and names no statements (prepared.ts).
    ...(embedded ? {} : { options: SESSION_OPTIONS }),
    ...(preparedStatements ? { Client: PreparingClient } : {}),
  });
  surviveLostConnections(pool);
  const relaxedPool = embedded ? pool : new pg.Pool({
    connectionString: url,
    max: RELAXED_POOL_MAX,
    idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    options: `${SESSION_OPTIONS} -c synchronous_commit=off`,
  });
  if (relaxedPool !== pool) surviveLostConnections(relaxedPool);
  const sessionPool = embedded || options.directUrl === undefined ? pool : new pg.Pool({
    connectionString: options.directUrl,
    max: SESSION_POOL_MAX,
    idleTimeoutMillis: POOL_IDLE_TIMEOUT_MS,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    options: SESSION_OPTIONS,
  });
  if (sessionPool !== pool) surviveLostConnections(sessionPool);
  return {
    db: drizzle(pool, { schema }),
    pool,
    relaxedPool,
    sessionPool,
    url,
    embedded: embedded !== null,
    preparedStatements,
    created: embedded?.created ?? false,
    markReady: () => embedded?.markReady(),
    async close() {
      if (relaxedPool !== pool) await relaxedPool.end();
      if (sessionPool !== pool) await sessionPool.end();
      await pool.end();
      await embedded?.close();
    },
  };
}
