import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

// Decides whether the rate limiter counts in Redis or in the process's memory. The first failed
// or timed-out Redis command switches every later request to memory, so a hung Redis costs one
// command timeout once instead of on every request; a PING in the background then finds out when
// Redis answers again. Each outage is logged twice: a warning when it starts, an info line when
// it ends.

// How often a process counting in memory asks Redis whether it answers again. A hung Redis
// holds each PING for a command timeout, so at most one is in flight at a time.
const REDIS_PROBE_INTERVAL_MS = 1_000;

export type RedisBreaker = {
  // Whether requests count in Redis now: false before the connection is first ready and while
  // Redis fails.
  countsInRedis(): boolean;
  // A Redis command failed or timed out: count in memory from now on.
  trip(error: unknown): void;
  close(): void;
};

export type RedisBreakerOptions = {
  redis: Redis;
  log: Pick<Logger, 'warn' | 'info'>;
  // Called each time requests go back to Redis, once they already do.
  onReturnToRedis(): void;
  probeIntervalMs?: number;
};

export function createRedisBreaker(options: RedisBreakerOptions): RedisBreaker {
  const { redis, log, onReturnToRedis, probeIntervalMs = REDIS_PROBE_INTERVAL_MS } = options;
  // Requests count in memory until the connection is first ready. That is the start, not an
  // outage, so it is logged only if connecting fails.
  let inRedis = false;
  let outageLogged = false;
  let probeInFlight = false;
  let closed = false;

  function trip(error: unknown) {
    if (closed) return;
    inRedis = false;
    if (outageLogged) return;
    outageLogged = true;
    log.warn({ reason: error instanceof Error ? error.message : String(error) },
      'Redis does not answer: rate limits are counted in this process\'s memory until it does');
  }

  function returnToRedis() {
    if (closed || inRedis) return;
    inRedis = true;
    if (outageLogged) {
      outageLogged = false;
      log.info('Redis answers again: rate limits are counted in Redis');
    }
    onReturnToRedis();
  }

  async function probe() {
    if (closed || inRedis || probeInFlight) return;
    probeInFlight = true;
    const answered = await redis.ping().then(() => true, () => false);
    probeInFlight = false;
    if (answered) returnToRedis();
  }

  const probeTimer = setInterval(() => void probe(), probeIntervalMs);
  probeTimer.unref();
  // A new connection is worth a probe at once rather than at the next tick of the timer.
  redis.on('ready', () => void probe());
  // Connection errors (refused, reset, unreachable host) mean requests would fail; ioredis keeps
  // reconnecting meanwhile, and without a listener it would report them as unhandled.
  redis.on('error', trip);

  return {
    countsInRedis: () => inRedis,
    trip,
    close() {
      closed = true;
      clearInterval(probeTimer);
    },
  };
}
