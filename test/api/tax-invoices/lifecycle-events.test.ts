// The webhook events of reverse issuance and amendments (docs/webhooks.md § Event types): each
// transition records its event once, with its payload, in the transaction that makes it; a
// request that is refused with an error, or a decision that loses, records nothing.
import { and, asc, eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { webhookEvents } from '../../../src/areas/webhooks/tables.ts';
import { addDays, vatReturnDeadline } from '../../../src/domain/business-days.ts';
import { expectError } from '../../helpers/errors.ts';
import {
  amend,
  useSupplierAccount,
  invoiceBody,
  issueTransmitted,
  today,
  waitForStatus,
  type Supplier,
} from './helpers.ts';
import {
  cancel,
  createReverseTestApp,
  decide,
  newRequest,
  requestReverse,
  type ReverseTestApp,
} from './reverse-helpers.ts';

let app: ReverseTestApp;
let key: string;
let accountId: string;
let supplier: Supplier;

useSupplierAccount({ createApp: createReverseTestApp, name: 'Buyer' }, (made) => {
  ({ app, key, accountId, supplier } = made);
});
beforeEach(() => {
  app.clock.offsetMs = 0;
});

const LIFECYCLE_TYPES = new Set(['TAX_INVOICE_REVERSE_ISSUANCE_REQUESTED',
  'TAX_INVOICE_REVERSE_ISSUANCE_APPROVED', 'TAX_INVOICE_REVERSE_ISSUANCE_REFUSED',
  'TAX_INVOICE_REVERSE_ISSUANCE_CANCELED', 'TAX_INVOICE_AMENDMENT_ISSUED']);

// The reverse issuance and amendment events of the account that name this document, oldest
// first.
async function eventsAbout(issuanceKey: string) {
  const rows = await app.platform.database.db.select().from(webhookEvents)
    .where(and(eq(webhookEvents.accountId, accountId), eq(webhookEvents.environment, 'test')))
    .orderBy(asc(webhookEvents.sequence));
  return rows.filter((row) => LIFECYCLE_TYPES.has(row.type) &&
    JSON.stringify(row.data).includes(issuanceKey))
    .map((row) => ({ type: row.type, data: row.data }));
}

const requested = async (issuanceKey: string) => {
  const [event] = await eventsAbout(issuanceKey);
  expect(event?.type).toBe('TAX_INVOICE_REVERSE_ISSUANCE_REQUESTED');
  return event!;
};

describe('reverse issuance', () => {
  it('records REQUESTED with the issue deadline, then APPROVED, once each', async () => {
    const issuanceKey = await newRequest(app, key, supplier.supplierKey);
    const { data } = await requested(issuanceKey);
    expect(data).toEqual({ issuanceKey,
      issueDeadline: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
    expect((await decide(app, key, issuanceKey, 'approve',
      { supplierKey: supplier.supplierKey })).statusCode).toBe(200);
    expectError(await decide(app, key, issuanceKey, 'approve',
      { supplierKey: supplier.supplierKey }), 409, 'ISSUE_REQUEST_ALREADY_APPROVED');
    await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
    expect(await eventsAbout(issuanceKey)).toEqual([
      { type: 'TAX_INVOICE_REVERSE_ISSUANCE_REQUESTED', data },
      { type: 'TAX_INVOICE_REVERSE_ISSUANCE_APPROVED', data: { issuanceKey } },
    ]);
  });

  it('records REFUSED with the reason, or null without one, and nothing for a second refusal',
    async () => {
      const withReason = await newRequest(app, key, supplier.supplierKey);
      const withoutReason = await newRequest(app, key, supplier.supplierKey);
      expect((await decide(app, key, withReason, 'refuse', { supplierKey: supplier.supplierKey,
        body: { reason: '수량 오류' } })).statusCode).toBe(200);
      expect((await decide(app, key, withoutReason, 'refuse',
        { supplierKey: supplier.supplierKey })).statusCode).toBe(200);
      expectError(await decide(app, key, withReason, 'refuse',
        { supplierKey: supplier.supplierKey }), 409, 'ISSUE_REQUEST_ALREADY_CANCELED');
      expect((await eventsAbout(withReason)).slice(1)).toEqual([{
        type: 'TAX_INVOICE_REVERSE_ISSUANCE_REFUSED',
        data: { issuanceKey: withReason, reason: '수량 오류' } }]);
      expect((await eventsAbout(withoutReason)).slice(1)).toEqual([{
        type: 'TAX_INVOICE_REVERSE_ISSUANCE_REFUSED',
        data: { issuanceKey: withoutReason, reason: null } }]);
    });

  it('records CANCELED once; a cancel after it or an approval after it records nothing',
    async () => {
      const issuanceKey = await newRequest(app, key, supplier.supplierKey);
      expect((await cancel(app, key, issuanceKey)).statusCode).toBe(200);
      expectError(await cancel(app, key, issuanceKey), 409, 'ISSUE_REQUEST_ALREADY_CANCELED');
      expectError(await decide(app, key, issuanceKey, 'approve',
        { supplierKey: supplier.supplierKey }), 409, 'ISSUE_REQUEST_ALREADY_CANCELED');
      expect((await eventsAbout(issuanceKey)).slice(1)).toEqual([{
        type: 'TAX_INVOICE_REVERSE_ISSUANCE_CANCELED', data: { issuanceKey } }]);
    });

  it('records nothing for an approval after the deadline, or a request refused as invalid',
    async () => {
      const issuanceKey = await newRequest(app, key, supplier.supplierKey);
      // 01:00 in Seoul on the day after the late-issuance limit of today's write date.
      const limit = vatReturnDeadline(today())!;
      app.clock.offsetMs = Date.parse(`${addDays(limit, 1)}T01:00:00+09:00`) - Date.now();
      expectError(await decide(app, key, issuanceKey, 'approve',
        { supplierKey: supplier.supplierKey }), 409, 'ISSUE_DEADLINE_PASSED');
      expect(await eventsAbout(issuanceKey)).toHaveLength(1);
      app.clock.offsetMs = 0;
      const before = await eventsAbout('');
      const invalid = await requestReverse(app, key, supplier.supplierKey,
        invoiceBody({ date: '2020-01-01' }));
      expect(invalid.statusCode).toBe(400);
      expect(await eventsAbout('')).toEqual(before);
    });
});

describe('amendments', () => {
  it('records AMENDMENT_ISSUED once with the new documents; a refused amendment records nothing',
    async () => {
      const original = await issueTransmitted(app, key, supplier.supplierKey);
      const terminate = () => amend(app, key, supplier.supplierKey,
        { issuanceKey: original.issuanceKey, reason: 'termination', body: { date: today() } });
      const accepted = await terminate();
      expect(accepted.statusCode, accepted.body).toBe(200);
      const { issuanceKey } = accepted.json() as { issuanceKey: string };
      expectError(await terminate(), 409, 'TAX_INVOICE_ALREADY_AMENDED');
      expect(await eventsAbout(original.issuanceKey)).toEqual([{
        type: 'TAX_INVOICE_AMENDMENT_ISSUED',
        data: { originalIssuanceKey: original.issuanceKey, reason: 'TERMINATION',
          issuanceKeys: [issuanceKey] } }]);
    });

  it('lists both documents of an entry correction in order', async () => {
    const original = await issueTransmitted(app, key, supplier.supplierKey);
    const corrected = invoiceBody();
    corrected.supplied.organizationName = '주식회사 받는곳 (정정)';
    const response = await amend(app, key, supplier.supplierKey, {
      issuanceKey: original.issuanceKey, reason: 'entryCorrection',
      body: { invoice: corrected } });
    expect(response.statusCode, response.body).toBe(200);
    const { issuanceKeys } = response.json() as { issuanceKeys: string[] };
    expect(await eventsAbout(original.issuanceKey)).toEqual([{
      type: 'TAX_INVOICE_AMENDMENT_ISSUED',
      data: { originalIssuanceKey: original.issuanceKey, reason: 'ENTRY_CORRECTION',
        issuanceKeys } }]);
  });
});
