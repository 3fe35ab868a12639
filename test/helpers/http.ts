import type { InjectOptions } from 'fastify';

// Building requests as an API client sends them. This file imports nothing from src, so tests
// that drive a server in another process can use it without loading the app.

// HTTP Basic with the API key as the username and an empty password (docs/auth.md).
export function basicAuth(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
}

// A JSON request with `key`'s credentials. A string payload is sent as it is (for malformed
// JSON); anything else is serialized.
export function jsonRequest(key: string, method: InjectOptions['method'], url: string,
  payload: unknown): InjectOptions {
  const headers = { 'content-type': 'application/json', authorization: basicAuth(key) };
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return { method, url, headers, payload: body };
}

// Every response carries a Trace-Id of 32 hex digits, which an error body repeats as `traceId`.
export const TRACE_ID_PATTERN = /^[0-9a-f]{32}$/;
