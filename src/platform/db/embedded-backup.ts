/* eslint-disable no-restricted-syntax -- a backup file records when the system made it. */
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, rmdirSync, renameSync,
  statSync, writeFileSync,
} from 'node:fs';
import path from 'node:path';
import * as tar from 'tar';
import { GENERATED_KEY_FILE } from '../encryption-key.ts';
import { acquireDataDir, type DataDirLock } from './data-dir-lock.ts';
import { openDatabaseFiles } from './embedded.ts';

// A backup of the embedded database: one gzipped tar of DATA_DIR's PostgreSQL files (`pgdata/`),
// the encryption key etax generated there when no ENCRYPTION_KEY is configured, and
// a manifest (`etax-backup.json`, the first entry) that says what the archive must hold.
//
// Consistency: PGlite keeps pages in the memory of the one process that opened the database and
// offers no way to read it from another, so a copy of the files of a running server could mix
// pages of different moments. A backup therefore takes DATA_DIR the way a CLI command does (no
// server starts meanwhile; a running command is waited for) and refuses while an etax server
// holds it. It opens the database once, which replays the log of a process that died, and closes
// it, which writes everything to the files; files closed that way are a database PostgreSQL opens
// as it was, which is all the archive has to keep. A restore checks the whole archive before it
// writes anything, unpacks it beside DATA_DIR's database, opens it there, and only then moves it
// into place: a damaged or foreign file changes nothing.

const MANIFEST_NAME = 'etax-backup.json';
const PGDATA = 'pgdata';
const FORMAT = 'etax-embedded-backup';
const FORMAT_VERSION = 1;
// The manifest is a few hundred bytes; a larger first entry is not one of ours.
const MANIFEST_BYTES_MAX = 64 * 1024;

export class BackupError extends Error {}

export type BackupManifest = {
  format: typeof FORMAT;
  formatVersion: typeof FORMAT_VERSION;
  createdAt: string;
  // PostgreSQL's major version of the files (PG_VERSION) and its full version string.
  postgresMajor: string;
  postgresVersion: string;
  // Committed migrations applied to the database (a newer etax applies the rest at its start).
  migrations: number;
  // Regular files under pgdata/ and their total size, to tell an archive cut short.
  files: number;
  bytes: number;
  // The key the secrets at rest were sealed with when the backup was made, as a fingerprint
  // (never the key), and whether the archive holds it (DATA_DIR's generated key file).
  sealingKey: { fingerprint: string | null; source: 'ENCRYPTION_KEY' |
    // What backups made before the variable's rename say for ENCRYPTION_KEY.
    'CERTIFICATE_ENCRYPTION_KEY' | 'DATA_DIR' |
    null; included: boolean };
};

export type BackupOptions = {
  dataDir: string;
  out: string;
  // ENCRYPTION_KEY, when configured.
  configuredKey?: string;
  waitMs: number;
};

export type RestoreOptions = {
  dataDir: string;
  file: string;
  configuredKey?: string;
  previousKeys?: string;
  waitMs: number;
};

// A name for a key that cannot be turned back into the key: a backup says which key its
// secrets need without carrying a configured key.
export function keyFingerprint(keyBase64: string): string {
  const key = Buffer.from(keyBase64.trim(), 'base64');
  return createHash('sha256').update('etax sealing key\0').update(key).digest('hex').slice(0, 16);
}

