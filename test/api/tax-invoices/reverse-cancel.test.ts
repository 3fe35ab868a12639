// PUT /v1/taxInvoices/{issuanceKey}/issueRequest/cancel: no body, 200
// {issuanceKey}, the points refunded; a request already approved, canceled or issued is one of
// the two 409s (ISSUE_REQUEST_ALREADY_APPROVED, ISSUE_REQUEST_ALREADY_CANCELED) with a message
// that names its status; an unknown key, another scope's key or a STANDARD invoice is 404. No
// error changes anything. Every status has its row in the table of the two errors.
import { describe, expect, it } from 'vitest';
import { TAX_INVOICE_STATUSES } from '../../../src/areas/tax-invoices/schemas.ts';
import { closedRequestError } from '../../../src/areas/tax-invoices/reverse-issuance/decisions.ts';
import { expectError } from '../../helpers/errors.ts';
import { expectLedgerConsistent, ledgerSnapshot } from '../../helpers/ledger-audit.ts';
import {
  getInvoice,
  issue,
  useSupplierAccount,
  request,
  waitForStatus,
  type Supplier,
} from './helpers.ts';
import {
  actorsOf,
  cancel,
  createReverseTestApp,
  decide,
  newRequest,
  type ReverseTestApp,
} from './reverse-helpers.ts';

let app: ReverseTestApp;
let key: string;
let liveKey: string;
let accountId: string;
let supplier: Supplier;

useSupplierAccount({ createApp: createReverseTestApp, name: 'Buyer' }, (made) => {
  ({ app, key, liveKey, accountId, supplier } = made);
});

const snapshot = () => ledgerSnapshot(app.platform.database.db, accountId, 'test');
const newRequestOf = () => newRequest(app, key, supplier.supplierKey);
const raw = (issuanceKey: string, headers: Record<string, string>, payload?: string) =>
  app.server.inject({ method: 'PUT', url: `/v1/taxInvoices/${issuanceKey}/issueRequest/cancel`,
    headers: { ...request(key, 'GET', '/').headers, ...headers },
    ...(payload === undefined ? {} : { payload }) });

// Runs `act`, which must answer an error, and checks that nothing changed.
async function expectUnchanged(issuanceKey: string, act: () => Promise<void>) {
  const before = { invoice: await getInvoice(app, key, issuanceKey), ledger: await snapshot() };
  await act();
  const after = await getInvoice(app, key, issuanceKey);
  expect({ status: after.status, updatedAt: after.updatedAt })
    .toEqual({ status: before.invoice.status, updatedAt: before.invoice.updatedAt });
  expect(await snapshot()).toEqual(before.ledger);
}

describe('happy', () => {
  it('returns 200 {issuanceKey}, REQUEST_CANCELED by API, and refunds the 100 points',
    async () => {
      const before = await snapshot();
      const issuanceKey = await newRequestOf();
      const response = await cancel(app, key, issuanceKey);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ issuanceKey });
      expect((await getInvoice(app, key, issuanceKey)).status).toBe('REQUEST_CANCELED');
      expect(await actorsOf(app, issuanceKey)).toEqual(['REQUESTED:API', 'REQUEST_CANCELED:API']);
      const after = await snapshot();
      expect(after.postedPoints).toBe(before.postedPoints);
      expect(after.reservedPoints).toBe(0);
      // The charge and its refund.
      expect(after.ledgerEntryCount - before.ledgerEntryCount).toBe(2);
      await expectLedgerConsistent(app.platform, accountId, 'test');
    });

  it.each([
    ['no body at all', {}, undefined],
    ['a zero-length body sent as JSON', { 'content-type': 'application/json' }, ''],
    ['an empty JSON object', { 'content-type': 'application/json' }, '{}'],
  ])('returns 200 for %s', async (_name, headers, payload) => {
    const issuanceKey = await newRequestOf();
    const response = await raw(issuanceKey, headers, payload);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ issuanceKey });
  });
});

