// The `etax` CLI contract, tested black-box: every test spawns `node bin/etax.js …` exactly as an
// operator would and checks the exit status, stdout and stderr. The account, key and points
// commands run against a fresh database of the current mode (embedded PGlite, or PostgreSQL when
// DATABASE_URL is set). The serve tests check the first start of a new embedded database (a
// sandbox key is printed once, the CLI reaches the running server's socket, SIGTERM exits 0, a
// restart prints no key and keeps the data) and, with DATABASE_URL, that serve never prints a key
// and that data survives restarts on PostgreSQL too.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';
import {
  freePort,
  hasExited,
  startServerProcess,
  stopServerProcess,
  waitUntilReady as waitUntilProcessReady,
  type ServerProcess,
} from '../helpers/server-process.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/etax.js');

// A CLI command opens the database and runs migrations; on a new embedded database that includes
// creating the data directory, which takes seconds on a busy CI machine. 60 s bounds a hang.
const CLI_TIMEOUT_MS = 60_000;
// A server must answer /readyz, or print its first-start lines, within this long.
const SERVER_START_TIMEOUT_MS = 60_000;
// serve gives in-flight work 25 s before it gives up; a clean stop is much faster than this.
const SERVER_STOP_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 100;
// /readyz is polled every POLL_INTERVAL_MS for SERVER_START_TIMEOUT_MS.
const READY_ATTEMPTS_MAX = SERVER_START_TIMEOUT_MS / POLL_INTERVAL_MS;
const SERVE_TEST_TIMEOUT_MS = 150_000;

const KEY_PATTERN = (environment: 'test' | 'live') =>
  new RegExp(`^${environment}_[A-Za-z0-9_-]{43}$`);
const ACCOUNT_ID_PATTERN = /^acc_[A-Za-z0-9_-]+$/;

// Every variable src/config.ts reads. The tests set what they need and inherit none of these, so
// a developer's shell settings cannot change what is tested.
const CONFIG_VARIABLES = [
  'PORT', 'HOST', 'DATABASE_URL', 'DATA_DIR', 'REDIS_URL', 'LOG_LEVEL', 'PUBLIC_BASE_URL',
  'WORKERS_ENABLED', 'AUTH_CACHE_TTL_MS', 'RESERVATION_TTL_MS', 'BODY_LIMIT_BYTES',
  'DB_POOL_MAX', 'TEST_SIGNUP_POINTS', 'PRICE_OVERRIDES', 'RATE_LIMIT_OVERRIDES',
];

type Env = Record<string, string | undefined>;

