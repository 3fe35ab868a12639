import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

// ioredis (some 20 MB resident) loads only when REDIS_URL is set.
const require = createRequire(import.meta.url);

// The rate limiter's one connection to Redis, set up so that a Redis in trouble costs a request
// at most one command timeout, never a wait for a reconnection (docs/limits.md).

// A healthy Redis answers the counter's script in well under a millisecond on the same network,
// and in tens of milliseconds at worst while it forks to persist; 500 ms is far above both, so a
// timeout means Redis is hung or unreachable, not busy. It is also what the requests in flight
// at the moment Redis hangs wait before the breaker sends every later request to memory. It is
// not lower because a process whose event loop lags (a full CPU) reads a healthy Redis's answer
// late: at 200 ms, two loaded processes fell back to memory often enough to let a key make far
// more than its limit across them.
export const REDIS_COMMAND_TIMEOUT_MS = 500;

export function connectRateLimitRedis(redisUrl: string): Redis {
  const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
  return new RedisClient(redisUrl, {
    // A command fails at once while the connection is down instead of waiting in a queue for it.
    enableOfflineQueue: false,
    // A command in flight when the connection drops fails at once too; with a retry it would
    // wait for the next connection attempt, up to the reconnection delay.
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    lazyConnect: false,
    // The counters of concurrent requests go to Redis in one write per event-loop turn.
    enableAutoPipelining: true,
  });
}
