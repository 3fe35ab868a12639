// Rate limits hold per API key and per operation (docs/limits.md). Method: an
// app whose GET /v1/points allows 300 calls a minute is called until it refuses; the refusal and
// the headers on both sides of the limit are checked, then other keys, other operations and
// unauthenticated calls show what the counter does not include. Unit tests cover the policy
// table and, when REDIS_URL is set, that two limiters share one counter in Redis.
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.ts';
import { errorResponses, PLATFORM_ERRORS } from '../../src/platform/error-responses.ts';
import { createRateLimiter, type RateLimiter } from '../../src/platform/ratelimit/limiter.ts';
import { buildRateLimitPolicies } from '../../src/platform/ratelimit/policies.ts';
import { DEFAULT_RATE_LIMIT } from '../../src/platform/operations.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';

const POINTS_LIMIT = 300;
const RATE_LIMIT_OVERRIDES = JSON.stringify({
  'points.retrieve': { limit: POINTS_LIMIT, windowSeconds: 60 },
});
const POINTS_POLICY = `"points.retrieve";q=${POINTS_LIMIT};w=60`;
// The boot refuses operation names outside the operation table, so the probe borrows the name of
// an operation whose own route this test never calls.
const PROBE_OPERATION = 'issuers.list';

// A second operation under /v1, so the test can show that counters are kept per operation.
const probeRoutes: FastifyPluginAsync = async (app) => {
  app.get('/rate-limit-probe', {
    config: { operation: PROBE_OPERATION },
    schema: { response: { 204: { type: 'null', description: 'Counted.' },
      ...errorResponses(...PLATFORM_ERRORS) } },
  }, async (_request, reply) => reply.code(204).send());
};

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ env: { RATE_LIMIT_OVERRIDES }, extraRoutes: probeRoutes });
});
afterAll(async () => {
  await app?.close();
});

function getPoints(key?: string) {
  const headers = key === undefined ? {} : { authorization: basicAuth(key) };
  return app.server.inject({ method: 'GET', url: '/v1/points', headers });
}

// The `r=` (remaining calls) value of a RateLimit header.
function remainingOf(header: unknown): number {
  const match = /;r=(\d+);t=(\d+)$/.exec(String(header));
  if (!match) throw new Error(`not a RateLimit header: ${String(header)}`);
  return Number(match[1]);
}

// Spends a key's whole window on GET /v1/points and returns the remaining values seen.
async function exhaustPoints(key: string): Promise<number[]> {
  const remaining: number[] = [];
  for (let callIndex = 0; callIndex < POINTS_LIMIT; callIndex += 1) {
    const response = await getPoints(key);
    expect(response.statusCode).toBe(200);
    expect(response.headers['ratelimit-policy']).toBe(POINTS_POLICY);
    remaining.push(remainingOf(response.headers.ratelimit));
  }
  return remaining;
}

