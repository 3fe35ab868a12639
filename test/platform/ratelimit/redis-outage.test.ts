// When Redis hangs or dies the rate limiter counts in memory after the first failed command,
// logs the loss once, goes back to Redis when it answers again (logging that once), and hands
// the counts it made in memory to Redis (docs/limits.md, "When Redis is unreachable"). Method: a
// limiter on a redis-server of the test's own, which the test pauses (SIGSTOP), resumes, kills
// and starts again, while a second client reads the counters in Redis.
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter, type RateLimiter } from '../../../src/platform/ratelimit/limiter.ts';
import {
  REDIS_COMMAND_TIMEOUT_MS,
} from '../../../src/platform/ratelimit/redis-connection.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { startPrivateRedis, type PrivateRedis } from '../../helpers/redis-server.ts';
import { freePort } from '../../helpers/server-process.ts';

const OPERATION = 'points.retrieve';
const LIMIT = 1_000;
// Under half a command timeout: a call that waited for Redis to time out cannot be this fast,
// while a call counted in memory takes well under a millisecond, with room for a loaded machine.
const FROM_MEMORY_MS_MAX = REDIS_COMMAND_TIMEOUT_MS / 2;
// One command timeout, counted by the limiter from the moment the call asks Redis, and then a
// call counted in memory: the bound the docs give.
const ONE_TIMEOUT_MS_MAX = REDIS_COMMAND_TIMEOUT_MS + FROM_MEMORY_MS_MAX;
const CALLS_WHILE_DOWN = 20;
const LOSS_MESSAGE = /^Redis does not answer/;
const RETURN_MESSAGE = /^Redis answers again/;

type LogLine = { level: number; msg: string; reason?: string };
const WARN = 40;
const INFO = 30;

// A limiter whose log lines the test reads.
function limiterOn(redisUrl: string, limit = LIMIT) {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as LogLine);
      done();
    },
  });
  const limiter = createRateLimiter({
    redisUrl,
    policies: { [OPERATION]: { limit, windowSeconds: 60 } },
    log: pino({ level: 'info' }, destination),
  });
  return { limiter, lines };
}

// Drives the hook without Fastify: just the fields it reads and writes. Returns the status
// and how long the call took.
async function call(limiter: RateLimiter, keyId: string) {
  let statusCode = 200;
  const reply = {
    header: () => reply,
    code(code: number) {
      statusCode = code;
      return reply;
    },
    type: () => reply,
    send: () => reply,
  };
  const request = {
    id: 'trace',
    headers: {},
    routeOptions: { config: { operation: OPERATION } },
    auth: { keyId, accountId: 'acc', environment: 'test', plan: 'FREE' },
  };
  const startedAt = performance.now();
  await limiter.hook(request as unknown as FastifyRequest, reply as unknown as FastifyReply);
  return { statusCode, ms: performance.now() - startedAt };
}

const newKeyId = () => `key-${randomBytes(6).toString('hex')}`;
const counterOf = (keyId: string) => `etax:rl:${OPERATION}:${keyId}`;