function cliEnv(settings: Env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete env[name];
  for (const [name, value] of Object.entries(settings)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}

type CliResult = { code: number; stdout: string; stderr: string };

function runCli(env: Env, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const options = {
      cwd: ROOT,
      env: cliEnv(env),
      timeout: CLI_TIMEOUT_MS,
      killSignal: 'SIGKILL' as const,
    };
    execFile(process.execPath, [BIN, ...args], options, (error, stdout, stderr) => {
      // A process killed by the timeout has no exit code; -1 fails every assertion below.
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// Runs a command that must succeed with --json and returns its one line of JSON output.
async function runJson(env: Env, args: string[]): Promise<Record<string, unknown>> {
  const result = await runCli(env, [...args, '--json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

function temporaryDataDir(): string {
  // Short: the embedded socket DATA_DIR/.s.PGSQL.5432 must fit the 107-byte Unix path limit.
  return mkdtempSync(path.join(os.tmpdir(), 'etxc-'));
}

async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(POLL_INTERVAL_MS);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// The shared server process, plus all of its stdout: the tests read the first-start lines and
// check that no key is ever printed, which the helper's bounded output cannot promise.
type Server = ServerProcess & { stdout(): string };

function startServer(env: Env, port: number): Server {
  const server = startServerProcess({ port, env: cliEnv({ ...env, LOG_LEVEL: 'warn' }) });
  let stdout = '';
  server.child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
  return { ...server, stdout: () => stdout };
}

function failIfExited(server: Server) {
  if (hasExited(server)) throw new Error(`etax serve exited early:\n${server.output()}`);
}

async function waitUntilReady(server: Server) {
  await waitUntilProcessReady(server, {
    attemptsMax: READY_ATTEMPTS_MAX,
    pollIntervalMs: POLL_INTERVAL_MS,
  });
}

// Sends SIGTERM and returns the exit code; a server that does not stop in time is killed.
function stopServer(server: Server): Promise<number | null> {
  return stopServerProcess(server, { exitWaitMs: SERVER_STOP_TIMEOUT_MS });
}

function killServer(server: Server | undefined) {
  if (server && !hasExited(server)) server.child.kill('SIGKILL');
}

function basicAuth(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
}

async function getPoints(server: Server, authorization: string) {
  const response = await fetch(`${server.baseUrl}/v1/points`, { headers: { authorization } });
  return { status: response.status, body: await response.json() as unknown };
}

describe('account, key and points commands', () => {
  let database: TestDatabase;
  let env: Env;
  let created: Record<string, unknown>;
  let accountId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { ...database.env };
    created = await runJson(env, ['account', 'create', '--name', 'X', '--plan', 'STANDARD']);
    accountId = String(created.accountId);
  });
  afterAll(async () => {
    await database?.drop();
  });

  describe('happy', () => {
    it('account create --json prints exactly the account id, plan and one key per env', () => {
      expect(Object.keys(created).sort()).toEqual(['accountId', 'keys', 'plan']);
      expect(created.accountId).toMatch(ACCOUNT_ID_PATTERN);
      expect(created.plan).toBe('STANDARD');
      const keys = created.keys as Record<string, string>;
      expect(Object.keys(keys).sort()).toEqual(['live', 'test']);
      expect(keys.test).toMatch(KEY_PATTERN('test'));
      expect(keys.live).toMatch(KEY_PATTERN('live'));
    });

    it('account create without --plan makes a FREE account', async () => {
      const account = await runJson(env, ['account', 'create', '--name', 'Y']);
      expect(account.plan).toBe('FREE');
    });

    it('key create --env live --json prints exactly a new live key', async () => {
      const printed = await runJson(env, keyArgs(accountId, 'live'));
      expect(Object.keys(printed)).toEqual(['key']);
      expect(printed.key).toMatch(KEY_PATTERN('live'));
      expect(printed.key).not.toBe((created.keys as Record<string, string>).live);
    });

    it('points show --json prints the test balance with the sign-up points', async () => {
      const printed = await runJson(env, showArgs(accountId, 'test'));
      expect(printed).toEqual({
        accountId, env: 'test', balance: 1_000_000, reserved: 0, available: 1_000_000,
      });
    });

    it('points grant --json adds to the live balance, which starts at 0', async () => {
      const args = ['points', 'grant', '--account', accountId, '--env', 'live', '--amount', '500'];
      const printed = await runJson(env, args);
      expect(printed).toEqual({
        accountId, env: 'live', balance: 500, reserved: 0, available: 500,
      });
      const shown = await runJson(env, showArgs(accountId, 'live'));
      expect(shown).toEqual(printed);
    });

    it('key revoke revokes a key once, and a second revoke fails', async () => {
      const { key } = await runJson(env, keyArgs(accountId, 'test'));
      const first = await runCli(env, ['key', 'revoke', '--key', String(key)]);
      expect(first).toEqual({ code: 0, stdout: 'key revoked\n', stderr: '' });
      const second = await runCli(env, ['key', 'revoke', '--key', String(key)]);
      expect(second.code).not.toBe(0);
      expect(second.stdout).toBe('');
      expect(second.stderr).toMatch(/no active key/);
    });

    it('key revoke --json prints {revoked: true}', async () => {
      const { key } = await runJson(env, keyArgs(accountId, 'live'));
      const printed = await runJson(env, ['key', 'revoke', '--key', String(key)]);
      expect(printed).toEqual({ revoked: true });
    });
  });

  describe('errors', () => {
    const badInputs: Array<[string, (id: string) => string[], RegExp]> = [
      ['an unknown plan', () => ['account', 'create', '--name', 'X', '--plan', 'GOLD'], /--plan/],
      ['an empty account name', () => ['account', 'create', '--name', ' '], /--name/],
      ['a negative amount', (id) => grantArgs(id, 'live', '-5'), /--amount/],
      ['a non-numeric amount', (id) => grantArgs(id, 'live', 'abc'), /--amount/],
      ['a zero amount', (id) => grantArgs(id, 'live', '0'), /--amount/],
      ['an unknown environment', (id) => grantArgs(id, 'prod', '5'), /--env/],
      ['an unknown environment for show', (id) => showArgs(id, 'prod'), /--env/],
      ['an unknown environment for a key', (id) => keyArgs(id, 'prod'), /--env/],
      ['an unknown account for grant', () => grantArgs('acc_unknown', 'live', '5'), /acc_unknown/],
      ['an unknown account for show', () => showArgs('acc_unknown', 'test'), /acc_unknown/],
      ['an unknown account for a key', () => keyArgs('acc_unknown', 'test'), /acc_unknown/],
      ['a malformed key to revoke', () => ['key', 'revoke', '--key', 'test_nope'], /no active key/],
    ];

    it.each(badInputs)('exits 2 with a message on stderr and no stdout for %s', async (
      _name, args, message,
    ) => {
      const result = await runCli(env, [...args(accountId), '--json']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^etax: /);
      expect(result.stderr).toMatch(message);
    });

    it('exits non-zero with usage on stderr when a required option is missing', async () => {
      const withoutAmount = ['points', 'grant', '--account', accountId, '--env', 'test'];
      const result = await runCli(env, withoutAmount);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/--amount/);
    });

    it('grants nothing when a grant is refused', async () => {
      await runCli(env, grantArgs(accountId, 'test', '-5'));
      const shown = await runJson(env, showArgs(accountId, 'test'));
      expect(shown.balance).toBe(1_000_000);
    });
  });
});

function grantArgs(accountId: string, environment: string, amount: string) {
  return ['points', 'grant', '--account', accountId, '--env', environment, '--amount', amount];
}

function showArgs(accountId: string, environment: string) {
  return ['points', 'show', '--account', accountId, '--env', environment];
}

function keyArgs(accountId: string, environment: string) {
  return ['key', 'create', '--account', accountId, '--env', environment];
}

// These run on embedded databases whatever the mode: DATABASE_URL and REDIS_URL are never
// passed to the child processes here.
describe('serve on a new embedded database', () => {
  let dataDir: string;
  let port: number;
  let server: Server | undefined;
  let sandbox: { accountId: string; key: string };

  beforeAll(async () => {
    dataDir = temporaryDataDir();
    port = await freePort();
  });
  afterAll(() => {
    killServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a sandbox test key and a curl line on the first start', async () => {
    server = startServer({ DATA_DIR: dataDir }, port);
    const running = server;
    await waitFor('the curl line', () => {
      failIfExited(running);
      return /curl .*\n/.test(running.stdout());
    }, SERVER_START_TIMEOUT_MS);
    const stdout = server.stdout();
    const key = /test key:\s+(test_\S+)/.exec(stdout)?.[1];
    const accountId = /account id:\s+(acc_\S+)/.exec(stdout)?.[1];
    expect(key).toMatch(KEY_PATTERN('test'));
    expect(accountId).toMatch(ACCOUNT_ID_PATTERN);
    sandbox = { accountId: accountId!, key: key! };
    const curl = /curl -H "Authorization: (Basic [A-Za-z0-9+/=]+)" (\S+)/.exec(stdout);
    expect(curl?.[1]).toBe(basicAuth(sandbox.key));
    expect(curl?.[2]).toBe(`http://localhost:${port}/v1/points`);
  }, SERVE_TEST_TIMEOUT_MS);

  it('answers GET /v1/points with 200 for the printed key', async () => {
    await waitUntilReady(server!);
    const response = await getPoints(server!, basicAuth(sandbox.key));
    expect(response).toEqual({
      status: 200,
      body: { balance: 1_000_000, reserved: 0, available: 1_000_000 },
    });
  });

  it('lets the CLI grant points through the running server\'s socket', async () => {
    const args = grantArgs(sandbox.accountId, 'test', '500');
    const printed = await runJson({ DATA_DIR: dataDir }, args);
    expect(printed.balance).toBe(1_000_500);
    const response = await getPoints(server!, basicAuth(sandbox.key));
    expect(response.body).toEqual({ balance: 1_000_500, reserved: 0, available: 1_000_500 });
  });

  it('exits 0 on SIGTERM', async () => {
    expect(await stopServer(server!)).toBe(0);
  }, SERVE_TEST_TIMEOUT_MS);

  it('prints no key on a restart and keeps the account, key and balance', async () => {
    server = startServer({ DATA_DIR: dataDir }, port);
    await waitUntilReady(server);
    const response = await getPoints(server, basicAuth(sandbox.key));
    expect(response).toEqual({
      status: 200,
      body: { balance: 1_000_500, reserved: 0, available: 1_000_500 },
    });
    const shown = await runJson({ DATA_DIR: dataDir }, showArgs(sandbox.accountId, 'test'));
    expect(shown.balance).toBe(1_000_500);
    expect(await stopServer(server)).toBe(0);
    expect(server.stdout()).not.toContain('test_');
  }, SERVE_TEST_TIMEOUT_MS);

  it('prints no key when the CLI created the database before the first start', async () => {
    const otherDataDir = temporaryDataDir();
    try {
      const migrated = await runCli({ DATA_DIR: otherDataDir }, ['migrate']);
      expect(migrated).toEqual({ code: 0, stdout: 'migrations applied\n', stderr: '' });
      server = startServer({ DATA_DIR: otherDataDir }, port);
      await waitUntilReady(server);
      expect(await stopServer(server)).toBe(0);
      expect(server.stdout()).not.toContain('test_');
    } finally {
      killServer(server);
      rmSync(otherDataDir, { recursive: true, force: true });
    }
  }, SERVE_TEST_TIMEOUT_MS);
});

describe.runIf(usingPostgres)('serve on PostgreSQL', () => {
  let database: TestDatabase;
  let port: number;
  let server: Server | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    port = await freePort();
  });
  afterAll(async () => {
    killServer(server);
    await database?.drop();
  });

  it('never prints a key, and data survives a restart', async () => {
    const env = { ...database.env, REDIS_URL: process.env.REDIS_URL };
    server = startServer(env, port);
    await waitUntilReady(server);
    const account = await runJson(env, ['account', 'create', '--name', 'Postgres']);
    const keys = account.keys as Record<string, string>;
    await runJson(env, grantArgs(String(account.accountId), 'live', '700'));
    const before = await getPoints(server, basicAuth(keys.live!));
    expect(before).toEqual({ status: 200, body: { balance: 700, reserved: 0, available: 700 } });
    expect(await stopServer(server)).toBe(0);
    expect(server.stdout()).not.toContain('test_');

    server = startServer(env, port);
    await waitUntilReady(server);
    expect(await getPoints(server, basicAuth(keys.live!))).toEqual(before);
    expect(await stopServer(server)).toBe(0);
    expect(server.stdout()).not.toContain('test_');
  }, SERVE_TEST_TIMEOUT_MS);
});