function readKeyFile(dataDir: string): string | null {
  const file = path.join(dataDir, GENERATED_KEY_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : null;
}

function holdsDatabase(dataDir: string): boolean {
  return existsSync(path.join(dataDir, PGDATA, 'PG_VERSION'));
}

// Takes DATA_DIR as a command does; a running server is a refusal, not something to wait for.
async function takeDataDir(dataDir: string, waitMs: number, doing: string): Promise<DataDirLock> {
  const access = await acquireDataDir(dataDir, { holder: 'command', waitMs });
  if (access.kind === 'connect') {
    throw new BackupError(`DATA_DIR ${dataDir} is in use by a running etax server; stop it ` +
      `before ${doing}: the embedded database can only be read consistently by the process ` +
      'that opened it');
  }
  return access.lock;
}

function countFiles(folder: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

// Opens the files (replaying the log of a process that died), reads what the manifest states,
// and closes them cleanly, so the files alone hold the whole database.
async function settleDatabase(pgdataDir: string) {
  const db = await openDatabaseFiles(pgdataDir);
  try {
    const migrations = await countMigrations(db);
    const version = await db.query<{ version: string }>('select version()');
    return { migrations, postgresVersion: version.rows[0]!.version };
  } finally {
    await db.close();
  }
}

async function countMigrations(db: Awaited<ReturnType<typeof openDatabaseFiles>>) {
  const table = await db.query<{ name: string | null }>(
    "select to_regclass('drizzle.__drizzle_migrations')::text as name");
  if (table.rows[0]?.name === null) return 0;
  const counted = await db.query<{ count: number }>(
    'select count(*)::int as count from drizzle.__drizzle_migrations');
  return counted.rows[0]!.count;
}

function describeFileError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === undefined ? String((error as Error).message) : code;
}

export async function backupDataDir(options: BackupOptions): Promise<BackupManifest> {
  const dataDir = path.resolve(options.dataDir);
  const out = path.resolve(options.out);
  if (existsSync(out)) {
    throw new BackupError(`${out} already exists; a backup never replaces a file`);
  }
  if (!existsSync(path.dirname(out))) {
    throw new BackupError(`the folder of ${out} does not exist`);
  }
  if (!holdsDatabase(dataDir)) throw new BackupError(`DATA_DIR ${dataDir} holds no database`);
  const lock = await takeDataDir(dataDir, options.waitMs, 'a backup');
  const partial = `${out}.partial-${randomBytes(4).toString('hex')}`;
  const manifestFile = path.join(dataDir, MANIFEST_NAME);
  try {
    const settled = await settleDatabase(path.join(dataDir, PGDATA));
    const keyFile = readKeyFile(dataDir);
    const sealingKey = options.configuredKey ?? keyFile;
    const manifest: BackupManifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      postgresMajor: readFileSync(path.join(dataDir, PGDATA, 'PG_VERSION'), 'utf8').trim(),
      ...settled,
      ...countFiles(path.join(dataDir, PGDATA)),
      sealingKey: {
        fingerprint: sealingKey === null ? null : keyFingerprint(sealingKey),
        source: options.configuredKey !== undefined ? 'ENCRYPTION_KEY'
          : keyFile !== null ? 'DATA_DIR' : null,
        included: keyFile !== null,
      },
    };
    writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    const entries = [MANIFEST_NAME, PGDATA, ...(keyFile === null ? [] : [GENERATED_KEY_FILE])];
    // 0600: the archive holds every secret of the database, and the key that opens them.
    await tar.c({ gzip: true, cwd: dataDir, file: partial, portable: true, mode: 0o600 },
      entries);
    // A link never replaces a file: a backup written meanwhile under the same name is kept.
    try {
      linkSync(partial, out);
    } catch (error) {
      throw new BackupError(`could not write ${out} (${describeFileError(error)})`);
    }
    return manifest;
  } finally {
    rmSync(partial, { force: true });
    rmSync(manifestFile, { force: true });
    lock.release();
  }
}

// Where an archive entry may go: the manifest, the key file, or under pgdata/. Anything else (an
// absolute path, `..`, a link, a device) means the file is not an etax backup.
function allowedEntry(entryPath: string, type: string): boolean {
  const normal = path.posix.normalize(entryPath).replace(/\/$/, '');
  if (normal !== entryPath.replace(/\/$/, '') || path.posix.isAbsolute(normal)) return false;
  if (normal.split('/').includes('..')) return false;
  if (type === 'File') {
    return normal === MANIFEST_NAME || normal === GENERATED_KEY_FILE ||
      normal.startsWith(`${PGDATA}/`);
  }
  return type === 'Directory' && (normal === PGDATA || normal.startsWith(`${PGDATA}/`));
}