describe('GET /v1/points rate limit', () => {
  describe('happy', () => {
    it('returns 200 to 300 calls in a minute, counting the remaining calls down to 0', async () => {
      const account = await app.createAccount();
      const remaining = await exhaustPoints(account.keys.test);
      const expected = Array.from({ length: POINTS_LIMIT }, (_, index) => POINTS_LIMIT - 1 - index);
      expect(remaining).toEqual(expected);
    });

    it('keeps a separate counter for another key of the same account', async () => {
      const account = await app.createAccount();
      await exhaustPoints(account.keys.test);
      expect((await getPoints(account.keys.test)).statusCode).toBe(429);
      const { key: secondTestKey } = await app.platform.accounts.createKey({
        accountId: account.accountId,
        environment: 'test',
      });
      for (const key of [secondTestKey, account.keys.live]) {
        const response = await getPoints(key);
        expect(response.statusCode).toBe(200);
        expect(remainingOf(response.headers.ratelimit)).toBe(POINTS_LIMIT - 1);
      }
    });

    it('keeps a separate counter for another operation of the same key', async () => {
      const account = await app.createAccount();
      await exhaustPoints(account.keys.test);
      expect((await getPoints(account.keys.test)).statusCode).toBe(429);
      const response = await app.server.inject({
        method: 'GET',
        url: '/v1/rate-limit-probe',
        headers: { authorization: basicAuth(account.keys.test) },
      });
      expect(response.statusCode).toBe(204);
      const { limit, windowSeconds } = DEFAULT_RATE_LIMIT;
      expect(response.headers['ratelimit-policy'])
        .toBe(`"${PROBE_OPERATION}";q=${limit};w=${windowSeconds}`);
      expect(remainingOf(response.headers.ratelimit)).toBe(limit - 1);
    });
  });

  describe('errors', () => {
    it('returns 429 RATE_LIMITED with Retry-After and RateLimit headers on the 301st call',
      async () => {
        const account = await app.createAccount();
        await exhaustPoints(account.keys.test);
        const response = await getPoints(account.keys.test);
        expect(response.statusCode).toBe(429);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        const body = response.json();
        expect(Object.keys(body).sort()).toEqual(['code', 'message', 'traceId']);
        expect(body.code).toBe('RATE_LIMITED');
        expect(body.message).toEqual(expect.any(String));
        expect(body.traceId).toBe(response.headers['trace-id']);
        const retryAfter = String(response.headers['retry-after']);
        expect(retryAfter).toMatch(/^[0-9]+$/);
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(retryAfter)).toBeLessThanOrEqual(60);
        expect(response.headers['ratelimit-policy']).toBe(POINTS_POLICY);
        expect(remainingOf(response.headers.ratelimit)).toBe(0);
      });

    it('keeps refusing with 429 and never returns the balance once the limit is reached',
      async () => {
        const account = await app.createAccount();
        await exhaustPoints(account.keys.test);
        for (let callIndex = 0; callIndex < 3; callIndex += 1) {
          const response = await getPoints(account.keys.test);
          expect(response.statusCode).toBe(429);
          expect(response.json()).not.toHaveProperty('balance');
        }
      });
  });

  describe('security', () => {
    it('returns 401 with no rate-limit headers to unauthenticated calls and does not count them',
      async () => {
        const account = await app.createAccount();
        const unknownKey = `${account.keys.test.slice(0, -4)}0000`;
        for (const key of [undefined, unknownKey, undefined, unknownKey]) {
          const response = await getPoints(key);
          expect(response.statusCode).toBe(401);
          expect(response.body).toBe('');
          expect(response.headers).not.toHaveProperty('ratelimit');
          expect(response.headers).not.toHaveProperty('ratelimit-policy');
        }
        const response = await getPoints(account.keys.test);
        expect(response.statusCode).toBe(200);
        expect(remainingOf(response.headers.ratelimit)).toBe(POINTS_LIMIT - 1);
      });
  });
});

describe('rate-limit policies', () => {
  it('limits business profile retrieval to 300 calls per 60 seconds by default, as the ' +
    'specification sets it', () => {
    const policies = buildRateLimitPolicies('{}');
    expect(policies['businesses.profiles.retrieve']).toEqual({ limit: 300, windowSeconds: 60 });
    expect(policies.default).toEqual(DEFAULT_RATE_LIMIT);
  });

  it('applies an override to its operation only', () => {
    const policies = buildRateLimitPolicies(RATE_LIMIT_OVERRIDES);
    expect(policies['points.retrieve']).toEqual({ limit: POINTS_LIMIT, windowSeconds: 60 });
    expect(policies['businesses.profiles.retrieve']).toEqual({ limit: 300, windowSeconds: 60 });
  });

  it('uses an overridden default for operations without a row of their own', () => {
    const limiter = createRateLimiter({
      policies: buildRateLimitPolicies('{"default":{"limit":5,"windowSeconds":1}}'),
      log: pino({ level: 'silent' }),
    });
    expect(limiter.policyFor('no.such.operation')).toEqual({ limit: 5, windowSeconds: 1 });
    expect(limiter.policyFor('businesses.profiles.retrieve'))
      .toEqual({ limit: 300, windowSeconds: 60 });
  });

  it.each(['points.retreive', 'toString', '__proto__'])(
    'refuses an override of %s, which is not an operation, with a ConfigError that names it',
    (name) => {
      expect(() => buildRateLimitPolicies(`{"${name}":{"limit":5,"windowSeconds":1}}`))
        .toThrow(new ConfigError(`RATE_LIMIT_OVERRIDES: unknown operation "${name}"`));
    },
  );

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['a string', '"points.retrieve"'],
    ['null', 'null'],
    ['a null policy', '{"points.retrieve":null}'],
    ['a limit of 0', '{"points.retrieve":{"limit":0,"windowSeconds":60}}'],
    ['a fractional limit', '{"points.retrieve":{"limit":1.5,"windowSeconds":60}}'],
    ['a limit above 1,000,000', '{"points.retrieve":{"limit":1000001,"windowSeconds":60}}'],
    ['a limit given as a string', '{"points.retrieve":{"limit":"300","windowSeconds":60}}'],
    ['a window of 0 seconds', '{"points.retrieve":{"limit":300,"windowSeconds":0}}'],
    ['a window above one day', '{"points.retrieve":{"limit":300,"windowSeconds":86401}}'],
    ['a missing window', '{"points.retrieve":{"limit":300}}'],
    ['an invalid default', '{"default":{"limit":-1,"windowSeconds":60}}'],
  ])('refuses overrides that are %s with a ConfigError', (_name, overridesJson) => {
    expect(() => buildRateLimitPolicies(overridesJson)).toThrow(ConfigError);
  });
});