describe('errors', () => {
  it('returns 409 ISSUE_REQUEST_ALREADY_CANCELED naming REQUEST_CANCELED to a second cancel',
    async () => {
      const issuanceKey = await newRequestOf();
      await cancel(app, key, issuanceKey);
      await expectUnchanged(issuanceKey, async () => {
        const error = expectError(await cancel(app, key, issuanceKey), 409,
          'ISSUE_REQUEST_ALREADY_CANCELED');
        expect(error.message).toContain('REQUEST_CANCELED');
      });
    });

  it('returns 409 ISSUE_REQUEST_ALREADY_CANCELED naming REFUSED after a refusal', async () => {
    const issuanceKey = await newRequestOf();
    await decide(app, key, issuanceKey, 'refuse', { supplierKey: supplier.supplierKey });
    await expectUnchanged(issuanceKey, async () => {
      const error = expectError(await cancel(app, key, issuanceKey), 409,
        'ISSUE_REQUEST_ALREADY_CANCELED');
      expect(error.message).toContain('REFUSED');
    });
  });

  it('returns 409 ISSUE_REQUEST_ALREADY_APPROVED once approved, and naming TRANSMITTED later',
    async () => {
      const issuanceKey = await newRequestOf();
      await decide(app, key, issuanceKey, 'approve', { supplierKey: supplier.supplierKey });
      const early = expectError(await cancel(app, key, issuanceKey), 409,
        'ISSUE_REQUEST_ALREADY_APPROVED');
      expect(early.message).toMatch(/is (APPROVED|ISSUED|TRANSMITTING|TRANSMITTED):/);
      await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
      await expectUnchanged(issuanceKey, async () => {
        const late = expectError(await cancel(app, key, issuanceKey), 409,
          'ISSUE_REQUEST_ALREADY_APPROVED');
        expect(late.message).toContain('TRANSMITTED');
      });
    });

  it('returns 400 INVALID_REQUEST for a body with content, and cancels nothing', async () => {
    const issuanceKey = await newRequestOf();
    await expectUnchanged(issuanceKey, async () => {
      const error = expectError(await cancel(app, key, issuanceKey,
        { body: { reason: 'changed my mind' } }), 400, 'INVALID_REQUEST');
      expect(error.message).toMatch(/no body/);
      expectError(await raw(issuanceKey, { 'content-type': 'application/json' }, '[]'), 400,
        'INVALID_REQUEST');
      expectError(await raw(issuanceKey, { 'content-type': 'application/json' }, '{'), 400,
        'INVALID_REQUEST');
      expectError(await raw(issuanceKey, { 'content-type': 'text/plain' }, 'cancel'), 415,
        'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  it('returns 404 NOT_FOUND for an unknown key and for a STANDARD invoice', async () => {
    expectError(await cancel(app, key, 'txi_unknown'), 404, 'NOT_FOUND');
    const issued = (await issue(app, key, supplier.supplierKey)).json() as
      { issuanceKey: string };
    await expectUnchanged(issued.issuanceKey, async () => {
      expectError(await cancel(app, key, issued.issuanceKey), 404, 'NOT_FOUND');
    });
  });
});

describe('security', () => {
  it('returns 404 NOT_FOUND to another account and to the live key of the same account',
    async () => {
      const issuanceKey = await newRequestOf();
      const other = await app.platform.accounts.createAccount({ name: 'Other', plan: 'FREE' });
      await expectUnchanged(issuanceKey, async () => {
        expectError(await cancel(app, other.keys.test, issuanceKey), 404, 'NOT_FOUND');
        expectError(await cancel(app, liveKey, issuanceKey), 404, 'NOT_FOUND');
      });
    });
});

describe('the two errors, by status', () => {
  const expected: Record<string, string> = {
    REFUSED: 'ISSUE_REQUEST_ALREADY_CANCELED',
    REQUEST_CANCELED: 'ISSUE_REQUEST_ALREADY_CANCELED',
    APPROVED: 'ISSUE_REQUEST_ALREADY_APPROVED',
    ISSUED: 'ISSUE_REQUEST_ALREADY_APPROVED',
    TRANSMITTING: 'ISSUE_REQUEST_ALREADY_APPROVED',
    TRANSMITTED: 'ISSUE_REQUEST_ALREADY_APPROVED',
    CANCELED: 'ISSUE_REQUEST_ALREADY_APPROVED',
    FAILED: 'ISSUE_REQUEST_ALREADY_APPROVED',
  };

  const decided = TAX_INVOICE_STATUSES.filter((status) => status !== 'REQUESTED' &&
    status !== 'PENDING');

  it.each(decided)('answers a request in %s with its error, naming the status', (status) => {
    const error = closedRequestError(status, 'canceled');
    expect(error.code).toBe(expected[status]);
    expect(error.status).toBe(409);
    expect(error.message).toContain(`is ${status}:`);
  });
});

