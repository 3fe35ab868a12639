import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, errors, request, type Dispatcher } from 'undici';
import {
  addressAllowed,
  guardedLookup,
  hostOf,
  TargetRefusedError,
  type TargetPolicy,
} from './target-policy.ts';
import type { ResolveHost } from '../../platform/outside.ts';

// One HTTP attempt of one delivery: POST the signed body, never follow a redirect, and report
// what happened. Only 2xx within the timeout is success. The response body is read and thrown
// away (bounded): receivers answer with a status, and a body from an address the client chose
// is never stored or shown.

export type AttemptOutcome = {
  succeeded: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
};

// A receiver's answer is read up to this many bytes, so the connection can be reused, and
// dropped beyond it.
const RESPONSE_BYTES_MAX = 64 * 1024;
// A connection left idle this long is closed; receivers are many and mostly idle.
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
// Connections kept per receiver origin.
const CONNECTIONS_PER_ORIGIN_MAX = 4;

// One connection pool per target policy, so a connection opened under a lenient policy (a test
// key's loopback receiver) is never reused under a strict one. undici follows no redirects
// unless asked to.
export function createDeliveryAgent(
  policy: TargetPolicy,
  resolveHost: ResolveHost,
  timeoutMs: number,
) {
  return new Agent({
    connect: { lookup: guardedLookup(policy, resolveHost), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connections: CONNECTIONS_PER_ORIGIN_MAX,
  });
}

type AttemptRequest = {
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: TargetPolicy;
  dispatcher: Dispatcher;
  timeoutMs: number;
};

// Our own short description of a failure, for the delivery log.
function describeFailure(error: unknown): string {
  if (error instanceof TargetRefusedError) return 'The target address is not allowed.';
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError ||
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))) {
    return 'The receiver did not answer in time.';
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return `Connection failed: ${code}.`;
  return 'The request failed.';
}

export async function attemptDelivery(attempt: AttemptRequest): Promise<AttemptOutcome> {
  const startedMs = performance.now();
  const elapsed = () => Math.round(performance.now() - startedMs);
  const host = hostOf(new URL(attempt.url));
  // IP literals never reach the connect lookup, so they are checked here.
  if (net.isIP(host) !== 0 && !addressAllowed(host, attempt.policy)) {
    return { succeeded: false, responseStatus: null, error: describeFailure(
      new TargetRefusedError(host)), durationMs: elapsed() };
  }
  try {
    const response = await request(attempt.url, {
      method: 'POST',
      headers: attempt.headers,
      body: attempt.body,
      dispatcher: attempt.dispatcher,
      signal: AbortSignal.timeout(attempt.timeoutMs),
      headersTimeout: attempt.timeoutMs,
      bodyTimeout: attempt.timeoutMs,
    });
    await response.body.dump({ limit: RESPONSE_BYTES_MAX });
    const status = response.statusCode;
    const succeeded = status >= 200 && status < 300;
    const error = succeeded ? null : `The receiver answered HTTP ${status}.`;
    return { succeeded, responseStatus: status, error, durationMs: elapsed() };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    const reason = cause instanceof TargetRefusedError ? cause : error;
    return { succeeded: false, responseStatus: null, error: describeFailure(reason),
      durationMs: elapsed() };
  }
}
