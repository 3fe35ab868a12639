import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { requireAuth } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { sendError } from '../error-handler.ts';
import type { RateLimitPolicy } from '../operations.ts';
import { createOperationCounters, type OperationCounters } from './operation-counters.ts';
import { policyOf } from './policies.ts';
import { createRedisBreaker } from './redis-breaker.ts';
import { connectRateLimitRedis } from './redis-connection.ts';

// Rate limits per API key and operation (docs/limits.md). Counters live in Redis when REDIS_URL
// is set, so limits hold across server processes, and in memory otherwise. While Redis does not
// answer, each process counts in its own memory with the same policies, and hands those counts to
// Redis when it answers again. A window is fixed: `limit` calls per `windowSeconds`, counted
// from the first call.

export type RateLimiter = {
  policyFor(operation: string): RateLimitPolicy;
  hook(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  // True while Redis is configured and does not answer, so this process counts alone.
  countsInMemory(): boolean;
  close(): Promise<void>;
};

export type RateLimiterOptions = {
  redisUrl?: string;
  policies: Record<string, RateLimitPolicy>;
  // Where the loss of Redis and its return are told.
  log: Pick<Logger, 'warn' | 'info'>;
};

// Sets the RateLimit headers of a call and returns the whole seconds until its window resets.
function setHeaders(
  reply: FastifyReply,
  operation: string,
  { limit, windowSeconds }: RateLimitPolicy,
  state: RateLimiterRes,
): number {
  const resetSeconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  reply.header('RateLimit-Policy', `"${operation}";q=${limit};w=${windowSeconds}`);
  const remaining = Math.max(0, state.remainingPoints);
  reply.header('RateLimit', `"${operation}";r=${remaining};t=${resetSeconds}`);
  return resetSeconds;
}

export function createRateLimiter({ redisUrl, policies, log }: RateLimiterOptions): RateLimiter {
  const redis = redisUrl ? connectRateLimitRedis(redisUrl) : null;
  const counters = new Map<string, OperationCounters>();
  // One hand-back at a time, so the counts of one outage reach Redis before the next begins.
  let handBack = Promise.resolve();
  const breaker = redis
    ? createRedisBreaker({
        redis,
        log,
        onReturnToRedis() {
          handBack = handBack.then(handBackToRedis);
        },
      })
    : null;

  async function handBackToRedis() {
    for (const operationCounters of counters.values()) {
      const redisError = await operationCounters.handBackToRedis();
      if (redisError !== undefined) breaker?.trip(redisError);
    }
  }

  function policyFor(operation: string): RateLimitPolicy {
    return policyOf(policies, operation);
  }

  function countersFor(operation: string): OperationCounters {
    const existing = counters.get(operation);
    if (existing) return existing;
    const created = createOperationCounters({
      policy: policyFor(operation),
      keyPrefix: `etax:rl:${operation}`,
      redis,
    });
    counters.set(operation, created);
    return created;
  }

  // Resolves to the key's state after this call, or rejects with it when the call is over the
  // limit.
  async function consume(operation: string, keyId: string): Promise<RateLimiterRes> {
    const operationCounters = countersFor(operation);
    if (breaker?.countsInRedis()) {
      try {
        return await operationCounters.consumeInRedis(keyId);
      } catch (failure) {
        if (failure instanceof RateLimiterRes) throw failure;
        breaker.trip(failure);
      }
    }
    return operationCounters.consumeInMemory(keyId);
  }

  async function hook(request: FastifyRequest, reply: FastifyReply) {
    const operation = request.routeOptions.config.operation;
    if (!operation) return;
    const { keyId } = requireAuth(request);
    try {
      setHeaders(reply, operation, policyFor(operation), await consume(operation, keyId));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfterSeconds = setHeaders(reply, operation, policyFor(operation), rejection);
      reply.header('Retry-After', String(retryAfterSeconds));
      return sendError(request, reply, new ApiError('RATE_LIMITED'));
    }
  }

  async function close() {
    breaker?.close();
    await handBack;
    if (redis) await redis.quit().catch(() => redis.disconnect());
  }

  const countsInMemory = () => breaker !== null && !breaker.countsInRedis();

  return { policyFor, hook, countsInMemory, close };
}
