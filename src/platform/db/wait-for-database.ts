/* eslint-disable no-restricted-syntax -- a timeout of the start-up, in the system's time. */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from 'pino';
import { DatabaseOpenError } from './open-error.ts';
import { isDatabaseUnavailable, unavailableReason } from './unavailable.ts';

// A process may start before its PostgreSQL does (a machine booting, a compose file starting
// both, a database restarting), so a start waits for it, retrying with backoff and logging each
// retry, instead of failing on the first refused connection. After the configured time it gives
// up with one line naming the host. Only a database that cannot be reached is waited for: a
// wrong password or a missing database fails at once, as waiting would not change it.

const FIRST_RETRY_DELAY_MS = 250;
const RETRY_DELAY_MAX_MS = 5_000;
// One attempt may take this long (a host that drops packets); the pool's own connect timeout.
const ATTEMPT_TIMEOUT_MAX_MS = 10_000;
const ATTEMPT_TIMEOUT_MIN_MS = 1_000;
const POSTGRES_DEFAULT_PORT = '5432';

export type WaitOptions = { timeoutMs: number; log: Logger };

// host:port of a PostgreSQL URL, for messages: the URL itself holds the password.
function databaseAddress(url: string): string {
  const parsed = new URL(url);
  // libpq's host parameter (a Unix socket folder, say) overrides the URL's host.
  const host = parsed.searchParams.get('host') ?? decodeURIComponent(parsed.hostname);
  const port = parsed.searchParams.get('port') ?? (parsed.port || POSTGRES_DEFAULT_PORT);
  return `${host || 'localhost'}:${port}`;
}

// Connects once and disconnects; returns why it failed, or null.
async function tryConnect(url: string, timeoutMs: number): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  // A connection that fails after connecting must not become an unhandled 'error' event.
  client.on('error', () => {});
  try {
    await client.connect();
    return null;
  } catch (error) {
    return error;
  } finally {
    await client.end().catch(() => {});
  }
}

function attemptTimeout(remainingMs: number): number {
  return Math.min(Math.max(remainingMs, ATTEMPT_TIMEOUT_MIN_MS), ATTEMPT_TIMEOUT_MAX_MS);
}

// Returns once the database at `url` accepts a connection; throws DatabaseOpenError when it has
// not within options.timeoutMs, and any other connection failure as it is.
export async function waitForDatabase(url: string, options: WaitOptions): Promise<void> {
  const address = databaseAddress(url);
  const deadline = Date.now() + options.timeoutMs;
  let delayMs = FIRST_RETRY_DELAY_MS;
  for (let attempt = 1; ; attempt += 1) {
    const error = await tryConnect(url, attemptTimeout(deadline - Date.now()));
    if (error === null) {
      if (attempt > 1) options.log.info({ database: address, attempt }, 'database reachable');
      return;
    }
    if (!isDatabaseUnavailable(error)) throw error;
    const reason = unavailableReason(error);
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) {
      throw new DatabaseOpenError(`cannot reach the database at ${address} (${reason}) within ` +
        `${Math.round(options.timeoutMs / 1000)} s (DATABASE_CONNECT_TIMEOUT_SECONDS); check ` +
        'DATABASE_URL and that PostgreSQL is running');
    }
    const retryInMs = Math.min(delayMs, remainingMs);
    options.log.warn({ database: address, attempt, reason, retryInMs },
      'database unreachable; retrying');
    await sleep(retryInMs);
    delayMs = Math.min(delayMs * 2, RETRY_DELAY_MAX_MS);
  }
}
