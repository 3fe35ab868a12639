import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { TRACE_ID_PATTERN } from './http.ts';

export type ErrorBody = { code: string; message: string; traceId: string };

// An error response in the spec's shape (§7): the status, a JSON body of exactly the code, a
// message that says something (matching `message` when given) and the traceId of the Trace-Id
// header. Returns the body.
export function expectError(response: LightMyRequestResponse, status: number, code: string,
  message?: RegExp): ErrorBody {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json() as ErrorBody;
  const traceId = response.headers['trace-id'];
  expect(body).toEqual({ code, message: expect.any(String), traceId });
  expect(body.traceId).toMatch(TRACE_ID_PATTERN);
  expect(body.message.length).toBeGreaterThan(0);
  if (message) expect(body.message).toMatch(message);
  return body;
}
