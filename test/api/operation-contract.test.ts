// What every operation owes its callers (docs/auth.md, docs/errors.md,
// docs/limits.md), checked for every /v1 operation that openapi/openapi.json lists, so an
// operation is covered the day it is added:
// - every authentication failure is 401 with an empty body, a Basic challenge and a Trace-Id,
//   before the operation looks at its input: no key, a malformed key, a key issued to no one,
//   a key sent with a password;
// - every error has the body {code, message, traceId} whose traceId repeats the Trace-Id header;
//   a malformed request is refused with one;
// - accounts and environments stay apart: another account's key, and each environment's key for
//   the other environment's resources, get 404 NOT_FOUND for every resource the operation names,
//   and no answer to it names one of them (test/api/isolation.test.ts adds, per resource type,
//   that lists never show another's);
// - every answered request carries RateLimit and RateLimit-Policy naming its operation, and the
//   call after the key's limit is 429 RATE_LIMITED with Retry-After (every operation is limited
//   to RATE_LIMIT calls here).
// - nothing secret reaches the log, which is kept at trace level, the most detailed: no API key
//   or Authorization value, certificate password or key file, or webhook signing secret.
// The example request of each operation is built from the document and test/api/
// operation-examples.ts, which must have an entry for every operation.
import { Writable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/platform/accounts/keys.ts';
import { OPERATIONS } from '../../src/platform/operations.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import {
  readOperations,
  type Operation,
  type Parameter,
} from '../helpers/openapi-operations.ts';
import { TRACE_ID_PATTERN } from '../helpers/http.ts';
import { findSecrets, type Secret } from '../helpers/secrets.ts';
import {
  exampleAccount,
  exampleFor,
  EXAMPLES_APP_ENV,
  exampleParts,
  EXAMPLES,
  missingExample,
  operationName,
  PLACEHOLDER_RESOURCES,
  statusIn,
  LIVE_GRANT_POINTS,
  toInjectOptions,
  type RequestParts,
  type Resources,
} from './operation-examples.ts';

// Calls a key may make to one operation in the window. Low, so that every operation's limit is
// reached in a few calls; above the calls each test's caller makes to one operation before.
const RATE_LIMIT = 5;
// Long enough that no window ends during the file, so the call after the limit is refused.
const RATE_LIMIT_WINDOW_SECONDS = 3_600;
const ENVIRONMENTS: Environment[] = ['test', 'live'];
const OTHER: Record<Environment, Environment> = { test: 'live', live: 'test' };
// Well-formed (test_ plus 43 characters) but issued to no one.
const UNKNOWN_KEY = `test_${'x'.repeat(43)}`;

// Every operation gets RATE_LIMIT: the default and each operation with a policy of its own.
const RATE_LIMIT_OVERRIDES = JSON.stringify(Object.fromEntries([
  ['default', { limit: RATE_LIMIT, windowSeconds: RATE_LIMIT_WINDOW_SECONDS }],
  ...Object.entries(OPERATIONS).filter(([, row]) => 'rateLimit' in row)
    .map(([name]) => [name, { limit: RATE_LIMIT, windowSeconds: RATE_LIMIT_WINDOW_SECONDS }]),
]));

const OPERATIONS_OF_DOCUMENT = readOperations()
  .filter((operation) => operation.path.startsWith('/v1/'));

let app: TestApp;
const log: string[] = [];
const secrets = new Map<string, Secret>();

beforeAll(async () => {
  app = await createTestApp({
    jobs: true,
    logDestination: new Writable({ write(chunk, _encoding, done) {
      log.push(String(chunk));
      done();
    } }),
    env: { ...EXAMPLES_APP_ENV, LOG_LEVEL: 'trace', RATE_LIMIT_OVERRIDES },
  });
});
afterAll(async () => {
  await app?.close();
});

// The secrets a request sends or its answer shows: credentials, certificate passwords and key
// files, signing secrets. Fields shorter than a secret can be (a malformed example's "x") are
// not secrets.
const SECRET_FIELDS = new Set(['password', 'signPri', 'secret']);

function rememberSecrets(where: string, value: unknown) {
  if (typeof value !== 'object' || value === null) return;
  for (const [field, inner] of Object.entries(value)) {
    if (SECRET_FIELDS.has(field) && typeof inner === 'string' && inner.length >= 8) {
      secrets.set(inner, { label: `${where} ${field}`, value: inner });
    } else {
      rememberSecrets(where, inner);
    }
  }
}

