// One embedded database, several `etax` processes, tested black-box: the database is opened by
// exactly one process, the holder of DATA_DIR (src/platform/db/data-dir-lock.ts). A CLI command
// started while `etax serve` is still starting on a new DATA_DIR waits for it and then connects
// to its socket, so both succeed and the first-start key is still printed; a second `etax serve`
// on the same DATA_DIR fails with one `etax:` line; a lock left by a process that died is taken
// over; a command that holds DATA_DIR too long makes the next one give up after
// DATABASE_CONNECT_TIMEOUT_SECONDS. Embedded databases of their own whatever the mode.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runEtax } from '../helpers/cli.ts';
import { temporaryDataDir } from '../helpers/database.ts';
import { basicAuth } from '../helpers/http.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  freePort,
  hasExited,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../helpers/server-process.ts';

const POLL = { attemptsMax: 600, intervalMs: 100 };
const READY = { attemptsMax: 600, pollIntervalMs: 100 };
const STOP = { exitWaitMs: 30_000 };
const TEST_TIMEOUT_MS = 150_000;
const WAITING_NOTICE = /^etax: waiting for an etax server \(pid \d+\) to finish starting with /;

type Server = ServerProcess & { stdout(): string };

function startServer(dataDir: string, port: number): Server {
  const server = startServerProcess({ port,
    env: cliEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' }) });
  let stdout = '';
  server.child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  return { ...server, stdout: () => stdout };
}

function killServer(server: ServerProcess | undefined) {
  if (server && !hasExited(server)) server.child.kill('SIGKILL');
}

async function getPoints(server: ServerProcess, key: string) {
  const response = await fetch(`${server.baseUrl}/v1/points`,
    { headers: { authorization: basicAuth(key) } });
  return { status: response.status, body: await response.json() as unknown };
}

function stderrLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '');
}

// The pid of a process that has exited.
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid!;
}

describe('a CLI command while `etax serve` starts on a new DATA_DIR', () => {
  let dataDir: string;
  let server: Server | undefined;

  beforeAll(() => {
    dataDir = temporaryDataDir('etxl-');
  });
  afterAll(() => {
    killServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('waits for the server, then both succeed and the first-start key is printed', async () => {
    server = startServer(dataDir, await freePort());
    const running = server;
    // The lock exists from before the database is opened until the server stops: the command
    // starts while the server is starting.
    const locked = await pollUntil(async () => {
      if (hasExited(running)) throw new Error(`etax serve exited:\n${running.output()}`);
      return existsSync(path.join(dataDir, 'etax.lock'));
    }, Boolean, POLL);
    expect(locked).toBe(true);
    const created = await runEtax({ DATA_DIR: dataDir },
      ['account', 'create', '--name', 'While starting', '--json']);
    expect(created.code, created.stderr).toBe(0);
    // The notice is all a waiting command prints on stderr, once at most.
    expect(stderrLines(created.stderr)).toEqual(
      stderrLines(created.stderr).length === 0 ? [] : [expect.stringMatching(WAITING_NOTICE)]);
    const account = JSON.parse(created.stdout) as { keys: Record<string, string> };
    await waitUntilReady(server, READY);

    const printed = await pollUntil(async () => /curl .*\n/.test(running.stdout()), Boolean,
      POLL);
    expect(printed, server.output()).toBe(true);
    const sandboxKey = /test key:\s+(test_\S+)/.exec(server.stdout())?.[1];
    expect(await getPoints(server, sandboxKey!)).toEqual({ status: 200,
      body: { balance: 1_000_000, reserved: 0, available: 1_000_000 } });
    expect(await getPoints(server, account.keys.live!)).toEqual({ status: 200,
      body: { balance: 0, reserved: 0, available: 0 } });
  }, TEST_TIMEOUT_MS);

  it('lets a command connect to the ready server at once, silently', async () => {
    const result = await runEtax({ DATA_DIR: dataDir },
      ['account', 'create', '--name', 'Ready', '--json']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('refuses a second `etax serve` on the same DATA_DIR with one etax: line', async () => {
    const second = startServer(dataDir, await freePort());
    const exitCode = await new Promise((resolve) => second.child.once('exit', resolve));
    expect(exitCode).toBe(2);
    expect(second.stdout()).toBe('');
    const lines = stderrLines(second.output());
    expect(lines).toEqual([expect.stringMatching(new RegExp(
      `^etax: DATA_DIR ${dataDir} is in use by an etax server \\(pid ${server!.child.pid}\\); `))]);
    // The first server still serves.
    await waitUntilReady(server!, READY);
  }, TEST_TIMEOUT_MS);

  it('removes the lock when the server stops', async () => {
    expect(await stopServerProcess(server!, STOP)).toBe(0);
    expect(existsSync(path.join(dataDir, 'etax.lock'))).toBe(false);
  }, TEST_TIMEOUT_MS);
});

describe('a lock left by a process that died', () => {
  let dataDir: string;
  let server: Server | undefined;

  beforeAll(async () => {
    dataDir = temporaryDataDir('etxl-');
    const migrated = await runEtax({ DATA_DIR: dataDir }, ['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
  }, TEST_TIMEOUT_MS);
  afterAll(() => {
    killServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  function leaveStaleLock() {
    writeFileSync(path.join(dataDir, 'etax.lock'),
      JSON.stringify({ pid: deadPid(), holder: 'server', ready: true }));
    // A killed server leaves its socket file too.
    writeFileSync(path.join(dataDir, '.s.PGSQL.5432'), '');
  }

  it('is taken over by a CLI command', async () => {
    leaveStaleLock();
    const result = await runEtax({ DATA_DIR: dataDir }, ['account', 'create', '--name', 'S']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(path.join(dataDir, 'etax.lock'))).toBe(false);
  }, TEST_TIMEOUT_MS);

  it('is taken over by `etax serve`', async () => {
    leaveStaleLock();
    server = startServer(dataDir, await freePort());
    await waitUntilReady(server, READY);
    const lock = JSON.parse(readFileSync(path.join(dataDir, 'etax.lock'), 'utf8'));
    expect(lock).toEqual({ pid: server.child.pid, holder: 'server', ready: true });
    expect(await stopServerProcess(server, STOP)).toBe(0);
  }, TEST_TIMEOUT_MS);
});

describe('a command that holds DATA_DIR too long', () => {
  let dataDir: string;

  beforeAll(() => {
    dataDir = temporaryDataDir('etxl-');
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('makes the next one give up after DATABASE_CONNECT_TIMEOUT_SECONDS', async () => {
    // This test's own process stands in for a running `etax import profiles`.
    writeFileSync(path.join(dataDir, 'etax.lock'),
      JSON.stringify({ pid: process.pid, holder: 'command', ready: true }));
    const result = await runEtax({ DATA_DIR: dataDir, DATABASE_CONNECT_TIMEOUT_SECONDS: '1' },
      ['account', 'create', '--name', 'Too late']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(stderrLines(result.stderr)).toEqual([
      `etax: waiting for another etax command (pid ${process.pid}) to finish with DATA_DIR ` +
        dataDir,
      expect.stringMatching(new RegExp(`^etax: DATA_DIR ${dataDir} is still held by another ` +
        `etax command \\(pid ${process.pid}\\) after waiting 1 s `)),
    ]);
    // It never opened the database.
    expect(existsSync(path.join(dataDir, 'pgdata'))).toBe(false);
  }, TEST_TIMEOUT_MS);
});