function parseManifest(text: string): BackupManifest {
  let value: Partial<BackupManifest>;
  try {
    value = JSON.parse(text) as Partial<BackupManifest>;
  } catch {
    throw new BackupError('its manifest is not JSON');
  }
  if (value.format !== FORMAT) throw new BackupError('its manifest is not an etax backup\'s');
  if (value.formatVersion !== FORMAT_VERSION) {
    throw new BackupError(`its format version ${String(value.formatVersion)} is not ` +
      `${FORMAT_VERSION}, the one this etax reads`);
  }
  const counts = [value.migrations, value.files, value.bytes];
  if (!counts.every((count) => Number.isSafeInteger(count) && count! >= 0) ||
    typeof value.sealingKey !== 'object' || value.sealingKey === null) {
    throw new BackupError('its manifest is incomplete');
  }
  return value as BackupManifest;
}

type Inspected = { manifest: BackupManifest; key: string | null };

// Reads the whole archive once: every entry allowed, the manifest first, and the files and bytes
// under pgdata/ what the manifest says. gzip's checksum and tar's header checksums catch a damaged
// file; the counts catch one cut at an entry's end.
async function inspectArchive(file: string): Promise<Inspected> {
  let manifestText: string | null = null;
  let key: string | null = null;
  let first = true;
  let problem: string | null = null;
  let files = 0;
  let bytes = 0;
  const reads: Promise<void>[] = [];
  try {
    await tar.t({
      file,
      strict: true,
      onReadEntry: (entry) => {
        const allowed = allowedEntry(entry.path, entry.type);
        if (!allowed) problem ??= `it holds an entry etax does not write (${entry.path})`;
        else if (first && entry.path !== MANIFEST_NAME) problem ??= 'its manifest is missing';
        first = false;
        if (allowed && entry.type === 'File' && entry.path.startsWith(`${PGDATA}/`)) {
          files += 1;
          bytes += entry.size ?? 0;
        }
        if (allowed && (entry.path === MANIFEST_NAME || entry.path === GENERATED_KEY_FILE)) {
          if ((entry.size ?? 0) > MANIFEST_BYTES_MAX) {
            problem ??= `its ${entry.path} is too large`;
            entry.resume();
            return;
          }
          const chunks: Buffer[] = [];
          entry.on('data', (chunk: Buffer) => chunks.push(chunk));
          reads.push(new Promise((resolve) => entry.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (entry.path === MANIFEST_NAME) manifestText = text;
            else key = text.trim();
            resolve();
          })));
          return;
        }
        entry.resume();
      },
    });
    await Promise.all(reads);
  } catch (error) {
    throw new BackupError(`it cannot be read as an etax backup (${describeTarError(error)})`);
  }
  if (problem !== null) throw new BackupError(problem);
  if (manifestText === null) throw new BackupError('its manifest is missing');
  const manifest = parseManifest(manifestText);
  if (files !== manifest.files || bytes !== manifest.bytes) {
    throw new BackupError(`it holds ${files} database files of ${bytes} bytes where its ` +
      `manifest says ${manifest.files} of ${manifest.bytes}: it is incomplete`);
  }
  if (manifest.sealingKey.included !== (key !== null)) {
    throw new BackupError('its key file does not match its manifest');
  }
  return { manifest, key };
}

function describeTarError(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'Z_BUF_ERROR') return 'it ends too early: truncated';
  if (code === 'TAR_BAD_ARCHIVE') return 'not a gzipped tar archive';
  if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return code;
  return code === undefined ? String(message) : `${code}: ${String(message)}`;
}

// The keys the restored database will be opened with: the configured ones, or else the key file
// DATA_DIR will hold.
function keysAfterRestore(options: RestoreOptions, restoredKey: string | null): string[] {
  if (options.configuredKey !== undefined) {
    const previous = (options.previousKeys ?? '').split(',').filter((key) => key.length > 0);
    return [options.configuredKey, ...previous];
  }
  const key = restoredKey ?? readKeyFile(path.resolve(options.dataDir));
  return key === null ? [] : [key];
}