function parsedJson(text: unknown): unknown {
  try {
    return typeof text === 'string' ? JSON.parse(text) : text;
  } catch {
    return null;
  }
}

// Every response carries a Trace-Id; an error body repeats it.
async function send(request: InjectOptions): Promise<LightMyRequestResponse> {
  const authorization = request.headers?.authorization;
  if (typeof authorization === 'string' && authorization.length >= 8) {
    secrets.set(authorization, { label: 'Authorization', value: authorization });
  }
  rememberSecrets(`${request.method} ${request.url}`, parsedJson(request.payload));
  const response = await app.server.inject(request);
  rememberSecrets(`the answer to ${request.method} ${request.url}`, parsedJson(response.body));
  const what = `${request.method} ${request.url} → ${response.statusCode}`;
  expect(response.headers['trace-id'], what).toMatch(TRACE_ID_PATTERN);
  if (response.statusCode >= 400 && response.statusCode !== 401) {
    expect(response.json(), `${what}: ${response.body}`).toEqual({
      code: expect.any(String), message: expect.any(String),
      traceId: response.headers['trace-id'],
    });
  }
  return response;
}

function expectRefused(response: LightMyRequestResponse, what: string) {
  expect(response.statusCode, what).toBe(401);
  expect(response.body, what).toBe('');
  expect(response.headers['www-authenticate'], what).toMatch(/^Basic realm="[^"]+"$/);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function expectRateLimitHeaders(response: LightMyRequestResponse, operation: string,
  what: string) {
  const name = escapeRegExp(`"${operation}"`);
  expect(String(response.headers['ratelimit-policy']), what)
    .toMatch(new RegExp(`^${name};q=${RATE_LIMIT};w=${RATE_LIMIT_WINDOW_SECONDS}$`));
  expect(String(response.headers.ratelimit), what).toMatch(new RegExp(`^${name};r=\\d+;t=\\d+$`));
}


// A request of the operation that validation refuses with 400, derived from the document: an
// unreadable JSON body, else a path parameter its pattern refuses, else a required query
// parameter below its minimum or of the wrong format. Null when the operation has no input.
function malformed(operation: Operation): RequestParts | null {
  const parts = exampleParts(operation, PLACEHOLDER_RESOURCES, 'test');
  if (operation.body !== null) return { ...parts, body: '{' };
  const path = operation.parameters.find((p) => p.in === 'path' && p.schema.pattern);
  if (path !== undefined) {
    // Short, so it is refused by validation, after authentication, not by the router.
    return exampleParts(operation, PLACEHOLDER_RESOURCES, 'test', { [path.name]: 'a.b' });
  }
  for (const query of operation.parameters.filter((p) => p.in === 'query')) {
    const value = refusedValue(query.schema);
    if (value !== null) return { ...parts, query: { ...parts.query, [query.name]: value } };
  }
  return null;
}

// A query value the schema refuses, or null when it accepts any text.
function refusedValue(schema: Parameter['schema']): string | null {
  if (schema.minimum !== undefined) return String(schema.minimum - 1);
  if (schema.maxLength !== undefined) return 'x'.repeat(schema.maxLength + 1);
  if (schema.enum !== undefined) return 'NOT_A_VALUE';
  if ((schema as { format?: string }).format === 'date') return 'not-a-date';
  return null;
}

type Erroring = { name: string; status: number; parts: RequestParts };

function erroringRequest(operation: Operation): Erroring | null {
  const example = exampleFor(operation);
  if (example.erroring === null) return null;
  if (example.erroring !== undefined) {
    return { name: example.erroring.name, status: example.erroring.status,
      parts: example.erroring.change(exampleParts(operation, PLACEHOLDER_RESOURCES, 'test')) };
  }
  const derived = malformed(operation);
  if (derived === null) throw new Error(`${missingExample(operation)}: it has no input to ` +
    'malform, so its entry needs an erroring request or erroring: null');
  return { name: 'a malformed request', status: 400, parts: derived };
}

// An account whose keys call one operation, with the resources its example names in both
// environments, made when a test first needs them.
type Caller = { accountId: string; keys: Record<Environment, string>;
  resources: Record<Environment, Resources> };

