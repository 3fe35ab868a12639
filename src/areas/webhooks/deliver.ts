import { createRequire } from 'node:module';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import {
  addressAllowed,
  guardedLookup,
  hostOf,
  TargetRefusedError,
  type TargetPolicy,
} from './target-policy.ts';
import type { ResolveHost } from '../../platform/outside.ts';

// One HTTP attempt of one delivery: POST the signed body, never follow a redirect, and report
// what happened. Only 2xx within the timeout is success. The start of the response body is kept
// (RESPONSE_BODY_KEPT_BYTES, as UTF-8 text) for the client to read in its delivery log, where
// a receiver's error message is what tells why it refused; the rest is read up to
// RESPONSE_BYTES_MAX and dropped. The target policy keeps private addresses out, so what is
// kept is what a public receiver chose to answer.

export type AttemptOutcome = {
  succeeded: boolean;
  responseStatus: number | null;
  // The start of the receiver's answer, and whether it went on; null without an answer.
  responseBody: string | null;
  responseBodyTruncated: boolean;
  error: string | null;
  durationMs: number;
};

// A receiver's answer is read up to this many bytes, so the connection can be reused, and
// dropped beyond it.
const RESPONSE_BYTES_MAX = 64 * 1024;
// What is kept of an answer's body for the delivery log.
const RESPONSE_BODY_KEPT_BYTES = 2048;
// A connection left idle this long is closed; receivers are many and mostly idle.
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
// Connections kept per receiver origin.
const CONNECTIONS_PER_ORIGIN_MAX = 4;

// One connection pool per target policy, so a connection opened under one policy is never
// reused under a stricter one, should the policies of test and live keys ever differ in the
// addresses they allow. undici follows no redirects unless asked to.
// undici (some 20 MB resident) loads with the first delivery, not at every start.
const require = createRequire(import.meta.url);
const undici = () => require('undici') as typeof import('undici');

export function createDeliveryAgent(
  policy: TargetPolicy,
  resolveHost: ResolveHost,
  timeoutMs: number,
) {
  return new (undici().Agent)({
    connect: { lookup: guardedLookup(policy, resolveHost), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connections: CONNECTIONS_PER_ORIGIN_MAX,
  });
}

type AttemptRequest = {
  // Names the attempt in the server log.
  deliveryId: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: TargetPolicy;
  dispatcher: Dispatcher;
  timeoutMs: number;
  log: Logger;
};

// Every attempt that got no HTTP answer is logged with this one message, whatever the reason: a
// refused address, a closed port, a port speaking another protocol, a timeout, a TLS failure.
// The delivery log is the client's to read, and a reason per failure would let any client map
// which ports and hosts our server can reach; the reason goes to the server log (debug) only.
export const NO_ANSWER_ERROR = 'Could not connect to the endpoint.';

// The reason an attempt got no answer, for the server log: the error's code or name, and the
// cause of an undici error, without the response body or headers (none was received).
function failureDetail(error: unknown) {
  const describe = (value: unknown) => value instanceof Error
    ? { name: value.name, code: (value as { code?: unknown }).code, message: value.message }
    : { message: String(value) };
  const cause = (error as { cause?: unknown }).cause;
  return { ...describe(error), cause: cause === undefined ? undefined : describe(cause) };
}

// The first RESPONSE_BODY_KEPT_BYTES of a body as text (a character cut in two becomes U+FFFD;
// NUL, which PostgreSQL text cannot hold, is dropped), reading at most RESPONSE_BYTES_MAX.
async function readStart(body: AsyncIterable<Buffer>) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (kept < RESPONSE_BODY_KEPT_BYTES) {
      const part = chunk.subarray(0, RESPONSE_BODY_KEPT_BYTES - kept);
      chunks.push(part);
      kept += part.length;
    }
    // Leaving the loop destroys the stream: the connection is not reused.
    if (total > RESPONSE_BYTES_MAX) break;
  }
  const text = Buffer.concat(chunks).toString('utf8').replaceAll('\u0000', '');
  return { text, truncated: total > kept };
}

export async function attemptDelivery(attempt: AttemptRequest): Promise<AttemptOutcome> {
  const startedMs = performance.now();
  const elapsed = () => Math.round(performance.now() - startedMs);
  const noAnswer = (reason: unknown): AttemptOutcome => {
    attempt.log.debug({ deliveryId: attempt.deliveryId, reason: failureDetail(reason) },
      'webhook attempt got no answer');
    return { succeeded: false, responseStatus: null, responseBody: null,
      responseBodyTruncated: false, error: NO_ANSWER_ERROR, durationMs: elapsed() };
  };
  const host = hostOf(new URL(attempt.url));
  // IP literals never reach the connect lookup, so they are checked here.
  if (net.isIP(host) !== 0 && !addressAllowed(host, attempt.policy)) {
    return noAnswer(new TargetRefusedError(host));
  }
  try {
    const response = await undici().request(attempt.url, {
      method: 'POST',
      headers: attempt.headers,
      body: attempt.body,
      dispatcher: attempt.dispatcher,
      signal: AbortSignal.timeout(attempt.timeoutMs),
      headersTimeout: attempt.timeoutMs,
      bodyTimeout: attempt.timeoutMs,
    });
    const kept = await readStart(response.body);
    const status = response.statusCode;
    const succeeded = status >= 200 && status < 300;
    const error = succeeded ? null : `The receiver answered HTTP ${status}.`;
    return { succeeded, responseStatus: status, responseBody: kept.text,
      responseBodyTruncated: kept.truncated, error, durationMs: elapsed() };
  } catch (error) {
    return noAnswer(error);
  }
}
