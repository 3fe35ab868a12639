import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { requireAuth } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { sendError } from '../error-handler.ts';
import type { Operation, RateLimitPolicy } from '../operations.ts';
import { createOperationCounters, type OperationCounters } from './operation-counters.ts';
import { policyOf } from './policies.ts';
import { createRedisBreaker, type RedisBreaker } from './redis-breaker.ts';
import { connectRateLimitRedis, REDIS_COMMAND_TIMEOUT_MS } from './redis-connection.ts';

// Rate limits per API key and operation (docs/limits.md). Counters live in Redis when REDIS_URL
// is set, so limits hold across server processes, and in memory otherwise. While Redis does not
// answer, each process counts in its own memory with the same policies, and hands those counts to
// Redis when it answers again. A window is fixed: `limit` calls per `windowSeconds`, counted
// from the first call.

declare module 'fastify' {
  interface FastifyContextConfig {
    // A bulk operation whose body's `items` each count as one call of this operation (the
    // single operation they would each be), so a bulk never gets round that operation's limit.
    itemsCountAs?: Operation;
    // Whether an earlier request counted this one's items already (a bulk sent again answers
    // the bulk its first sending made): asked before counting them, so such a request is never
    // refused for items it does not make.
    itemsCountedBefore?(request: FastifyRequest): Promise<boolean>;
  }
  interface FastifyRequest {
    // Gives back the calls this request's items counted, once: for a bulk that a request sent at
    // the same moment made first, so the bulk is counted once. Null when no item was counted.
    giveBackItems: (() => Promise<void>) | null;
  }
}

export type RateLimiter = AttemptCounter & {
  policyFor(operation: string): RateLimitPolicy;
  // A bulk's items counted outside its route (the dashboard's upload), as the route counts them.
  countItems(items: ItemsToCount): Promise<ItemsCount>;
  hook(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  // Where counts are kept now: in Redis, in memory because Redis stopped answering (the
  // fallback), or in memory because no REDIS_URL is set. The operator's health page shows it.
  countingIn(): 'redis' | 'memoryFallback' | 'memory';
  close(): Promise<void>;
};

// Counters of attempts that are not operations (the failed logins of the hosted connection
// page, the dashboard's sign-ins per email and per address), with the same store, fallback and
// windows as the operations' limits.
export type AttemptCounter = {
  // Counts one attempt by `key` under `name`'s policy. Null while within the limit; over it,
  // the whole seconds until the window resets.
  attempt(name: string, policy: RateLimitPolicy, key: string): Promise<number | null>;
  // Takes back an attempt that is not to count (a login that worked).
  giveBack(name: string, policy: RateLimitPolicy, key: string): Promise<void>;
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
  const resetSeconds = retryAfterSeconds(state);
  reply.header('RateLimit-Policy', `"${operation}";q=${limit};w=${windowSeconds}`);
  const remaining = Math.max(0, state.remainingPoints);
  reply.header('RateLimit', `"${operation}";r=${remaining};t=${resetSeconds}`);
  return resetSeconds;
}

class RedisDeadlineError extends Error {}

// The call's own bound on Redis, from the moment it asks: the client's command timeout runs
// from when the command is written, and a call could wait longer than that for its turn.
function withinCommandTimeout<T>(work: Promise<T>): Promise<T> {
  work.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RedisDeadlineError(
      `Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms`)), REDIS_COMMAND_TIMEOUT_MS);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

// Redis while the breaker lets calls through, else (or when Redis fails or does not answer in
// time) this process's memory. `answer` tells a rejection that is Redis's answer (a refusal)
// from a failure.
async function inRedisOrMemory<T>(breaker: RedisBreaker | null, inRedis: () => Promise<T>,
  inMemory: () => Promise<T>, answer: (rejection: unknown) => boolean = () => false):
  Promise<T> {
  if (breaker?.countsInRedis()) {
    try {
      return await withinCommandTimeout(inRedis());
    } catch (failure) {
      if (answer(failure)) throw failure;
      breaker.trip(failure);
    }
  }
  return inMemory();
}

// Where a limiter with this breaker keeps its counts now.
function countingIn(breaker: RedisBreaker | null): 'redis' | 'memoryFallback' | 'memory' {
  if (breaker === null) return 'memory';
  return breaker.countsInRedis() ? 'redis' : 'memoryFallback';
}

// What the hook needs of the limiter's counters.
type Counting = {
  policyFor(operation: string): RateLimitPolicy;
  consume(operation: string, keyId: string, policy?: RateLimitPolicy, units?: number):
    Promise<RateLimiterRes>;
  giveBack(operation: string, policy: RateLimitPolicy, keyId: string, units?: number):
    Promise<void>;
};

function refuse(request: FastifyRequest, reply: FastifyReply, operation: string,
  policy: RateLimitPolicy, rejection: RateLimiterRes) {
  reply.header('Retry-After', String(setHeaders(reply, operation, policy, rejection)));
  return sendError(request, reply, new ApiError('RATE_LIMITED'));
}

