// Hostile input never breaks the API: every operation of openapi/openapi.json gets boundary
// values, wrong types, missing and extra fields, huge strings, deep nesting, invalid UTF-8,
// wrong content types and path segments with encoded slashes, dots, SQL and HTML (built by
// test/helpers/hostile-requests.ts from the document itself). Every answer must be a status the
// document lists for that operation, or one the platform documents for every route (401, 404,
// 405, 413, 415, 429, docs/errors.md); never 500; errors carry {code, message, traceId} with
// the Trace-Id header, 401 carries nothing. Each case is sent with a test key and a funded live
// key (reaching the sandbox and the profile store). The valid values each case starts from charge
// nothing (not-found and unavailable values in both environments), so the balances and ledgers
// must be exactly as before.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { hostileRequests, type HostileRequest } from '../helpers/hostile-requests.ts';
import { expectLedgerConsistent, ledgerSnapshot } from '../helpers/ledger-audit.ts';
import { readOperations, type Operation } from '../helpers/openapi-operations.ts';
import { TRACE_ID_PATTERN } from '../helpers/http.ts';

const PLATFORM_STATUSES = [401, 404, 405, 413, 415, 429];
const INTERNAL_ERROR_STATUS = 500;
// Statuses an unauthenticated request may get: refused, or answered from the URL alone
// (malformed URL or over-long path parameter 400, no such route 404, docs/errors.md).
const UNAUTHENTICATED_STATUSES = [400, 401, 404];
// Generous limits, so that every case reaches validation and the handler instead of 429.
const RATE_LIMIT_OVERRIDES = JSON.stringify({
  default: { limit: 1_000_000, windowSeconds: 60 },
  'businesses.profiles.retrieve': { limit: 1_000_000, windowSeconds: 60 },
});

// Values each operation accepts that lead to an outcome without a charge: a profile that does
// not exist (404), a tax authority that cannot be reached (503), an account with no holder.
const NOT_FOUND_PROFILE = '999-99-00039';
const UNREACHABLE_AUTHORITY = '999-99-01116';
const NO_HOLDER_ACCOUNT = { bankCode: '004', accountNumber: '9990000002' };

type Valid = { path: Record<string, string>; query: Record<string, string>; body: unknown };

// Live keys need https; private targets let both environments use a local address.
const ENDPOINT_URL = 'https://127.0.0.1:9/hooks';
// Enough live points that reservations pass and hostile values reach the live adapters and the
// profile store.
const LIVE_GRANT_POINTS = 1_000_000;
const ENVIRONMENTS = ['test', 'live'] as const;
type Env = (typeof ENVIRONMENTS)[number];

let app: TestApp;
let accountId = '';
let keys: Record<Env, string>;
// Per environment: an event, and one endpoint for each operation on an endpoint, so that one
// that deletes or changes its endpoint leaves the others their valid starting point.
const eventIds = new Map<Env, string>();
const endpointIds = new Map<string, string>();

async function createEndpoint(environment: Env): Promise<string> {
  const response = await app.server.inject({
    method: 'POST', url: '/v1/webhookEndpoints',
    headers: { authorization: basicAuth(keys[environment]), 'content-type': 'application/json' },
    payload: { url: ENDPOINT_URL, events: ['TAX_INVOICE_ISSUANCE_SUCCESS'] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { id: string }).id;
}

beforeAll(async () => {
  // The job queues exist, as on every server, so a case the operation accepts (a test event
  // sent with an unknown query parameter) queues its work; workers are off, so none runs.
  app = await createTestApp({
    jobs: true,
    env: { RATE_LIMIT_OVERRIDES, WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true',
      WORKERS_ENABLED: 'false' },
  });
  const account = await app.createAccount();
  accountId = account.accountId;
  keys = account.keys;
  await app.platform.points.grant({ accountId, environment: 'live', points: LIVE_GRANT_POINTS });
  for (const environment of ENVIRONMENTS) {
    const event = await app.webhooks.recordEvent(app.platform.database.db,
      { accountId, environment }, {
        type: 'TAX_INVOICE_ISSUANCE_SUCCESS',
        data: { issuanceKey: 'iss_1', taxInvoiceUrl: 'https://example.com/invoices/iss_1' },
      });
    eventIds.set(environment, event.id);
    for (const operation of readOperations()) {
      if (operation.path.includes('{endpointId}')) {
        const endpointId = await createEndpoint(environment);
        endpointIds.set(`${environment} ${operation.operationId}`, endpointId);
      }
    }
  }
});
afterAll(async () => {
  console.log(`hostile-input walk: ${sentCount} requests to ${readOperations().length} operations`);
  await app?.close();
});

function validRequest(operation: Operation, environment: Env): Valid {
  const bodies: Record<string, unknown> = {
    bulkInquireBankAccountHolders: { accounts: [NO_HOLDER_ACCOUNT] },
    inquireBankAccountHolder: NO_HOLDER_ACCOUNT,
    bulkInquireBusinessRegistrationStatuses: {
      businessRegistrationNumbers: [UNREACHABLE_AUTHORITY],
    },
    createWebhookEndpoint: { url: 'http://127.0.0.1:9/x', events: ['TAX_INVOICE_ISSUANCE_FAILURE'] },
    updateWebhookEndpoint: { description: 'changed' },
    rotateWebhookEndpointSecret: { overlapSeconds: 0 },
    resendWebhookEvent: { eventId: eventIds.get(environment) },
  };
  const brn = operation.operationId === 'retrieveBusinessProfile'
    ? NOT_FOUND_PROFILE : UNREACHABLE_AUTHORITY;
  return {
    path: {
      businessRegistrationNumber: brn,
      endpointId: endpointIds.get(`${environment} ${operation.operationId}`) ?? '',
      eventId: eventIds.get(environment)!,
    },
    query: operation.operationId === 'searchBusinessProfiles'
      ? { query: 'nomatchzzz', limit: '20' } : {},
    body: bodies[operation.operationId] ?? null,
  };
}

async function send(request: HostileRequest): Promise<LightMyRequestResponse> {
  return app.server.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    payload: request.payload,
  });
}

