// Who may open an embedded database: DATA_DIR/etax.lock records the one process that holds it.
// A second server is refused at once, a command connects to a ready server and waits for a
// starting one or for another command, a bounded time, with one notice on stderr; a lock left
// by a process that died (or by an earlier process with this one's pid) is taken over. The
// holders here live in this process; test/integration/embedded-data-dir-lock.test.ts runs the
// same rules between real `etax` processes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync }
  from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  acquireDataDir,
  type DataDirAccess,
  type DataDirLock,
} from '../../src/platform/db/data-dir-lock.ts';
import { DatabaseOpenError } from '../../src/platform/db/open-error.ts';

let dataDir: string;
let lockFile: string;
const held: DataDirLock[] = [];

beforeEach(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'etl-'));
  lockFile = path.join(dataDir, 'etax.lock');
});
afterEach(() => {
  for (const lock of held.splice(0)) lock.release();
  vi.restoreAllMocks();
  rmSync(dataDir, { recursive: true, force: true });
});

function owned(access: DataDirAccess): DataDirLock {
  if (access.kind !== 'own') throw new Error(`expected to own DATA_DIR, got ${access.kind}`);
  held.push(access.lock);
  return access.lock;
}

const asServer = (waitMs = 0) => acquireDataDir(dataDir, { holder: 'server', waitMs });
const asCommand = (waitMs = 0) => acquireDataDir(dataDir, { holder: 'command', waitMs });

function readLockFile(): unknown {
  return JSON.parse(readFileSync(lockFile, 'utf8'));
}

// The pid of a process that has exited.
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

function captureStderr(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

describe('the holder', () => {
  it('records its pid and kind, marks itself ready, and removes the lock on release', async () => {
    const lock = owned(await asServer());
    expect(readLockFile()).toEqual({ pid: process.pid, holder: 'server', ready: false });
    lock.markReady();
    expect(readLockFile()).toEqual({ pid: process.pid, holder: 'server', ready: true });
    lock.release();
    expect(existsSync(lockFile)).toBe(false);
  });
});

describe('a second opener', () => {
  it('is refused at once when it is a server and a server holds DATA_DIR', async () => {
    owned(await asServer()).markReady();
    const startedAt = Date.now();
    const refused = asServer(60_000);
    await expect(refused).rejects.toThrow(DatabaseOpenError);
    await expect(refused).rejects.toThrow(
      `DATA_DIR ${dataDir} is in use by an etax server (pid ${process.pid})`);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });

  it('connects to a ready server when it is a command', async () => {
    owned(await asServer()).markReady();
    expect(await asCommand()).toEqual({ kind: 'connect' });
  });

  it('waits for a starting server, with one notice, then connects', async () => {
    const lock = owned(await asServer());
    const stderr = captureStderr();
    const waiting = asCommand(30_000);
    setTimeout(() => lock.markReady(), 300);
    expect(await waiting).toEqual({ kind: 'connect' });
    expect(stderr).toEqual([`etax: waiting for an etax server (pid ${process.pid}) to finish ` +
      `starting with DATA_DIR ${dataDir}\n`]);
  });

  it('gives up on a server that does not finish starting in time', async () => {
    owned(await asServer());
    captureStderr();
    const startedAt = Date.now();
    await expect(asCommand(300)).rejects.toThrow(new RegExp(
      `^DATA_DIR ${dataDir} is still held by an etax server \\(pid ${process.pid}\\) after ` +
      'waiting 0.3 s'));
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(300);
  });

  it('waits for a command to release DATA_DIR, even a ready one, then holds it', async () => {
    const first = owned(await asCommand());
    first.markReady();
    captureStderr();
    const waiting = asServer(30_000);
    setTimeout(() => first.release(), 300);
    owned(await waiting);
    expect(readLockFile()).toEqual({ pid: process.pid, holder: 'server', ready: false });
  });
});

describe('a stale lock', () => {
  it('is taken over when its process has exited', async () => {
    const pid = deadPid();
    writeFileSync(lockFile, JSON.stringify({ pid, holder: 'server', ready: true }));
    owned(await asServer());
    expect(readLockFile()).toEqual({ pid: process.pid, holder: 'server', ready: false });
  });

  it('is taken over when it names this process but this process does not hold it', async () => {
    // A container restarts its processes with the same pids.
    writeFileSync(lockFile, JSON.stringify({ pid: process.pid, holder: 'server', ready: true }));
    owned(await asCommand());
    expect(readLockFile()).toEqual({ pid: process.pid, holder: 'command', ready: false });
  });

  it('is taken over when it cannot be read and is older than a moment', async () => {
    writeFileSync(lockFile, '');
    const past = new Date(Date.now() - 60_000);
    utimesSync(lockFile, past, past);
    owned(await asCommand());
  });

  it('is not taken over while it cannot be read but was just created', async () => {
    writeFileSync(lockFile, '');
    await expect(asCommand(200)).rejects.toThrow(
      `is still held by another etax process after waiting`);
    expect(readFileSync(lockFile, 'utf8')).toBe('');
  });
});
