// Hostile input never breaks the API: every operation of openapi/openapi.json gets boundary
// values, wrong types, missing and extra fields, huge strings, deep nesting, invalid UTF-8,
// wrong content types and path segments with encoded slashes, dots, SQL and HTML (built by
// test/helpers/hostile-requests.ts from the document itself). Every answer must be a status the
// document lists for that operation, or one the platform documents for every route (401, 404,
// 405, 413, 415, 429, docs/errors.md); never 500; errors carry {code, message, traceId} with
// the Trace-Id header, 401 carries nothing. The valid values each case starts from charge
// nothing (sandbox not-found and unavailable values), so the balance and the ledger must be
// exactly as before.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { hostileRequests, type HostileRequest } from '../helpers/hostile-requests.ts';
import { expectLedgerConsistent, ledgerSnapshot } from '../helpers/ledger-audit.ts';
import { readOperations, type Operation } from '../helpers/openapi-operations.ts';
import { TRACE_ID_PATTERN } from '../helpers/route-contract.ts';

const PLATFORM_STATUSES = [401, 404, 405, 413, 415, 429];
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

let app: TestApp;
let accountId = '';
let testKey = '';
const ids = { eventId: '', endpointIds: new Map<string, string>() };

async function createEndpoint(): Promise<string> {
  const response = await app.server.inject({
    method: 'POST', url: '/v1/webhookEndpoints',
    headers: { authorization: basicAuth(testKey), 'content-type': 'application/json' },
    payload: { url: 'http://127.0.0.1:9/hooks', events: ['TAX_INVOICE_ISSUANCE_SUCCESS'] },
  });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { id: string }).id;
}

beforeAll(async () => {
  app = await createTestApp({ env: { RATE_LIMIT_OVERRIDES } });
  const account = await app.createAccount();
  accountId = account.accountId;
  testKey = account.keys.test;
  const event = await app.webhooks.recordEvent(app.platform.database.db,
    { accountId, environment: 'test' }, {
      type: 'TAX_INVOICE_ISSUANCE_SUCCESS',
      data: { issuanceKey: 'iss_1', taxInvoiceUrl: 'https://example.com/invoices/iss_1' },
    });
  ids.eventId = event.id;
  // Each operation on an endpoint gets its own, so one that deletes or changes it leaves the
  // others their valid starting point.
  for (const operation of readOperations()) {
    if (operation.path.includes('{endpointId}')) {
      ids.endpointIds.set(operation.operationId, await createEndpoint());
    }
  }
});
afterAll(async () => {
  await app?.close();
});

function validRequest(operation: Operation): Valid {
  const bodies: Record<string, unknown> = {
    bulkInquireBankAccountHolders: { accounts: [NO_HOLDER_ACCOUNT] },
    inquireBankAccountHolder: NO_HOLDER_ACCOUNT,
    bulkInquireBusinessRegistrationStatuses: {
      businessRegistrationNumbers: [UNREACHABLE_AUTHORITY],
    },
    createWebhookEndpoint: { url: 'http://127.0.0.1:9/x', events: ['TAX_INVOICE_ISSUANCE_FAILURE'] },
    updateWebhookEndpoint: { description: 'changed' },
    rotateWebhookEndpointSecret: { overlapSeconds: 0 },
    resendWebhookEvent: { eventId: ids.eventId },
  };
  const brn = operation.operationId === 'retrieveBusinessProfile'
    ? NOT_FOUND_PROFILE : UNREACHABLE_AUTHORITY;
  return {
    path: {
      businessRegistrationNumber: brn,
      endpointId: ids.endpointIds.get(operation.operationId) ?? '',
      eventId: ids.eventId,
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

async function violationsOf(requests: HostileRequest[], allowed: number[]) {
  const found: string[] = [];
  for (const request of requests) {
    const problem = violation(await send(request), allowed);
    if (problem !== null) found.push(`${request.method} ${request.label}: ${problem}`);
  }
  return found;
}

describe('hostile input to every operation', () => {
  for (const operation of readOperations()) {
    const name = `${operation.method} ${operation.path}`;
    const allowed = [...operation.statuses, ...PLATFORM_STATUSES];

    it(`answers every hostile request to ${name} with a documented status and error body`,
      async () => {
        const before = await ledgerSnapshot(app.platform.database.db, accountId, 'test');
        const headers: Record<string, string> = operation.authenticated
          ? { authorization: basicAuth(testKey) } : {};
        const requests = hostileRequests(operation, validRequest(operation), headers);
        expect(requests.length).toBeGreaterThan(20);
        expect(await violationsOf(requests, allowed)).toEqual([]);
        expect(await ledgerSnapshot(app.platform.database.db, accountId, 'test')).toEqual(before);
        await expectLedgerConsistent(app.platform, accountId, 'test');
      });

    if (!operation.authenticated) continue;
    it(`refuses every hostile request to ${name} without a key before reading it`, async () => {
      const requests = hostileRequests(operation, validRequest(operation), {});
      expect(await violationsOf(requests, UNAUTHENTICATED_STATUSES)).toEqual([]);
    });
  }
});
