/* eslint-disable no-restricted-syntax --
   rate-limiter-flexible times its windows by the system's clock. */
import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type IRateLimiterMemoryRecord,
} from 'rate-limiter-flexible';
import type { RateLimitPolicy } from '../operations.ts';

// One operation's counters, one per API key: in Redis, shared by every process, and in this
// process's memory for the time Redis does not answer. When Redis answers again, what memory
// counted is added to the counters in Redis, so no call counted during an outage is forgotten.
//
// A key's memory counter starts from the count Redis last answered for it, when that window is
// still open, not from zero: a process that falls back (Redis hung, or a reply read late by a
// busy process) then lets a key make only what the whole deployment had left, plus what other
// processes let through meanwhile, instead of a whole new window.

export type OperationCounters = {
  // Both reject with the RateLimiterRes of the refusal when the key is over its limit; Redis
  // also rejects with its own error when it fails.
  // `units`: how many calls this one counts as (1 but for the items of a bulk).
  consumeInRedis(keyId: string, units?: number): Promise<RateLimiterRes>;
  consumeInMemory(keyId: string, units?: number): Promise<RateLimiterRes>;
  // Takes counts back (an attempt that is not to count after all).
  rewardInRedis(keyId: string, units?: number): Promise<unknown>;
  rewardInMemory(keyId: string, units?: number): Promise<unknown>;
  // Adds every count kept in memory to its counter in Redis and empties memory. A count that
  // Redis does not take goes back into memory, and the error that Redis gave is returned.
  handBackToRedis(): Promise<unknown>;
};

// Keys whose last Redis count one operation remembers: far more than the keys active in a window
// of a large deployment, and a few megabytes at most.
const REMEMBERED_KEYS_MAX = 50_000;

export type OperationCountersOptions = {
  policy: RateLimitPolicy;
  // The counters' names are this prefix, a colon and the key id, in Redis and in memory alike.
  keyPrefix: string;
  redis: Redis | null;
};

// The count Redis last answered per key, while its window is open.
function rememberedRedisCounts() {
  const counts = new Map<string, { count: number; expiresAt: number }>();

  function forgetEndedWindows() {
    const now = Date.now();
    for (const [keyId, seen] of counts) {
      if (seen.expiresAt <= now) counts.delete(keyId);
    }
    // Still full of open windows: forget the oldest, which only makes a fallback more lenient.
    for (const keyId of counts.keys()) {
      if (counts.size < REMEMBERED_KEYS_MAX) break;
      counts.delete(keyId);
    }
  }

  return {
    remember(keyId: string, state: RateLimiterRes) {
      if (counts.size >= REMEMBERED_KEYS_MAX) forgetEndedWindows();
      counts.set(keyId, { count: state.consumedPoints,
        expiresAt: Date.now() + state.msBeforeNext });
    },
    get: (keyId: string) => counts.get(keyId),
  };
}

export function createOperationCounters(options: OperationCountersOptions): OperationCounters {
  const { policy, keyPrefix, redis } = options;
  const counterOptions = { points: policy.limit, duration: policy.windowSeconds, keyPrefix };
  const inRedis = redis
    ? new RateLimiterRedis({ ...counterOptions, storeClient: redis, rejectIfRedisNotReady: true })
    : null;
  let inMemory = new RateLimiterMemory(counterOptions);
  const lastRedisCount = rememberedRedisCounts();
  // The keys whose memory counter has started, with the count it started from (not handed back).
  let startedFrom = new Map<string, number>();

  // Starts the key's memory counter from its last Redis count, once per outage.
  function startInMemory(keyId: string) {
    if (startedFrom.has(keyId)) return;
    const seen = lastRedisCount.get(keyId);
    const secondsLeft = seen ? Math.ceil((seen.expiresAt - Date.now()) / 1000) : 0;
    if (!seen || secondsLeft <= 0) {
      startedFrom.set(keyId, 0);
      return;
    }
    startedFrom.set(keyId, seen.count);
    void inMemory.set(keyId, seen.count, secondsLeft);
  }

  // Adds a count to a counter, which starts with the seconds left of the count's window when it
  // does not exist (so a window never ends earlier than it would have in memory).
  function addCount(
    counter: RateLimiterRedis | RateLimiterMemory,
    record: IRateLimiterMemoryRecord,
  ): Promise<unknown> {
    const secondsLeft = Math.ceil(((record.expiresAt ?? 0) - Date.now()) / 1000);
    // A window that has ended holds nothing that still limits a key.
    if (secondsLeft <= 0) return Promise.resolve();
    return counter.penalty(String(record.key), record.value, { customDuration: secondsLeft });
  }

  async function handBackToRedis(): Promise<unknown> {
    if (!inRedis) return undefined;
    // A fresh memory takes the counts of an outage that starts while these are on their way.
    // Only what memory counted goes to Redis, not the count it started from, which Redis has.
    const started = startedFrom;
    const records = inMemory.dump().storage.flatMap((record) => {
      const keyId = String(record.key);
      const counted = record.value - (started.get(keyId) ?? 0);
      return counted > 0 ? [{ ...record, value: counted }] : [];
    });
    inMemory = new RateLimiterMemory(counterOptions);
    startedFrom = new Map();
    const outcomes = await Promise.allSettled(records.map((record) => addCount(inRedis, record)));
    let redisError: unknown;
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') return;
      redisError ??= outcome.reason;
      // Back into memory, where it now counts from zero.
      startedFrom.set(String(records[index]!.key), 0);
      void addCount(inMemory, records[index]!);
    });
    return redisError;
  }

  return {
    async consumeInRedis(keyId, units = 1) {
      if (!inRedis) throw new Error('rate limits are not counted in Redis');
      try {
        const state = await inRedis.consume(keyId, units);
        lastRedisCount.remember(keyId, state);
        return state;
      } catch (failure) {
        if (failure instanceof RateLimiterRes) lastRedisCount.remember(keyId, failure);
        throw failure;
      }
    },
    consumeInMemory(keyId, units = 1) {
      startInMemory(keyId);
      return inMemory.consume(keyId, units);
    },
    rewardInRedis: async (keyId, units = 1) => inRedis!.reward(keyId, units),
    rewardInMemory: (keyId, units = 1) => (startInMemory(keyId), inMemory.reward(keyId, units)),
    handBackToRedis,
  };
}
