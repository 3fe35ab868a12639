// Supplier eligibility with live keys: the public status service (here a fake whose answer a
// test sets) decides at every step, so a supplier that closes after a reverse issuance request
// was made cannot approve it; an unanswered lookup is allowed or refused as configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  StatusCheckResult,
  StatusOfNumber,
  TaxAuthority,
} from '../../../src/upstream/tax-authority/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { sendJson, startFakeServer, type FakeServer } from '../../helpers/fake-server.ts';
import { invoiceBody, issue, registerSupplier, SUPPLIER_NUMBER, type Supplier } from './helpers.ts';
import { decide, newRequest } from './reverse-helpers.ts';

const ACTIVE: StatusOfNumber = { status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' };
const CLOSED: StatusOfNumber = { status: 'CLOSED', closedOn: '2026-11-01', taxType: 'GENERAL' };

// The status the fake authority gives the supplier; null: it cannot answer.
let answer: StatusOfNumber | null = ACTIVE;
const authority: TaxAuthority = {
  async checkStatuses(numbers): Promise<StatusCheckResult> {
    if (answer === null) return { kind: 'unavailable' };
    return { kind: 'answered', results: new Map(numbers.map((number) => [number, answer!])) };
  },
};

let gateway: FakeServer;
const apps: TestApp[] = [];

async function liveApp(env: Record<string, string> = {}) {
  const app = await createTestApp({ jobs: true, liveTaxAuthority: authority, env: {
    TAX_INVOICE_GATEWAY_URL: `${gateway.origin}/`, TAX_INVOICE_NTS_SYSTEM_CODE: '41000008',
    TAX_INVOICE_SUPPLIER_STATUS_CACHE_SECONDS: '0',
    ...env } });
  apps.push(app);
  const account = await app.createAccount();
  await app.platform.points.grant({ accountId: account.accountId, environment: 'live',
    points: 1_000 });
  const supplier: Supplier = await registerSupplier(app, account.keys.live);
  return { app, key: account.keys.live, supplier };
}

beforeAll(async () => {
  gateway = await startFakeServer((_incoming, response) => sendJson(response, 200,
    JSON.stringify({ result: 'REJECTED', code: 'TEST', message: 'not transmitted' })));
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await gateway?.close();
});

describe('live keys', () => {
  it('refuses the approval of a request once the supplier has closed, and approves it while ' +
    'active', async () => {
    const { app, key, supplier } = await liveApp();
    answer = ACTIVE;
    const first = await newRequest(app, key, supplier.supplierKey);
    const second = await newRequest(app, key, supplier.supplierKey);
    answer = CLOSED;
    const refused = expectError(await decide(app, key, first, 'approve',
      { supplierKey: supplier.supplierKey }), 409, 'SUPPLIER_CLOSED');
    expect(refused.message).toContain(`${SUPPLIER_NUMBER} was closed (폐업) on 2026-11-01`);
    answer = ACTIVE;
    const approved = await decide(app, key, second, 'approve',
      { supplierKey: supplier.supplierKey });
    expect(approved.statusCode, approved.body).toBe(200);
  });

  it('answers 503 LOOKUP_UNAVAILABLE when the authority is silent and the server refuses then',
    async () => {
      const { app, key, supplier } = await liveApp({
        TAX_INVOICE_SUPPLIER_STATUS_UNAVAILABLE: 'refuse' });
      answer = null;
      expectError(await issue(app, key, supplier.supplierKey, invoiceBody()), 503,
        'LOOKUP_UNAVAILABLE');
      answer = ACTIVE;
      expect((await issue(app, key, supplier.supplierKey, invoiceBody())).statusCode).toBe(200);
    });

  it('keeps test keys on the sandbox whatever the live authority says', async () => {
    const app = apps[0]!;
    answer = CLOSED;
    const account = await app.createAccount();
    const own = await registerSupplier(app, account.keys.test);
    const response = await issue(app, account.keys.test, own.supplierKey, invoiceBody());
    expect(response.statusCode, response.body).toBe(200);
  });
});
