import { retryAfterSeconds } from './errors.js';

// Retries answers that say "not done, try again": 429 (the rate limiter refuses before the
// operation runs) and 503 (the operation failed as a whole and charged nothing), honouring
// Retry-After. A request that got no answer at all has an unknown outcome: only methods that
// may be repeated without effect (GET, HEAD, OPTIONS, PUT, DELETE) are sent again; a POST or
// PATCH is not, since it could be carried out twice. A tax invoice whose answer was lost is
// looked up by its reference id instead (tax-invoices.ts).

export type RetryOptions = {
  // Attempts in all, the first included. 1 turns retrying off.
  attempts?: number;
  // The longest wait between two attempts; a Retry-After beyond it ends the retrying, and the
  // 429 or 503 is returned to the caller.
  maxDelayMs?: number;
  // The first wait without Retry-After; each later one doubles, with up to a quarter of jitter.
  baseDelayMs?: number;
};

const DEFAULTS: Required<RetryOptions> = { attempts: 3, maxDelayMs: 30_000, baseDelayMs: 500 };
const RETRIED_STATUSES = new Set([429, 503]);
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

type Fetch = (request: Request) => Promise<Response>;

function backoffMs(attempt: number, options: Required<RetryOptions>): number {
  const exponential = options.baseDelayMs * 2 ** (attempt - 1);
  return Math.min(options.maxDelayMs, exponential * (1 + Math.random() / 4));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function retryingFetch(send: Fetch, given: RetryOptions = {}): Fetch {
  const options = { ...DEFAULTS, ...given };
  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= options.attempts;
      let response: Response;
      try {
        response = await send(last ? request : request.clone());
      } catch (error) {
        if (last || !REPEATABLE_METHODS.has(request.method) || request.signal.aborted) {
          throw error;
        }
        await sleep(backoffMs(attempt, options));
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const told = retryAfterSeconds(response);
      const delayMs = told === null ? backoffMs(attempt, options) : told * 1000;
      if (delayMs > options.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delayMs);
    }
  };
}
