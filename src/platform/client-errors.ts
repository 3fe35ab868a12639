import type { Socket } from 'node:net';
import { ERRORS, type ErrorBody } from './errors.ts';
import { newTraceId, TRACE_ID_HEADER } from './trace.ts';

// Requests that Node's HTTP parser refuses before Fastify sees them: bytes that are not HTTP, a
// URL with raw control or non-ASCII bytes, a body that contradicts its Content-Length or its
// chunked framing, headers over Node's size limit. Fastify's default answer to them has neither
// our error body nor a Trace-Id (docs/errors.md); this one gives 400 INVALID_REQUEST in our
// shape. The connection is closed after it, since its framing can no longer be trusted.

type ClientError = Error & { code?: string };

const MESSAGE = 'The request is not well-formed HTTP.';
// A client that took too long to send its request: nothing of it was read, so there is no
// request to answer with a body; the status tells it what happened.
const TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n' +
  'Content-Length: 0\r\n\r\n';

function badRequestResponse(): string {
  const traceId = newTraceId();
  const body: ErrorBody = { code: 'INVALID_REQUEST', message: MESSAGE, traceId };
  const text = JSON.stringify(body);
  return `HTTP/1.1 ${ERRORS.INVALID_REQUEST.status} Bad Request\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(text)}\r\n` +
    `${TRACE_ID_HEADER}: ${traceId}\r\nConnection: close\r\n\r\n${text}`;
}

// For Fastify's `clientErrorHandler` option (src/server.ts).
export function handleClientError(error: ClientError, socket: Socket): void {
  // A reset connection is already gone; there is no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    socket.write(error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? TIMEOUT_RESPONSE
      : badRequestResponse());
  }
  socket.destroy();
}
