// Two `etax serve` processes keep answering GET /v1/points at their usual speed while their
// Redis hangs or dies, and go back to one shared counter when it returns, with every call made
// meanwhile counted (docs/limits.md, "When Redis is unreachable"). Method: both processes share
// one PostgreSQL database and a redis-server of the test's own; a few concurrent clients call
// them in turn while the test pauses Redis (SIGSTOP), resumes it, kills it and starts it again.
// Latency is measured per call, and the calls after each process's first timeout (its warn log
// line) must stay within a bound far below the command timeout; the measured figures are
// printed. A second client reads the counters in Redis.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/platform/accounts/keys.ts';
import { findActiveKeyByHash } from '../../src/platform/accounts/store.ts';
import { REDIS_COMMAND_TIMEOUT_MS } from '../../src/platform/ratelimit/redis-connection.ts';
import { basicAuth } from '../helpers/app.ts';
import { startCluster, type Cluster } from '../helpers/cluster.ts';
import { usingPostgres } from '../helpers/database.ts';
import { pollUntil } from '../helpers/poll.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis-server.ts';

// High enough that the load never meets it: every call must be answered 200.
const POINTS_LIMIT = 1_000_000;
const RATE_LIMIT_OVERRIDES = JSON.stringify({
  'points.retrieve': { limit: POINTS_LIMIT, windowSeconds: 600 },
});
// Clients calling at once, alternating between the two processes.
const CLIENTS = 4;
const PHASE_MS = 2_500;
// Calls that let both processes compile their routes and cache the keys before any is measured.
const WARM_UP_MS = 1_000;
// The p99 of the calls after a process's first timeout stays under this, generous for a loaded
// CI machine and half the command timeout, so no call counted there waited for Redis. On a
// machine so loaded that the healthy phase's own p99 is above it, the bound is that p99 plus
// LOAD_MARGIN_MS instead: the load slows both phases alike, and a call that waited for Redis
// would still stand out by the whole command timeout.
const P99_MS_MAX = 100;
const LOAD_MARGIN_MS = 50;
const LOSS_MESSAGE = /^Redis does not answer/;
const RETURN_MESSAGE = /^Redis answers again/;

type Call = { server: number; startedAt: number; ms: number; status: number };
type LogLine = { time: number; msg: string };

let cluster: Cluster | null = null;
let redis: PrivateRedis | null = null;
let reader: Redis | null = null;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? NaN;
}

function summary(calls: Call[]): string {
  const ms = calls.map((call) => call.ms);
  return `${calls.length} calls, p50 ${percentile(ms, 0.5).toFixed(1)} ms, ` +
    `p99 ${percentile(ms, 0.99).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`;
}

// The rate limiter's log lines of the process at index.
function limiterLines(server: number, message: RegExp): LogLine[] {
  return cluster!.servers[server]!.output().split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => message.test(line.msg));
}

async function getPoints(server: number, apiKey: string) {
  const response = await fetch(`${cluster!.servers[server]!.baseUrl}/v1/points`, {
    headers: { authorization: basicAuth(apiKey) },
  });
  await response.arrayBuffer();
  return response;
}

// CLIENTS clients call the two processes in turn for durationMs with one key.
async function load(apiKey: string, durationMs: number): Promise<Call[]> {
  const calls: Call[] = [];
  const endAt = Date.now() + durationMs;
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    for (let turn = client; Date.now() < endAt; turn += 1) {
      const server = turn % 2;
      const startedAt = Date.now();
      const before = performance.now();
      const response = await getPoints(server, apiKey);
      calls.push({ server, startedAt, ms: performance.now() - before, status: response.status });
    }
  }));
  return calls;
}

async function redisCount(apiKey: string): Promise<number> {
  const key = await findActiveKeyByHash(cluster!.assertions.db, hashApiKey(apiKey));
  return Number((await reader!.get(`etax:rl:points.retrieve:${key!.keyId}`)) ?? 0);
}

async function waitForLines(message: RegExp, count: number) {
  const counts = await pollUntil(async () => [0, 1].map((server) =>
    limiterLines(server, message).length), (seen) => seen.every((value) => value >= count));
  expect(counts).toEqual([count, count]);
}

const remainingOf = (response: Response) =>
  Number(/;r=(\d+);/.exec(response.headers.get('ratelimit') ?? '')?.[1]);