function newCaller(operation: Operation): Promise<Caller> {
  return exampleAccount(app, exampleFor(operation).uses ?? []);
}

// The path and header parameters that name a resource: the other environment's value of one
// must be as unknown as no resource at all. (A query filter by another environment's resource
// simply matches nothing; the example test checks that no answer names it.)
function resourceParameters(operation: Operation): string[] {
  return operation.parameters.filter((parameter) => parameter.in !== 'query' &&
    PLACEHOLDER_RESOURCES[parameter.name] !== undefined).map((parameter) => parameter.name);
}

// The resource ids of an environment, as they would appear in a response body.
const idsOf = (resources: Resources) => Object.values(resources);

describe('every operation of openapi/openapi.json', () => {
  it('has an example request in test/api/operation-examples.ts', () => {
    const missing = OPERATIONS_OF_DOCUMENT.filter((operation) =>
      EXAMPLES[operationName(operation)] === undefined).map(missingExample);
    expect(missing).toEqual([]);
  });

  it('is all test/api/operation-examples.ts has entries for', () => {
    const names = new Set(OPERATIONS_OF_DOCUMENT.map(operationName));
    expect(Object.keys(EXAMPLES).filter((name) => !names.has(name))).toEqual([]);
  });

  it('names an operation of the rate-limit and price table, each its own', () => {
    const named = Object.values(EXAMPLES).map((example) => example.operation);
    expect(named.filter((name) => !Object.hasOwn(OPERATIONS, name))).toEqual([]);
    expect(new Set(named).size).toBe(named.length);
  });
});

