import type { FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { ConfigError, parseOverrides } from '../config.ts';
import { requireAuth } from './auth.ts';
import { ApiError } from './errors.ts';
import { sendError } from './error-handler.ts';
import {
  DEFAULT_RATE_LIMIT,
  isOperation,
  OPERATIONS,
  type Operation,
  type RateLimitPolicy,
} from './operations.ts';

// Rate limits per API key and operation (DESIGN.md § Rate limits, docs/limits.md). Counters live
// in Redis when REDIS_URL is set, so limits hold across server processes, and in memory
// otherwise. A window is fixed: `limit` calls per `windowSeconds`, counted from the first call.

// The operation table's own policies; every other operation has the default policy.
const DEFAULT_RATE_LIMITS: Record<string, RateLimitPolicy> = Object.fromEntries(
  Object.entries(OPERATIONS as Record<Operation, { rateLimit?: RateLimitPolicy }>)
    .flatMap(([name, row]) => (row.rateLimit ? [[name, row.rateLimit]] : [])),
);
const POLICY_LIMIT_MAX = 1_000_000;
const POLICY_WINDOW_SECONDS_MAX = 86_400;

// A Redis call that takes longer than this falls back to the in-process limiter rather than
// delaying the request.
const REDIS_COMMAND_TIMEOUT_MS = 500;

function isPolicy(value: unknown): value is RateLimitPolicy {
  const policy = value as RateLimitPolicy;
  return (
    typeof value === 'object' && value !== null &&
    Number.isSafeInteger(policy.limit) && policy.limit >= 1 && policy.limit <= POLICY_LIMIT_MAX &&
    Number.isSafeInteger(policy.windowSeconds) && policy.windowSeconds >= 1 &&
    policy.windowSeconds <= POLICY_WINDOW_SECONDS_MAX
  );
}

export function buildRateLimitPolicies(overridesJson: string): Record<string, RateLimitPolicy> {
  const overrides = parseOverrides('RATE_LIMIT_OVERRIDES', overridesJson, isPolicy);
  for (const name of Object.keys(overrides)) {
    if (name !== 'default' && !isOperation(name)) {
      throw new ConfigError(`RATE_LIMIT_OVERRIDES: unknown operation "${name}"`);
    }
  }
  return { default: DEFAULT_RATE_LIMIT, ...DEFAULT_RATE_LIMITS, ...overrides };
}

export type RateLimiter = {
  policyFor(operation: string): RateLimitPolicy;
  hook(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  close(): Promise<void>;
};

type RateLimiterOptions = { redisUrl?: string; policies: Record<string, RateLimitPolicy> };

export function createRateLimiter({ redisUrl, policies }: RateLimiterOptions): RateLimiter {
  const redis = redisUrl
    ? new Redis(redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
        lazyConnect: false,
        // The counters of concurrent requests go to Redis in one write per event-loop turn.
        enableAutoPipelining: true,
      })
    : null;
  // Without this listener ioredis reports connection errors as unhandled; the insurance limiter
  // covers the requests meanwhile.
  redis?.on('error', () => {});
  const limiters = new Map<string, RateLimiterAbstract>();

  function policyFor(operation: string): RateLimitPolicy {
    return policies[operation] ?? policies.default ?? DEFAULT_RATE_LIMIT;
  }

  function limiterFor(operation: string): RateLimiterAbstract {
    const existing = limiters.get(operation);
    if (existing) return existing;
    const { limit, windowSeconds } = policyFor(operation);
    const keyPrefix = `etax:rl:${operation}`;
    const memory = new RateLimiterMemory({ points: limit, duration: windowSeconds, keyPrefix });
    const limiter = redis
      ? new RateLimiterRedis({
          storeClient: redis,
          points: limit,
          duration: windowSeconds,
          keyPrefix,
          rejectIfRedisNotReady: true,
          insuranceLimiter: memory,
        })
      : memory;
    limiters.set(operation, limiter);
    return limiter;
  }

  function setHeaders(reply: FastifyReply, operation: string, state: RateLimiterRes) {
    const { limit, windowSeconds } = policyFor(operation);
    const resetSeconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    reply.header('RateLimit-Policy', `"${operation}";q=${limit};w=${windowSeconds}`);
    const remaining = Math.max(0, state.remainingPoints);
    reply.header('RateLimit', `"${operation}";r=${remaining};t=${resetSeconds}`);
    return resetSeconds;
  }

  async function hook(request: FastifyRequest, reply: FastifyReply) {
    const operation = request.routeOptions.config.operation;
    if (!operation) return;
    const { keyId } = requireAuth(request);
    try {
      const state = await limiterFor(operation).consume(keyId, 1);
      setHeaders(reply, operation, state);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfterSeconds = setHeaders(reply, operation, rejection);
      reply.header('Retry-After', String(retryAfterSeconds));
      return sendError(request, reply, new ApiError('RATE_LIMITED'));
    }
  }

  async function close() {
    if (redis) await redis.quit().catch(() => redis.disconnect());
  }

  return { policyFor, hook, close };
}