describe.skipIf(!usingPostgres)(
  'rate limits of two processes while their Redis hangs or dies (needs DATABASE_URL: ' +
  'two processes share one PostgreSQL)', () => {
  beforeAll(async () => {
    redis = await startPrivateRedis();
    reader = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    reader.on('error', () => {});
    cluster = await startCluster({
      count: 2,
      env: { REDIS_URL: redis.url, RATE_LIMIT_OVERRIDES, LOG_LEVEL: 'info' },
      argsFor: () => ['--no-workers'],
    });
  });

  afterAll(async () => {
    redis?.resume();
    reader?.disconnect();
    const codes = await cluster?.stop();
    await redis?.stop();
    expect(codes).toEqual([0, 0]);
  });

  it('answers every call at its usual speed through a pause and a kill of Redis, and counts ' +
    'every call in Redis again afterwards', async () => {
    const healthyKey = (await cluster!.createAccount()).keys.test;
    const pausedKey = (await cluster!.createAccount()).keys.test;
    const killedKey = (await cluster!.createAccount()).keys.test;
    const sharedKey = (await cluster!.createAccount()).keys.test;

    const warmUp = await load(healthyKey, WARM_UP_MS);
    const healthy = await load(healthyKey, PHASE_MS);
    expect([...warmUp, ...healthy].filter((call) => call.status !== 200)).toEqual([]);
    expect(await redisCount(healthyKey)).toBe(warmUp.length + healthy.length);
    const p99Bound = Math.max(P99_MS_MAX, percentile(healthy.map((call) => call.ms), 0.99) +
      LOAD_MARGIN_MS);

    redis!.pause();
    const paused = await load(pausedKey, PHASE_MS);
    expect(paused.filter((call) => call.status !== 200)).toEqual([]);
    await waitForLines(LOSS_MESSAGE, 1);
    const trippedAt = [0, 1].map((server) => limiterLines(server, LOSS_MESSAGE)[0]?.time ?? NaN);
    const afterTimeout = paused.filter((call) => call.startedAt > trippedAt[call.server]!);
    const waitedForRedis = paused.filter((call) => call.ms >= REDIS_COMMAND_TIMEOUT_MS);
    console.log(`GET /v1/points, Redis healthy: ${summary(healthy)}`);
    console.log(`GET /v1/points, Redis paused, after each process's first timeout: ` +
      `${summary(afterTimeout)}; ${waitedForRedis.length} calls waited a command timeout`);
    expect(afterTimeout.length).toBeGreaterThan(paused.length / 2);
    expect(percentile(afterTimeout.map((call) => call.ms), 0.99)).toBeLessThan(p99Bound);

    redis!.resume();
    await waitForLines(RETURN_MESSAGE, 1);
    // Every call made while paused reaches Redis, those that timed out possibly twice (the
    // resumed Redis carried out their commands too).
    const pausedCount = await pollUntil(() => redisCount(pausedKey),
      (count) => count >= paused.length);
    expect(pausedCount).toBeGreaterThanOrEqual(paused.length);
    expect(pausedCount).toBeLessThanOrEqual(paused.length + waitedForRedis.length);

    await redis!.kill();
    const killed = await load(killedKey, PHASE_MS);
    console.log(`GET /v1/points, Redis killed: ${summary(killed)}`);
    expect(killed.filter((call) => call.status !== 200)).toEqual([]);
    expect(percentile(killed.map((call) => call.ms), 0.99)).toBeLessThan(p99Bound);
    await waitForLines(LOSS_MESSAGE, 2);

    await redis!.restart();
    await waitForLines(RETURN_MESSAGE, 2);
    // The new Redis starts empty; the calls both processes counted in memory all reach it.
    expect(await pollUntil(() => redisCount(killedKey), (count) => count === killed.length))
      .toBe(killed.length);
    expect(remainingOf(await getPoints(0, killedKey))).toBe(POINTS_LIMIT - killed.length - 1);

    // One counter again: it goes down by one per call, whichever process answers.
    const remaining = [];
    for (let turn = 0; turn < 6; turn += 1) {
      remaining.push(remainingOf(await getPoints(turn % 2, sharedKey)));
    }
    expect(remaining).toEqual(remaining.map((_, turn) => POINTS_LIMIT - 1 - turn));
  });
});