for (const operation of OPERATIONS_OF_DOCUMENT) {
  describe(`the contract of ${operationName(operation)}`, () => {
    if (EXAMPLES[operationName(operation)] === undefined) {
      it('has an example request', () => {
        throw new Error(missingExample(operation));
      });
      return;
    }
    const example = exampleFor(operation);
    // Requests refused or counted before the operation looks anything up name placeholders.
    const placeholderParts = () => exampleParts(operation, PLACEHOLDER_RESOURCES, 'test');

    it('returns 401 with an empty body, a challenge and a Trace-Id without a key, with a '
      + 'malformed key, with a key issued to no one and with a key sent with a password',
    async () => {
      const { keys } = await app.createAccount();
      const parts = placeholderParts();
      const withPassword = `Basic ${Buffer.from(`${keys.test}:secret`).toString('base64')}`;
      const refusals: Array<[string, string | null]> = [
        ['no key', null],
        ['a credential that is not base64', 'Basic !!!'],
        ['a key of another scheme', `Bearer ${keys.test}`],
        ['a key with an unknown prefix', basicAuth(`prod_${'x'.repeat(43)}`)],
        ['a key issued to no one', basicAuth(UNKNOWN_KEY)],
        ['a key with a password', withPassword],
      ];
      for (const [name, authorization] of refusals) {
        expectRefused(await send(toInjectOptions(parts, authorization)), name);
      }
    });

    // An operation without input (its entry says erroring: null) has no malformed request; its
    // error body is checked on the 429.
    if (example.erroring !== null) {
      it('returns 401 to a request it would refuse as malformed, before reading it',
        async () => {
          const erroring = erroringRequest(operation)!;
          expectRefused(await send(toInjectOptions(erroring.parts, null)),
            `${erroring.name}, no key`);
          expectRefused(await send(toInjectOptions(erroring.parts, basicAuth(UNKNOWN_KEY))),
            `${erroring.name}, an unknown key`);
        });

      it('refuses an erroring request with its status and {code, message, traceId} repeating '
        + 'the Trace-Id header', async () => {
        const erroring = erroringRequest(operation)!;
        const { keys } = await app.createAccount();
        const response = await send(toInjectOptions(erroring.parts, basicAuth(keys.test)));
        expect(response.statusCode, `${erroring.name}: ${response.body}`).toBe(erroring.status);
      });
    }

    // Only requests that name a resource (in the path or a header) can name another
    // account's or environment's; for lists, the next test checks that no answer names one.
    if (resourceParameters(operation).length > 0) {
      it('returns 404 NOT_FOUND to another account\'s keys and to each environment\'s key for '
        + 'the other environment\'s resources, and changes nothing', async () => {
        const caller = await newCaller(operation);
        // Another account, with points in both environments so that no price is what refuses it.
        const stranger = await app.createAccount();
        for (const environment of ENVIRONMENTS) {
          await app.platform.points.grant({ accountId: stranger.accountId, environment,
            points: LIVE_GRANT_POINTS });
        }
        for (const environment of ENVIRONMENTS) {
          // The caller's resources, asked for with the other account's key.
          const parts = exampleParts(operation, caller.resources[environment], environment);
          const response = await send(toInjectOptions(parts,
            basicAuth(stranger.keys[environment])));
          expect(response.statusCode, `another account's ${environment} key: ${response.body}`)
            .toBe(404);
          expect(response.json().code).toBe('NOT_FOUND');
        }
        for (const environment of ENVIRONMENTS) {
          // The other environment's resources, asked for with this environment's key.
          const parts = exampleParts(operation, caller.resources[OTHER[environment]],
            environment);
          const response = await send(toInjectOptions(parts, basicAuth(caller.keys[environment])));
          expect(response.statusCode, `${environment} key: ${response.body}`).toBe(404);
          expect(response.json().code).toBe('NOT_FOUND');
        }
        // The refusals changed nothing: each environment's own request still gets its answer.
        for (const environment of ENVIRONMENTS) {
          const parts = exampleParts(operation, caller.resources[environment], environment);
          const response = await send(toInjectOptions(parts, basicAuth(caller.keys[environment])));
          expect(response.statusCode, `${environment} key: ${response.body}`)
            .toBe(statusIn(example, environment));
        }
      });
    }

    it('answers the example request in each environment as its entry says, with RateLimit '
      + 'headers naming its operation and no id of the other environment', async () => {
      const caller = await newCaller(operation);
      for (const environment of ENVIRONMENTS) {
        const parts = exampleParts(operation, caller.resources[environment], environment);
        const response = await send(toInjectOptions(parts, basicAuth(caller.keys[environment])));
        const what = `${environment} key: ${response.body}`;
        expect(response.statusCode, what).toBe(statusIn(example, environment));
        expectRateLimitHeaders(response, example.operation, what);
        for (const id of idsOf(caller.resources[OTHER[environment]])) {
          expect(response.body, `${environment} key's answer names ${id}`).not.toContain(id);
        }
      }
    });

    it(`returns 429 RATE_LIMITED with Retry-After, RateLimit and RateLimit-Policy after ${
      RATE_LIMIT} calls of one key`, async () => {
      // A key with no calls yet. Its requests pass validation, so each is counted, whatever
      // the operation then answers about the placeholders they name.
      const { keys } = await app.createAccount();
      const parts = placeholderParts();
      for (let call = 1; call <= RATE_LIMIT; call += 1) {
        const response = await send(toInjectOptions(parts, basicAuth(keys.test)));
        expect(response.statusCode, `call ${call}: ${response.body}`).not.toBe(429);
        expect(response.statusCode, `call ${call}`).not.toBe(401);
        expectRateLimitHeaders(response, example.operation, `call ${call}`);
      }
      const refused = await send(toInjectOptions(parts, basicAuth(keys.test)));
      expect(refused.statusCode, refused.body).toBe(429);
      expect(refused.json().code).toBe('RATE_LIMITED');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(RATE_LIMIT_WINDOW_SECONDS);
      expectRateLimitHeaders(refused, example.operation, 'the refused call');
      expect(String(refused.headers.ratelimit)).toMatch(/;r=0;/);
    });
  });
}

// Runs after every operation's tests: the file's describes run in order.
describe('the log of every operation at trace level', () => {
  it('holds no API key, Authorization value, password, key file or signing secret', () => {
    expect(secrets.size).toBeGreaterThan(OPERATIONS_OF_DOCUMENT.length);
    expect([...secrets.values()].some((secret) => secret.label.endsWith('secret'))).toBe(true);
    expect([...secrets.values()].some((secret) => secret.label.endsWith('password'))).toBe(true);
    expect(app.platform.log.level).toBe('trace');
    const text = log.join('');
    // The log was written: failing upstreams are logged as errors.
    expect(text).toContain('"level":50');
    expect(findSecrets(text, [...secrets.values()])).toEqual([]);
  });
});
