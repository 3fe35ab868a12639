// With REDIS_URL set, a key's rate limit holds across server processes (DESIGN.md § Rate
// limits). Method: two real `etax serve` processes share one fresh PostgreSQL database and one
// Redis, with GET /v1/points limited to 20 calls a minute; calls alternate between them, and the
// 21st is refused by both. The counter is keyed by the API key's id, which is new on every run,
// so runs against the same Redis never collide.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import {
  freePorts,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../helpers/server-process.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'bin/etax.js');
const POINTS_LIMIT = 20;
const RATE_LIMIT_OVERRIDES = JSON.stringify({
  'points.retrieve': { limit: POINTS_LIMIT, windowSeconds: 60 },
});
// Bounds the wait for both servers to become ready: 240 × 250 ms.
const READY_ATTEMPTS_MAX = 240;
const READY_POLL_INTERVAL_MS = 250;
// Above the server's own shutdown timeout (25 s), so a slow but orderly exit is still seen.
const EXIT_WAIT_MS = 30_000;
const CLI_TIMEOUT_MS = 60_000;

const runFile = promisify(execFile);
const enabled = Boolean(process.env.REDIS_URL && process.env.DATABASE_URL);

let database: TestDatabase | null = null;
let servers: ServerProcess[] = [];
let apiKey = '';

function serverEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...database!.env,
    REDIS_URL: process.env.REDIS_URL,
    RATE_LIMIT_OVERRIDES,
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
  };
}

async function runCli(args: string[]): Promise<string> {
  const { stdout } = await runFile(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: serverEnv(),
    timeout: CLI_TIMEOUT_MS,
  });
  return stdout;
}

function getPoints(server: ServerProcess) {
  return fetch(`${server.baseUrl}/v1/points`, { headers: { authorization: basicAuth(apiKey) } });
}

describe.skipIf(!enabled)('rate limits across server processes', () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    await runCli(['migrate']);
    const account = JSON.parse(await runCli(['account', 'create', '--name', 'X', '--json'])) as {
      keys: { test: string };
    };
    apiKey = account.keys.test;
    const ports = await freePorts(2);
    servers = ports.map((port) => startServerProcess({ port, env: serverEnv() }));
    const ready = { attemptsMax: READY_ATTEMPTS_MAX, pollIntervalMs: READY_POLL_INTERVAL_MS };
    await Promise.all(servers.map((server) => waitUntilReady(server, ready)));
  });

  afterAll(async () => {
    const codes = await Promise.all(servers.map((server) =>
      stopServerProcess(server, { exitWaitMs: EXIT_WAIT_MS })));
    await database?.drop();
    expect(codes).toEqual(servers.map(() => 0));
  });

  it('returns 200 to 20 calls alternating between two processes, then 429 from both', async () => {
    const remaining: number[] = [];
    for (let callIndex = 0; callIndex < POINTS_LIMIT; callIndex += 1) {
      const response = await getPoints(servers[callIndex % 2]!);
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy'))
        .toBe(`"points.retrieve";q=${POINTS_LIMIT};w=60`);
      remaining.push(Number(/;r=(\d+);/.exec(response.headers.get('ratelimit') ?? '')?.[1]));
      await response.arrayBuffer();
    }
    // One counter for both processes: it goes down by one per call whichever process answers.
    expect(remaining).toEqual(Array.from({ length: POINTS_LIMIT }, (_, i) => POINTS_LIMIT - 1 - i));

    for (const server of servers) {
      const response = await getPoints(server);
      expect(response.status).toBe(429);
      const retryAfter = response.headers.get('retry-after') ?? '';
      expect(retryAfter).toMatch(/^[0-9]+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(((await response.json()) as { code: string }).code).toBe('RATE_LIMITED');
    }
  });
});
