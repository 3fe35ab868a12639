// A start against a PostgreSQL that does not answer, tested black-box: `etax serve` and a CLI
// command retry with backoff for DATABASE_CONNECT_TIMEOUT_SECONDS, logging each retry at warn
// with the host but never the password, then exit 2 with one `etax:` line and no stack. A
// database that comes up within the time is waited for: the server starts and gets ready.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runEtax } from '../helpers/cli.ts';
import { createCuttableProxy, proxiedUrl, targetOf } from '../helpers/cuttable-proxy.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  freePort,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
} from '../helpers/server-process.ts';

const PASSWORD = 'unreachable-Secret-42';
const TEST_TIMEOUT_MS = 120_000;
const RETRY_LOGGED = '"msg":"database unreachable; retrying"';

type Exited = { code: number | null; stdout: string; stderr: string };

function serveUntilExit(env: NodeJS.ProcessEnv): Promise<Exited> {
  return freePort().then((port) => new Promise((resolve) => {
    const server = startServerProcess({ port, env });
    let stdout = '';
    let stderr = '';
    server.child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
    server.child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    server.child.once('close', (code) => resolve({ code, stdout, stderr }));
  }));
}

function expectOneEtaxLine(stderr: string, address: string) {
  const lines = stderr.split('\n').filter((line) => line !== '');
  expect(lines).toEqual([`etax: cannot reach the database at ${address} (ECONNREFUSED) ` +
    'within 1 s (DATABASE_CONNECT_TIMEOUT_SECONDS); check DATABASE_URL and that PostgreSQL is ' +
    'running']);
}

describe('a start while PostgreSQL cannot be reached', () => {
  let port: number;
  let settings: Record<string, string>;

  beforeAll(async () => {
    // Nobody listens on it: every connection is refused.
    port = await freePort();
    settings = {
      DATABASE_URL: `postgres://etax:${PASSWORD}@127.0.0.1:${port}/etax`,
      DATABASE_CONNECT_TIMEOUT_SECONDS: '1',
    };
  });

  it('retries at warn, then `etax serve` exits 2 with one line naming the host', async () => {
    const exited = await serveUntilExit(cliEnv(settings));
    expect(exited.code).toBe(2);
    expectOneEtaxLine(exited.stderr, `127.0.0.1:${port}`);
    const logs = exited.stdout.split('\n').filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logs.length).toBeGreaterThanOrEqual(2);
    for (const line of logs) {
      expect(line).toMatchObject({ level: 40, msg: 'database unreachable; retrying',
        database: `127.0.0.1:${port}`, reason: 'ECONNREFUSED' });
    }
    expect(exited.stdout + exited.stderr).not.toContain(PASSWORD);
  }, TEST_TIMEOUT_MS);

  it('makes a CLI command exit 2 the same way', async () => {
    const result = await runEtax({ ...settings, LOG_LEVEL: 'error' }, ['migrate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expectOneEtaxLine(result.stderr, `127.0.0.1:${port}`);
    expect(result.stderr).not.toContain(PASSWORD);
  }, TEST_TIMEOUT_MS);
});

describe.runIf(usingPostgres)('a start before PostgreSQL is up', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('waits for it and gets ready', async () => {
    const proxyPort = await freePort();
    const proxy = createCuttableProxy(targetOf(database.env.DATABASE_URL!), { port: proxyPort });
    const server = startServerProcess({ port: await freePort(), env: cliEnv({
      ...database.env,
      DATABASE_URL: proxiedUrl(database.env.DATABASE_URL!, proxyPort),
      DATABASE_CONNECT_TIMEOUT_SECONDS: '60',
      LOG_LEVEL: 'warn',
    }) });
    try {
      // The database comes up once the server has found it away.
      const retried = await pollUntil(async () => server.output().includes(RETRY_LOGGED),
        Boolean, { attemptsMax: 600, intervalMs: 100 });
      expect(retried, server.output()).toBe(true);
      await proxy.open();
      await waitUntilReady(server, { attemptsMax: 600, pollIntervalMs: 100 });
      expect(await stopServerProcess(server, { exitWaitMs: 30_000 })).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
      await proxy.cut();
    }
  }, TEST_TIMEOUT_MS);
});