function checkKeys(options: RestoreOptions, inspected: Inspected): void {
  const needed = inspected.manifest.sealingKey.fingerprint;
  if (needed === null) return;
  const available = keysAfterRestore(options, inspected.key).map(keyFingerprint);
  if (available.includes(needed)) return;
  const { source } = inspected.manifest.sealingKey;
  const where = source === 'ENCRYPTION_KEY' || source === 'CERTIFICATE_ENCRYPTION_KEY'
    ? 'the ENCRYPTION_KEY configured when it was made'
    : 'the key file it holds, while ENCRYPTION_KEY is set now';
  throw new BackupError(`its secrets are sealed with ${where} (fingerprint ${needed}), which ` +
    'this configuration does not have: set ENCRYPTION_KEY, or list it in ' +
    'ENCRYPTION_PREVIOUS_KEYS');
}

export async function restoreDataDir(options: RestoreOptions): Promise<BackupManifest> {
  const file = path.resolve(options.file);
  try {
    return await restoreFrom(file, options);
  } catch (error) {
    if (error instanceof BackupError) {
      throw new BackupError(`${file}: ${error.message}; nothing was restored`);
    }
    throw error;
  }
}

async function restoreFrom(file: string, options: RestoreOptions): Promise<BackupManifest> {
  const dataDir = path.resolve(options.dataDir);
  const inspected = await inspectArchive(file);
  checkKeys(options, inspected);
  mkdirSync(dataDir, { recursive: true });
  const lock = await takeDataDir(dataDir, options.waitMs, 'a restore');
  const staging = path.join(dataDir, `.restore-${randomBytes(4).toString('hex')}`);
  try {
    refuseExistingData(dataDir, inspected.key);
    mkdirSync(staging, { mode: 0o700 });
    // The files belong to whoever restores (the archive records no owner), as a database the
    // same user opened would.
    await tar.x({
      file, cwd: staging, strict: true, preserveOwner: false,
      filter: (entryPath, entry) =>
        allowedEntry(entryPath, 'type' in entry ? entry.type : 'File'),
    });
    const restored = path.join(staging, PGDATA);
    const settled = await openRestored(restored);
    if (settled.migrations !== inspected.manifest.migrations) {
      throw new BackupError(`the restored database has ${settled.migrations} migrations where ` +
        `its manifest says ${inspected.manifest.migrations}`);
    }
    if (inspected.key !== null && readKeyFile(dataDir) === null) {
      linkSync(path.join(staging, GENERATED_KEY_FILE), path.join(dataDir, GENERATED_KEY_FILE));
    }
    // An empty pgdata folder (refuseExistingData let it through) makes way; rename never
    // replaces a folder with files in it.
    if (existsSync(path.join(dataDir, PGDATA))) rmdirSync(path.join(dataDir, PGDATA));
    renameSync(restored, path.join(dataDir, PGDATA));
    return inspected.manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
    lock.release();
  }
}

// A restore fills an empty DATA_DIR; it never replaces a database or a different key.
function refuseExistingData(dataDir: string, restoredKey: string | null): void {
  const pgdata = path.join(dataDir, PGDATA);
  if (existsSync(pgdata) && readdirSync(pgdata).length > 0) {
    throw new BackupError(`DATA_DIR ${dataDir} already holds a database (${pgdata}); a restore ` +
      'never replaces one: move it away, or restore into another DATA_DIR');
  }
  const existingKey = readKeyFile(dataDir);
  if (restoredKey !== null && existingKey !== null && existingKey !== restoredKey) {
    throw new BackupError(`DATA_DIR ${dataDir} holds another ${GENERATED_KEY_FILE} than the ` +
      'backup; a restore never replaces a key: move it away first');
  }
}

async function openRestored(pgdataDir: string) {
  try {
    return await settleDatabase(pgdataDir);
  } catch (error) {
    throw new BackupError(`the restored files do not open as a database ` +
      `(${(error as Error).message})`);
  }
}
