import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { basicAuth, type TestApp } from './app.ts';

// The cases every /v1 route owes its callers (STYLE.md §22, docs/auth.md): every authentication
// failure is 401 with an empty body and a WWW-Authenticate challenge, refused before the route
// looks at its input; every response carries a 32-hex Trace-Id that an error body repeats as
// `traceId`; and every authenticated response carries the rate-limit headers of its operation.
// What a route charges and which environment it serves stay in the route's own test file.

export const TRACE_ID_PATTERN = /^[0-9a-f]{32}$/;
// Well-formed (test_ plus 43 characters) but issued to no one.
const UNKNOWN_KEY = `test_${'x'.repeat(43)}`;

export type RouteContractOptions = {
  // The route as named in the describe block, e.g. 'POST /v1/bankAccountHolders:bulkInquire'.
  name: string;
  // The app is created in beforeAll, so it is read when each case runs.
  app: () => TestApp;
  // A request the route answers with 2xx for a funded key; it sets its own Authorization.
  request: (key: string) => InjectOptions;
  // A key the valid request succeeds with (funded, if the route charges).
  testKey: () => Promise<string>;
  // A request the route answers with an error body for a valid key, e.g. malformed input.
  erroringRequest?: (key: string) => InjectOptions;
  // The rate-limit operation the headers must name, e.g. 'bank.holders.bulkInquire'.
  operation?: string;
};

// The same request with its Authorization header replaced, or removed for null.
function withAuthorization(options: InjectOptions, authorization: string | null): InjectOptions {
  const headers: Record<string, string | string[] | number | undefined> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (name.toLowerCase() !== 'authorization') headers[name] = value;
  }
  if (authorization !== null) headers.authorization = authorization;
  return { ...options, headers };
}

function expectRefused(response: LightMyRequestResponse) {
  expect(response.statusCode).toBe(401);
  expect(response.body).toBe('');
  expect(response.headers['www-authenticate']).toMatch(/^Basic realm="[^"]+"$/);
  expect(response.headers['trace-id']).toMatch(TRACE_ID_PATTERN);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function describeRouteContract(options: RouteContractOptions): void {
  const inject = (request: InjectOptions) => options.app().server.inject(request);
  const anyKey = options.request(UNKNOWN_KEY);

  describe(`route contract: ${options.name}`, () => {
    it('returns 401 with an empty body, WWW-Authenticate and a Trace-Id without a key',
      async () => {
        expectRefused(await inject(withAuthorization(anyKey, null)));
      });

    it('returns 401 with an empty body for a well-formed key issued to no one', async () => {
      expectRefused(await inject(withAuthorization(anyKey, basicAuth(UNKNOWN_KEY))));
    });

    it('returns 401 with an empty body for a valid key sent with a non-empty password',
      async () => {
        const key = await options.testKey();
        const credentials = Buffer.from(`${key}:secret`).toString('base64');
        expectRefused(await inject(withAuthorization(options.request(key),
          `Basic ${credentials}`)));
      });

    it('sends a Trace-Id and rate-limit headers on an authenticated response', async () => {
      const response = await inject(options.request(await options.testKey()));
      expect(response.statusCode).toBeGreaterThanOrEqual(200);
      expect(response.statusCode).toBeLessThan(300);
      expect(response.headers['trace-id']).toMatch(TRACE_ID_PATTERN);
      const operation = options.operation === undefined
        ? '"[^"]+"'
        : escapeRegExp(`"${options.operation}"`);
      expect(String(response.headers['ratelimit-policy']))
        .toMatch(new RegExp(`^${operation};q=\\d+;w=\\d+$`));
      expect(String(response.headers.ratelimit))
        .toMatch(new RegExp(`^${operation};r=\\d+;t=\\d+$`));
    });

    const { erroringRequest } = options;
    if (erroringRequest === undefined) return;

    it('repeats the Trace-Id header as traceId in an error body', async () => {
      const response = await inject(erroringRequest(await options.testKey()));
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      const traceId = response.headers['trace-id'];
      expect(traceId).toMatch(TRACE_ID_PATTERN);
      expect(response.json()).toEqual({ code: expect.any(String), message: expect.any(String),
        traceId });
    });

    it('returns 401 before looking at the input, with or without a well-formed key',
      async () => {
        const erroring = erroringRequest(UNKNOWN_KEY);
        expectRefused(await inject(withAuthorization(erroring, null)));
        expectRefused(await inject(withAuthorization(erroring, basicAuth(UNKNOWN_KEY))));
      });
  });
}