// Drives a limiter's hook without Fastify: just the fields the hook reads and writes.
async function callHook(limiter: RateLimiter, operation: string, keyId: string) {
  const headers: Record<string, string> = {};
  let statusCode = 200;
  const reply = {
    header(name: string, value: string) {
      headers[name.toLowerCase()] = value;
      return reply;
    },
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
    routeOptions: { config: { operation } },
    auth: { keyId, accountId: 'acc', environment: 'test', plan: 'FREE' },
  };
  await limiter.hook(request as unknown as FastifyRequest, reply as unknown as FastifyReply);
  return { statusCode, headers };
}

describe('rate limiting with Redis', () => {
  // Bounds the wait for a limiter's Redis connection: 100 × 50 ms.
  const READY_ATTEMPTS_MAX = 100;
  const READY_POLL_INTERVAL_MS = 50;

  // A limiter falls back to memory until its connection is ready; a warm-up call whose counter
  // appears in Redis shows that it has switched over.
  async function waitUntilRedisCounts(redis: Redis, limiter: RateLimiter, operation: string) {
    for (let attempt = 0; attempt < READY_ATTEMPTS_MAX; attempt += 1) {
      const keyId = `warmup-${attempt}-${randomBytes(4).toString('hex')}`;
      await callHook(limiter, operation, keyId);
      if ((await redis.exists(`etax:rl:${operation}:${keyId}`)) === 1) return;
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_INTERVAL_MS));
    }
    throw new Error('the limiter never reached Redis');
  }

  it.skipIf(!process.env.REDIS_URL)('shares one counter between two limiters on the same Redis',
    async () => {
      const redisUrl = process.env.REDIS_URL!;
      // Random, so runs against the same Redis never see each other's counters.
      const operation = `test.shared.${randomBytes(6).toString('hex')}`;
      const policies = { [operation]: { limit: 3, windowSeconds: 60 } };
      const log = pino({ level: 'silent' });
      const first = createRateLimiter({ redisUrl, policies, log });
      const second = createRateLimiter({ redisUrl, policies, log });
      const redis = new Redis(redisUrl);
      try {
        await waitUntilRedisCounts(redis, first, operation);
        await waitUntilRedisCounts(redis, second, operation);
        const results = [];
        for (const limiter of [first, second, first, second]) {
          results.push(await callHook(limiter, operation, 'shared-key'));
        }
        expect(results.map((result) => result.statusCode)).toEqual([200, 200, 200, 429]);
        expect(results.slice(0, 3).map((result) => remainingOf(result.headers.ratelimit)))
          .toEqual([2, 1, 0]);
        expect(Number(results[3]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(await redis.exists(`etax:rl:${operation}:shared-key`)).toBe(1);
      } finally {
        const keys = await redis.keys(`etax:rl:${operation}:*`);
        if (keys.length > 0) await redis.del(...keys);
        await redis.quit();
        await first.close();
        await second.close();
      }
    });
});
