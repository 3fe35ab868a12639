import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  type IRateLimiterMemoryRecord,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import type { RateLimitPolicy } from '../operations.ts';

// One operation's counters, one per API key: in Redis, shared by every process, and in this
// process's memory for the time Redis does not answer. When Redis answers again, what memory
// counted is added to the counters in Redis, so no call counted during an outage is forgotten.

export type OperationCounters = {
  // Both reject with the RateLimiterRes of the refusal when the key is over its limit; Redis
  // also rejects with its own error when it fails.
  consumeInRedis(keyId: string): Promise<RateLimiterRes>;
  consumeInMemory(keyId: string): Promise<RateLimiterRes>;
  // Adds every count kept in memory to its counter in Redis and empties memory. A count that
  // Redis does not take goes back into memory, and the error that Redis gave is returned.
  handBackToRedis(): Promise<unknown>;
};

export type OperationCountersOptions = {
  policy: RateLimitPolicy;
  // The counters' names are this prefix, a colon and the key id, in Redis and in memory alike.
  keyPrefix: string;
  redis: Redis | null;
};

export function createOperationCounters(options: OperationCountersOptions): OperationCounters {
  const { policy, keyPrefix, redis } = options;
  const counterOptions = { points: policy.limit, duration: policy.windowSeconds, keyPrefix };
  const inRedis = redis
    ? new RateLimiterRedis({ ...counterOptions, storeClient: redis, rejectIfRedisNotReady: true })
    : null;
  let inMemory = new RateLimiterMemory(counterOptions);

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
    const records = inMemory.dump().storage;
    inMemory = new RateLimiterMemory(counterOptions);
    const outcomes = await Promise.allSettled(records.map((record) => addCount(inRedis, record)));
    let redisError: unknown;
    outcomes.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') return;
      redisError ??= outcome.reason;
      void addCount(inMemory, records[index]!);
    });
    return redisError;
  }

  return {
    consumeInRedis(keyId) {
      if (!inRedis) return Promise.reject(new Error('rate limits are not counted in Redis'));
      return inRedis.consume(keyId, 1);
    },
    consumeInMemory: (keyId) => inMemory.consume(keyId, 1),
    handBackToRedis,
  };
}
