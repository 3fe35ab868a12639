import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { acquireDataDir, type DataDirHolder, type DataDirLock } from './data-dir-lock.ts';
import { copyTemplateDatabase } from './embedded-template.ts';
import { keepQueriesTogether } from './pglite-queue.ts';
import { delayWasmTierUp } from './wasm-tier-up.ts';

// The embedded database is PGlite in DATA_DIR, served over a Unix socket in the same folder so
// every component (Drizzle, pg-boss, the CLI in another process) speaks the same `pg` protocol.
// Only one process can open a PGlite data directory: it holds DATA_DIR (data-dir-lock.ts) and
// serves the socket, and every other process (e.g. `etax points grant` while the server runs)
// connects to that socket once the server is ready.

const SOCKET_PORT = 5432;
// PGlite runs one query at a time; the socket server multiplexes clients and keeps a client's
// transaction and each of its queries together (pglite-queue.ts). 100 leaves room for the pool,
// pg-boss and a few CLI calls.
const SOCKET_CONNECTIONS_MAX = 100;
// Linux limits a Unix socket path to 107 bytes.
const SOCKET_PATH_BYTES_MAX = 107;
// PostgreSQL's default of 128 MB of shared buffers is most of an embedded server's memory:
// PGlite allocates and touches all of it at start (about 110 MB more resident than with 16 MB).
// An embedded database serves one process on one machine, and a page missing from the buffers is
// read from the operating system's file cache, not from disk.
const SHARED_BUFFERS = '16MB';

export type EmbeddedDatabase = {
  url: string;
  // True when this process created the database files (the first start).
  created: boolean;
  // True when another process owns the database and we only connect to its socket.
  borrowed: boolean;
  // The database is migrated: a server lets other etax processes connect from now on.
  markReady(): void;
  close(): Promise<void>;
};

export type EmbeddedOpenOptions = {
  // A server shares the database once it is ready; a command keeps it to itself until it is done.
  holder: DataDirHolder;
  // How long to wait for another etax process that holds DATA_DIR
  // (DATABASE_CONNECT_TIMEOUT_SECONDS).
  waitMs: number;
};

function socketPath(dataDir: string): string {
  return path.join(dataDir, `.s.PGSQL.${SOCKET_PORT}`);
}

function urlFor(dataDir: string): string {
  return `postgres://postgres@/postgres?host=${encodeURIComponent(dataDir)}&port=${SOCKET_PORT}`;
}

// Opens started ahead of time (openEmbeddedDatabaseEarly), by data folder.
const earlyOpens = new Map<string, Promise<EmbeddedDatabase>>();

// Starts opening the database at once and returns before it is open: `etax serve` calls this
// before it loads the rest of the server, so PGlite's start (compiling its WebAssembly, reading
// the data folder, starting PostgreSQL) overlaps that loading. The next openEmbeddedDatabase of
// the same folder takes the open over, with its result or its error.
export function openEmbeddedDatabaseEarly(dataDir: string, options: EmbeddedOpenOptions): void {
  const opening = openNow(path.resolve(dataDir), options);
  // The taker sees a failure; until then it must not count as an unhandled rejection.
  opening.catch(() => {});
  earlyOpens.set(path.resolve(dataDir), opening);
}

export function openEmbeddedDatabase(
  dataDir: string,
  options: EmbeddedOpenOptions,
): Promise<EmbeddedDatabase> {
  const key = path.resolve(dataDir);
  const early = earlyOpens.get(key);
  if (early === undefined) return openNow(key, options);
  earlyOpens.delete(key);
  return early;
}

async function openNow(
  dataDir: string,
  options: EmbeddedOpenOptions,
): Promise<EmbeddedDatabase> {
  const socketFile = socketPath(dataDir);
  if (Buffer.byteLength(socketFile) > SOCKET_PATH_BYTES_MAX) {
    throw new Error(`DATA_DIR is too long for a Unix socket path (${socketFile})`);
  }
  mkdirSync(dataDir, { recursive: true });
  const access = await acquireDataDir(dataDir, options);
  if (access.kind === 'connect') {
    return { url: urlFor(dataDir), created: false, borrowed: true, markReady() {},
      close: async () => {} };
  }
  try {
    return await openHeld(dataDir, access.lock);
  } catch (error) {
    access.lock.release();
    throw error;
  }
}

// Opens the PostgreSQL files of an embedded database in this process, as the server does. Only
// for a process that holds their DATA_DIR (or a folder no server knows, as a restore's).
export function openDatabaseFiles(pgdataDir: string): Promise<PGlite> {
  delayWasmTierUp();
  return PGlite.create(pgdataDir, {
    // pg_trgm backs profile search (migration 0002 creates the extension).
    extensions: { pg_trgm },
    // PGlite's own start parameters, plus ours; command-line settings leave postgresql.conf
    // in DATA_DIR as it is.
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
  });
}

// Opens the database of a DATA_DIR this process holds, and serves it on the socket.
async function openHeld(dataDir: string, lock: DataDirLock): Promise<EmbeddedDatabase> {
  const socketFile = socketPath(dataDir);
  // Left behind by a process that died: no running process holds DATA_DIR.
  rmSync(socketFile, { force: true });
  const pgdataDir = path.join(dataDir, 'pgdata');
  const created = !existsSync(path.join(pgdataDir, 'PG_VERSION'));
  if (created) await copyTemplateDatabase(pgdataDir);
  const db = await openDatabaseFiles(pgdataDir);
  const server = new PGLiteSocketServer({
    db,
    path: socketFile,
    maxConnections: SOCKET_CONNECTIONS_MAX,
  });
  keepQueriesTogether(server);
  await server.start();
  return {
    url: urlFor(dataDir),
    created,
    borrowed: false,
    markReady: () => lock.markReady(),
    async close() {
      await server.stop();
      await db.close();
      rmSync(socketFile, { force: true });
      lock.release();
    },
  };
}