// What is wrong with a response, or null when it keeps the contract.
function violation(response: LightMyRequestResponse, allowed: number[]): string | null {
  const status = response.statusCode;
  if (!allowed.includes(status)) return `status ${status} is not documented: ${response.body}`;
  if (status === 401) return response.body === '' ? null : '401 has a body';
  if (status < 400) return null;
  const traceId = response.headers['trace-id'];
  if (typeof traceId !== 'string' || !TRACE_ID_PATTERN.test(traceId)) return 'no Trace-Id';
  let body: unknown;
  try {
    body = response.json();
  } catch {
    return `error body is not JSON: ${response.body.slice(0, 80)}`;
  }
  const { code, message, traceId: bodyTraceId, ...rest } = body as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string') return 'no code or message';
  if (bodyTraceId !== traceId) return 'traceId differs from the Trace-Id header';
  if (Object.keys(rest).length > 0) return `extra fields ${Object.keys(rest).join(', ')}`;
  return null;
}

// Requests sent by the whole walk, printed at its end.
let sentCount = 0;

async function violationsOf(requests: HostileRequest[],
  allowed: (request: HostileRequest) => number[]) {
  const found: string[] = [];
  sentCount += requests.length;
  for (const request of requests) {
    const problem = violation(await send(request), allowed(request));
    if (problem !== null) found.push(`${request.method} ${request.label}: ${problem}`);
  }
  return found;
}

async function snapshots() {
  return Promise.all(ENVIRONMENTS.map((environment) =>
    ledgerSnapshot(app.platform.database.db, accountId, environment)));
}

const OPERATIONS = readOperations();

describe('hostile input to every operation', () => {
  for (const operation of OPERATIONS) {
    const name = `${operation.method} ${operation.path}`;
    // A request sent with another method reaches that method's operation when the path has one.
    // 500 is documented for every operation, as what a bug looks like; hostile input must
    // never find one.
    const allowed = (request: HostileRequest) => {
      const reached = OPERATIONS.find((other) => other.path === operation.path &&
        other.method === request.method) ?? operation;
      return [...reached.statuses, ...PLATFORM_STATUSES]
        .filter((status) => status !== INTERNAL_ERROR_STATUS);
    };

    it(`answers every hostile request to ${name} with a documented status and error body`,
      async () => {
        const before = await snapshots();
        for (const environment of ENVIRONMENTS) {
          const headers: Record<string, string> = operation.authenticated
            ? { authorization: basicAuth(keys[environment]) } : {};
          const requests = hostileRequests(operation, validRequest(operation, environment),
            headers);
          expect(requests.length).toBeGreaterThan(20);
          expect(await violationsOf(requests, allowed), environment).toEqual([]);
        }
        expect(await snapshots()).toEqual(before);
        for (const environment of ENVIRONMENTS) {
          await expectLedgerConsistent(app.platform, accountId, environment);
        }
      });

    if (!operation.authenticated) continue;
    it(`refuses every hostile request to ${name} without a key before reading it`, async () => {
      const requests = hostileRequests(operation, validRequest(operation, 'test'), {});
      expect(await violationsOf(requests, () => UNAUTHENTICATED_STATUSES)).toEqual([]);
    });
  }
});