// A give-back that acts on its first call only.
function giveBackOnce(giveBack: () => Promise<void>): () => Promise<void> {
  let given = false;
  return async () => {
    if (given) return;
    given = true;
    await giveBack();
  };
}

// What counting a bulk's items came to: counted (with the way to give them back once, for a
// bulk that a request sent at the same moment made first), counted by an earlier request (a
// bulk sent again), or refused with the key's state as the single operation's window has it.
type ItemsCount =
  | { kind: 'counted'; giveBack: () => Promise<void> }
  | { kind: 'countedBefore' }
  | { kind: 'refused'; policy: RateLimitPolicy; state: RateLimiterRes };

type ItemsToCount = {
  // The single operation each item would be.
  operation: Operation;
  keyId: string;
  count: number;
  // Whether an earlier request counted these items already (the bulk exists).
  countedBefore(): Promise<boolean>;
};

// The items of a bulk, each a call of the single operation: all of them or none. A bulk the
// rest of the window cannot cover is refused whole and its items are given back, so the single
// operation keeps what was left of its window. A bulk sent again is not counted again: its
// first sending counted its items, which is asked before anything is counted.
async function countItems(counting: Counting, items: ItemsToCount): Promise<ItemsCount> {
  const { operation, keyId, count, countedBefore } = items;
  if (await countedBefore()) return { kind: 'countedBefore' };
  const policy = counting.policyFor(operation);
  try {
    await counting.consume(operation, keyId, policy, count);
    return { kind: 'counted',
      giveBack: giveBackOnce(() => counting.giveBack(operation, policy, keyId, count)) };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    await counting.giveBack(operation, policy, keyId, count);
    // A request sent at the same moment may have made the bulk meanwhile: this one answers it.
    if (await countedBefore()) return { kind: 'countedBefore' };
    const consumed = rejection.consumedPoints - count;
    return { kind: 'refused', policy, state: new RateLimiterRes(
      Math.max(0, policy.limit - consumed), rejection.msBeforeNext, consumed,
      rejection.isFirstInDuration) };
  }
}

// The whole seconds until a refused key's window resets, as Retry-After says them.
export function retryAfterSeconds(state: RateLimiterRes): number {
  return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
}

// The hook of every /v1 route: one call of the route's operation and, for a bulk operation,
// one call of the single operation per item.
function createHook(counting: Counting) {
  const { policyFor, consume } = counting;

  async function consumeItems(request: FastifyRequest, reply: FastifyReply, keyId: string):
    Promise<unknown> {
    const { itemsCountAs: operation, itemsCountedBefore } = request.routeOptions.config;
    const items = (request.body as { items?: unknown } | undefined)?.items;
    if (operation === undefined || !Array.isArray(items) || items.length === 0) return undefined;
    const counted = await countItems(counting, { operation, keyId, count: items.length,
      countedBefore: async () => (await itemsCountedBefore?.(request)) === true });
    if (counted.kind === 'counted') request.giveBackItems = counted.giveBack;
    if (counted.kind !== 'refused') return undefined;
    return refuse(request, reply, operation, counted.policy, counted.state);
  }

  return async function hook(request: FastifyRequest, reply: FastifyReply) {
    const operation = request.routeOptions.config.operation;
    if (!operation) return undefined;
    const { keyId } = requireAuth(request);
    const policy = policyFor(operation);
    try {
      setHeaders(reply, operation, policy, await consume(operation, keyId));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return refuse(request, reply, operation, policy, rejection);
    }
    return consumeItems(request, reply, keyId);
  };
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

  function countersFor(name: string, policy = policyFor(name)): OperationCounters {
    const existing = counters.get(name);
    if (existing) return existing;
    const created = createOperationCounters({ policy, keyPrefix: `etax:rl:${name}`, redis });
    counters.set(name, created);
    return created;
  }

  // Resolves to the key's state after this call, or rejects with it when the call is over the
  // limit. `units`: how many calls it counts as.
  function consume(operation: string, keyId: string, policy?: RateLimitPolicy, units = 1):
    Promise<RateLimiterRes> {
    const named = countersFor(operation, policy);
    return inRedisOrMemory(breaker, () => named.consumeInRedis(keyId, units),
      () => named.consumeInMemory(keyId, units), (failure) => failure instanceof RateLimiterRes);
  }

  const counting = { policyFor, consume, giveBack };
  const hook = createHook(counting);

  async function attempt(name: string, policy: RateLimitPolicy, key: string) {
    try {
      await consume(name, key, policy);
      return null;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return retryAfterSeconds(rejection);
    }
  }

  async function giveBack(name: string, policy: RateLimitPolicy, key: string, units = 1) {
    const named = countersFor(name, policy);
    await inRedisOrMemory(breaker, () => named.rewardInRedis(key, units),
      () => named.rewardInMemory(key, units));
  }

  async function close() {
    breaker?.close();
    await handBack;
    if (redis) await redis.quit().catch(() => redis.disconnect());
  }

  return { policyFor, hook, attempt, giveBack, close, countingIn: () => countingIn(breaker),
    countItems: (items: ItemsToCount) => countItems(counting, items) };
}
