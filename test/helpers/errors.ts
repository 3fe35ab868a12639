import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

// An error response in the spec's shape (§7): the status, the code, a message, and the traceId
// of the Trace-Id header. Returns the body.
export function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode).toBe(status);
  const body = response.json() as { code: string; message: string; traceId: string };
  const traceId = response.headers['trace-id'];
  expect(body).toEqual({ code, message: expect.any(String), traceId });
  return body;
}