describe('rate limits while Redis does not answer', () => {
  let redis: PrivateRedis;
  let reader: Redis;
  let limiter: RateLimiter | null = null;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    reader = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    reader.on('error', () => {});
  });
  afterEach(async () => {
    redis.resume();
    await limiter?.close();
    limiter = null;
  });
  afterAll(async () => {
    reader?.disconnect();
    await redis?.stop();
  });

  // The counter of keyId in Redis, read by the second client, as a number (0 when absent).
  async function redisCount(keyId: string): Promise<number> {
    return Number((await reader.get(counterOf(keyId))) ?? 0);
  }

  async function waitUntilRedisHas(keyId: string, count: number) {
    expect(await pollUntil(() => redisCount(keyId), (value) => value === count)).toBe(count);
  }

  // A limiter counts in memory until its connection is ready; a call that reaches Redis shows
  // that it counts there.
  async function startCountingInRedis(keyId: string, calls: number) {
    const created = limiterOn(redis.url);
    limiter = created.limiter;
    const warmUpKeyId = newKeyId();
    await pollUntil(async () => {
      await call(created.limiter, warmUpKeyId);
      return reader.exists(counterOf(warmUpKeyId));
    }, (exists) => exists === 1);
    for (let index = 0; index < calls; index += 1) {
      expect((await call(created.limiter, keyId)).statusCode).toBe(200);
    }
    expect(await redisCount(keyId)).toBe(calls);
    return created;
  }

  it('answers from memory after one command timeout while Redis is paused, logs it once, and ' +
    'hands the counts to Redis after it resumes, logging that once', async () => {
    const keyId = newKeyId();
    const { limiter: paused, lines } = await startCountingInRedis(keyId, 3);

    redis.pause();
    const first = await call(paused, keyId);
    const rest = [];
    for (let index = 1; index < CALLS_WHILE_DOWN; index += 1) rest.push(await call(paused, keyId));
    expect(first.statusCode).toBe(200);
    expect(first.ms).toBeGreaterThanOrEqual(REDIS_COMMAND_TIMEOUT_MS - 5);
    expect(first.ms).toBeLessThan(ONE_TIMEOUT_MS_MAX);
    expect(rest.map((result) => result.statusCode)).toEqual(rest.map(() => 200));
    expect(Math.max(...rest.map((result) => result.ms))).toBeLessThan(FROM_MEMORY_MS_MAX);
    const losses = lines.filter((line) => LOSS_MESSAGE.test(line.msg));
    expect(losses).toEqual([expect.objectContaining({ level: WARN,
      reason: `Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms` })]);

    redis.resume();
    // 3 counted before the pause, every call made meanwhile, and the first of those once more:
    // its command was waiting in the paused Redis, which carried it out on resuming.
    await waitUntilRedisHas(keyId, 3 + CALLS_WHILE_DOWN + 1);
    expect((await call(paused, keyId)).statusCode).toBe(200);
    expect(await redisCount(keyId)).toBe(3 + CALLS_WHILE_DOWN + 2);
    expect(lines.filter((line) => LOSS_MESSAGE.test(line.msg))).toHaveLength(1);
    const returns = lines.filter((line) => RETURN_MESSAGE.test(line.msg));
    expect(returns).toEqual([expect.objectContaining({ level: INFO })]);
  });

  it('answers from memory at once while Redis is killed and goes back to Redis, with the ' +
    'counts made meanwhile, once it is started again', async () => {
    const keyId = newKeyId();
    const { limiter: orphaned, lines } = await startCountingInRedis(keyId, 2);
    // What the operator's health page shows, through each phase.
    expect(orphaned.countingIn()).toBe('redis');

    await redis.kill();
    const results = [];
    for (let index = 0; index < CALLS_WHILE_DOWN; index += 1) {
      results.push(await call(orphaned, keyId));
    }
    expect(results.map((result) => result.statusCode)).toEqual(results.map(() => 200));
    expect(Math.max(...results.map((result) => result.ms))).toBeLessThan(FROM_MEMORY_MS_MAX);
    expect(lines.filter((line) => LOSS_MESSAGE.test(line.msg)))
      .toEqual([expect.objectContaining({ level: WARN })]);
    expect(orphaned.countingIn()).toBe('memoryFallback');

    await redis.restart();
    // The killed Redis lost the 2 counted before; the calls counted in memory come back.
    await waitUntilRedisHas(keyId, CALLS_WHILE_DOWN);
    expect((await call(orphaned, keyId)).statusCode).toBe(200);
    expect(await redisCount(keyId)).toBe(CALLS_WHILE_DOWN + 1);
    expect(orphaned.countingIn()).toBe('redis');
    expect(lines.filter((line) => RETURN_MESSAGE.test(line.msg)))
      .toEqual([expect.objectContaining({ level: INFO })]);
    expect(lines.filter((line) => LOSS_MESSAGE.test(line.msg))).toHaveLength(1);
  });

  it('keeps the limit in memory, and a key that spent it in memory stays refused in Redis',
    async () => {
      const keyId = newKeyId();
      const created = limiterOn(redis.url, 3);
      limiter = created.limiter;
      await pollUntil(() => reader.ping().then(() => true, () => false), Boolean);
      await redis.kill();
      const whileDown = [];
      for (let index = 0; index < 4; index += 1) {
        whileDown.push((await call(created.limiter, keyId)).statusCode);
      }
      expect(whileDown).toEqual([200, 200, 200, 429]);

      await redis.restart();
      await waitUntilRedisHas(keyId, 4);
      expect((await call(created.limiter, keyId)).statusCode).toBe(429);
    });

  it('starts the memory counter of a key from what Redis counted: a fallback is no new window',
    async () => {
      const keyId = newKeyId();
      const created = limiterOn(redis.url, 5);
      limiter = created.limiter;
      const warmUpKeyId = newKeyId();
      await pollUntil(async () => {
        await call(created.limiter, warmUpKeyId);
        return reader.exists(counterOf(warmUpKeyId));
      }, (exists) => exists === 1);
      for (let index = 0; index < 4; index += 1) {
        expect((await call(created.limiter, keyId)).statusCode).toBe(200);
      }
      await redis.kill();
      const whileDown = [];
      for (let index = 0; index < 3; index += 1) {
        whileDown.push((await call(created.limiter, keyId)).statusCode);
      }
      expect(whileDown).toEqual([200, 429, 429]);

      await redis.restart();
      // The killed Redis lost its 4; memory hands back only the one call it let through (the
      // refused ones are counted too, as in Redis), not the 4 it started from.
      await waitUntilRedisHas(keyId, 3);
    });

  it('counts in memory when Redis is not there at the start, and says so once', async () => {
    const nobodyListens = `redis://127.0.0.1:${await freePort()}`;
    const created = limiterOn(nobodyListens, 3);
    limiter = created.limiter;
    await pollUntil(async () => created.lines.length, (count) => count > 0);
    const keyId = newKeyId();
    const results = [];
    for (let index = 0; index < 4; index += 1) results.push(await call(created.limiter, keyId));
    expect(results.map((result) => result.statusCode)).toEqual([200, 200, 200, 429]);
    expect(Math.max(...results.map((result) => result.ms))).toBeLessThan(FROM_MEMORY_MS_MAX);
    expect(created.lines).toEqual([
      expect.objectContaining({ level: WARN, msg: expect.stringMatching(LOSS_MESSAGE) }),
    ]);
  });

  it('answers from memory when Redis accepts the connection and never says a word', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const created = limiterOn(`redis://127.0.0.1:${port}`, 3);
      limiter = created.limiter;
      await pollUntil(async () => sockets.size, (count) => count > 0);
      const keyId = newKeyId();
      const results = [];
      for (let index = 0; index < 4; index += 1) results.push(await call(created.limiter, keyId));
      expect(results.map((result) => result.statusCode)).toEqual([200, 200, 200, 429]);
      expect(Math.max(...results.map((result) => result.ms))).toBeLessThan(FROM_MEMORY_MS_MAX);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
