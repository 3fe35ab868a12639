/* eslint-disable no-restricted-syntax --
   waits and lock files' ages are measured against the file system's clock. */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync }
  from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseOpenError } from './open-error.ts';

// PGlite has no lock of its own: a second process that opens the same data folder runs a second
// PostgreSQL on the same files, which aborts one of them or corrupts the database. So exactly one
// etax process at a time holds DATA_DIR, recorded in DATA_DIR/etax.lock (its pid, what it is,
// whether it is ready), created with O_EXCL before the database is opened. Every other process
// reads it and either connects to the holder's socket, waits, or gives up with a clear reason.
//
// A server holder lets others connect once its database is migrated (markReady); a command
// holder (`etax account create`, `etax import …`) runs briefly and closes the database when it
// is done, which would cut anyone connected, so others wait until it releases DATA_DIR instead.
// A lock whose pid is no longer running is left by a process that died, and is taken over.

const LOCK_FILE_NAME = 'etax.lock';
// How often a waiting process looks at the lock again.
const POLL_INTERVAL_MS = 100;
// A lock file is written right after it is created; one that cannot be read is being written,
// unless it is older than this, when its writer died between the two steps.
const UNREADABLE_GRACE_MS = 2_000;

export type DataDirHolder = 'server' | 'command';

type LockContent = { pid: number; holder: DataDirHolder; ready: boolean };

// The lock as read: its exact text, to tell whether it changed, and its content when it parses.
type ReadLock = { text: string; content: LockContent | null };

export type DataDirLock = {
  // The database is migrated: a server holder now lets other etax processes connect.
  markReady(): void;
  release(): void;
};

export type DataDirAccess =
  // This process holds DATA_DIR: it opens the database and serves the socket.
  | { kind: 'own'; lock: DataDirLock }
  // A ready etax server holds it: connect to its socket.
  | { kind: 'connect' };

export type AcquireOptions = {
  holder: DataDirHolder;
  // How long to wait for a starting server or a running command; then the open fails.
  waitMs: number;
};

// Lock files this process holds. A lock that names this process's own pid but is not here was
// left by an earlier process with the same pid: containers restart their processes with the
// same pids.
const heldHere = new Set<string>();

function lockText(content: LockContent): string {
  return `${JSON.stringify(content)}\n`;
}

function parseLock(text: string): LockContent | null {
  try {
    const value = JSON.parse(text) as Partial<LockContent>;
    const valid = Number.isSafeInteger(value.pid) && (value.pid ?? 0) > 0 &&
      (value.holder === 'server' || value.holder === 'command') &&
      typeof value.ready === 'boolean';
    return valid ? value as LockContent : null;
  } catch {
    return null;
  }
}

function readLock(file: string): ReadLock | null {
  try {
    const text = readFileSync(file, 'utf8');
    return { text, content: parseLock(text) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

// O_EXCL: of several processes creating the lock at once, exactly one succeeds.
function tryCreate(file: string, text: string): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(file, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(descriptor, text);
  } finally {
    closeSync(descriptor);
  }
  return true;
}

function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(file: string, lock: ReadLock): boolean {
  if (lock.content === null) {
    try {
      return Date.now() - statSync(file).mtimeMs > UNREADABLE_GRACE_MS;
    } catch {
      return false; // Gone meanwhile: the next look tells.
    }
  }
  if (lock.content.pid === process.pid) return !heldHere.has(file);
  return !processRunning(lock.content.pid);
}

// Removes a stale lock only if it is still the one judged stale: it is first renamed aside
// (atomic), and put back when another process replaced it in between.
function removeStale(file: string, stale: ReadLock): void {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (readFileSync(aside, 'utf8') === stale.text) rmSync(aside, { force: true });
  else renameSync(aside, file);
}

function heldLock(file: string, content: LockContent): DataDirLock {
  heldHere.add(file);
  let text = lockText(content);
  return {
    markReady() {
      if (content.ready) return;
      content = { ...content, ready: true };
      const next = lockText(content);
      // Written aside and renamed over the lock, so a reader sees the old text or the new.
      const unfinished = `${file}.${process.pid}.tmp`;
      const descriptor = openSync(unfinished, 'w', 0o644);
      try {
        writeSync(descriptor, next);
      } finally {
        closeSync(descriptor);
      }
      renameSync(unfinished, file);
      text = next;
    },
    release() {
      heldHere.delete(file);
      if (readLock(file)?.text === text) rmSync(file, { force: true });
    },
  };
}

function describeHolder(content: LockContent): string {
  return content.holder === 'server'
    ? `an etax server (pid ${content.pid})` : `another etax command (pid ${content.pid})`;
}

function removalHint(file: string, content: LockContent): string {
  return `if no process ${content.pid} is running etax, remove ${file}`;
}

function refusal(dataDir: string, file: string, content: LockContent): DatabaseOpenError {
  return new DatabaseOpenError(`DATA_DIR ${dataDir} is in use by ${describeHolder(content)}; ` +
    `stop it or use another DATA_DIR (${removalHint(file, content)})`);
}

function timeout(dataDir: string, file: string, content: LockContent | null, waitMs: number) {
  const holder = content === null ? 'another etax process' : describeHolder(content);
  const hint = content === null ? '' : ` (${removalHint(file, content)})`;
  return new DatabaseOpenError(`DATA_DIR ${dataDir} is still held by ${holder} after waiting ` +
    `${Number((waitMs / 1000).toFixed(1))} s${hint}`);
}

function waitingNotice(dataDir: string, content: LockContent): string {
  const until = content.holder === 'server' ? 'finish starting' : 'finish';
  return `etax: waiting for ${describeHolder(content)} to ${until} with DATA_DIR ${dataDir}\n`;
}

// What a live holder means for this process: connect to it, be refused, or wait.
function decide(content: LockContent | null, holder: DataDirHolder) {
  if (content?.holder !== 'server') return 'wait';
  if (holder === 'server') return 'refuse';
  return content.ready ? 'connect' : 'wait';
}

// Takes DATA_DIR, or finds the ready server that holds it, before any database file is opened.
export async function acquireDataDir(
  dataDir: string,
  options: AcquireOptions,
): Promise<DataDirAccess> {
  const file = path.join(dataDir, LOCK_FILE_NAME);
  const deadline = Date.now() + options.waitMs;
  let noticeShown = false;
  for (;;) {
    const mine: LockContent = { pid: process.pid, holder: options.holder, ready: false };
    if (tryCreate(file, lockText(mine))) return { kind: 'own', lock: heldLock(file, mine) };
    const found = readLock(file);
    if (found === null) continue; // Released between the two steps: try again at once.
    if (isStale(file, found)) {
      removeStale(file, found);
      continue;
    }
    const decision = decide(found.content, options.holder);
    if (decision === 'connect') return { kind: 'connect' };
    if (decision === 'refuse') throw refusal(dataDir, file, found.content!);
    if (Date.now() >= deadline) throw timeout(dataDir, file, found.content, options.waitMs);
    // On stderr, like every etax notice: a command's stdout is its result.
    if (!noticeShown && found.content !== null) {
      process.stderr.write(waitingNotice(dataDir, found.content));
      noticeShown = true;
    }
    await sleep(POLL_INTERVAL_MS);
  }
}
