// `etax serve`, tested black-box as an operator runs it. The first start of a new embedded
// database prints a sandbox key once, the CLI reaches the running server's socket, SIGTERM exits
// 0, and a restart prints no key and keeps the data. These run on embedded databases of their
// own whatever the mode. With DATABASE_URL, serve never prints a key and data survives restarts
// on PostgreSQL too. Several processes and first starts: the integration project runs this file.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runEtax as runCli, runEtaxJson as runJson, type CliSettings as Env }
  from '../helpers/cli.ts';
import {
  createTestDatabase,
  temporaryDataDir as newDataDir,
  usingPostgres,
  type TestDatabase,
} from '../helpers/database.ts';
import { basicAuth } from '../helpers/http.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  freePort,
  hasExited,
  startServerProcess,
  stopServerProcess,
  waitUntilReady as waitUntilProcessReady,
  type ServerProcess,
} from '../helpers/server-process.ts';

// A server must answer /readyz, or print its first-start lines, within this long.
const SERVER_START_TIMEOUT_MS = 60_000;
// serve gives in-flight work 25 s before it gives up; a clean stop is much faster than this.
const SERVER_STOP_TIMEOUT_MS = 30_000;
const POLL_INTERVAL_MS = 100;
// /readyz and the output are polled every POLL_INTERVAL_MS for SERVER_START_TIMEOUT_MS.
const READY_ATTEMPTS_MAX = SERVER_START_TIMEOUT_MS / POLL_INTERVAL_MS;
const SERVE_TEST_TIMEOUT_MS = 150_000;

const KEY_PATTERN = (environment: 'test' | 'live') =>
  new RegExp(`^${environment}_[A-Za-z0-9_-]{43}$`);
const ACCOUNT_ID_PATTERN = /^acc_[A-Za-z0-9_-]+$/;

function temporaryDataDir(): string {
  // Short: the embedded socket DATA_DIR/.s.PGSQL.5432 must fit the 107-byte Unix path limit.
  return newDataDir('etxc-');
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

async function getPoints(server: Server, authorization: string) {
  const response = await fetch(`${server.baseUrl}/v1/points`, { headers: { authorization } });
  return { status: response.status, body: await response.json() as unknown };
}

function grantArgs(accountId: string, environment: string, amount: string) {
  return ['points', 'grant', '--account', accountId, '--env', environment, '--amount', amount];
}

function showArgs(accountId: string, environment: string) {
  return ['points', 'show', '--account', accountId, '--env', environment];
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
    const printed = await pollUntil(async () => {
      failIfExited(running);
      return /curl .*\n/.test(running.stdout());
    }, (found) => found, { attemptsMax: READY_ATTEMPTS_MAX, intervalMs: POLL_INTERVAL_MS });
    expect(printed, 'the curl line').toBe(true);
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

  it('names every live service it cannot reach, in one line at start and in /readyz', async () => {
    await waitUntilReady(server!);
    const lines = server!.stdout().split('\n')
      .filter((line) => line.includes('liveServicesNotConfigured'));
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0]!) as { level: number; msg: string;
      liveServicesNotConfigured: string[] };
    expect(logged.level).toBe(40);
    const ready = await (await fetch(`${server!.baseUrl}/readyz`)).json() as
      { liveServices: { notConfigured: Array<{ service: string; setting: string }> } };
    const notConfigured = ready.liveServices.notConfigured;
    expect(notConfigured.map(({ service }) => service)).toEqual(logged.liveServicesNotConfigured);
    expect(notConfigured.map(({ setting }) => setting)).toEqual(['TAX_AUTHORITY_SERVICE_KEY',
      'BANK_GATEWAY_URL', 'TAX_INVOICE_GATEWAY_URL', 'TAX_PORTAL_GATEWAY_URL',
      'BANK_ACCOUNT_GATEWAY_URL', 'DOCUMENTS_CIVIL_GATEWAY_URL', 'DOCUMENTS_REGISTRY_GATEWAY_URL',
      'CASH_RECEIPT_GATEWAY_URL']);
    for (const { setting } of notConfigured) expect(logged.msg).toContain(setting);
  });

  it('signs the printed owner in to the dashboard at the printed address', async () => {
    const stdout = server!.stdout();
    expect(stdout).toContain(`Sign in to the dashboard at http://localhost:${port}/dashboard`);
    const email = /email:\s+(\S+)/.exec(stdout)?.[1];
    const password = /password:\s+(\S+)/.exec(stdout)?.[1];
    expect(email).toBe('owner@sandbox.etax.test');
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const base = `http://127.0.0.1:${port}`;
    const form = await fetch(`${base}/dashboard/sign-in`);
    const cookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const signedIn = await fetch(`${base}/dashboard/sign-in`, { method: 'POST', redirect: 'manual',
      headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email: email!, password: password! }) });
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const home = await fetch(`${base}/dashboard`, { headers: { cookie: session } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Sandbox');
  }, SERVE_TEST_TIMEOUT_MS);

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
    expect(server.stdout()).not.toContain('password');
  }, SERVE_TEST_TIMEOUT_MS);

  it('exits 0 on a SIGTERM sent as soon as it answers on a first start, whatever it was ' +
    'still doing', async () => {
    const otherDataDir = temporaryDataDir();
    try {
      server = startServer({ DATA_DIR: otherDataDir }, port);
      await waitUntilReady(server);
      expect(await stopServer(server)).toBe(0);
    } finally {
      killServer(server);
      rmSync(otherDataDir, { recursive: true, force: true });
    }
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
