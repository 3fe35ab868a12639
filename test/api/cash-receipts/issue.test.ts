// Accepting cash receipts: 202 with an issuanceKey, every validation rule with a failing example
// (nothing recorded, nothing charged), and Service-Client-Reference-Id's replay-or-conflict rule:
// the same request replays its issuanceKey, other content or the other request type is 409
// IDEMPOTENCY_CONFLICT, and reference ids are per key, independent of tax invoices'.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, seoulDate } from '../../../src/domain/business-days.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { invoiceBody, registerSupplier } from '../tax-invoices/helpers.ts';
import {
  accepted,
  cancelReceipt,
  createMerchantAccount,
  getReceipt,
  issueReceipt,
  receiptBody,
  referenceId,
  request,
  today,
  type MerchantAccount,
} from './helpers.ts';

let app: TestApp;
let merchant: MerchantAccount;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
  merchant = await createMerchantAccount(app);
});
afterAll(async () => {
  await app?.close();
});

const balance = (accountId = merchant.accountId) =>
  app.platform.points.getBalance({ accountId, environment: 'test' });

async function receiptsWith(reference: string): Promise<number> {
  const result = await app.platform.database.pool.query(
    'select count(*)::int as count from cash_receipts where client_reference_id = $1',
    [reference]);
  return result.rows[0].count as number;
}

const issue = (body: unknown, reference?: string) =>
  issueReceipt(app, merchant.key, merchant.supplierKey, body, reference);

describe('issuance', () => {
  it('answers 202 with an issuanceKey, records the receipt ACCEPTED and charges 10 points',
    async () => {
      const before = await balance();
      const reference = referenceId();
      const issuanceKey = await accepted(await issue(receiptBody({
        customer: { name: '김고객', email: 'customer@example.com' } }), reference));
      expect(issuanceKey).toMatch(/^csr_/);
      const receipt = await getReceipt(app, merchant.key, issuanceKey);
      expect(receipt).toMatchObject({ issuanceKey, kind: 'ISSUANCE', status: 'ACCEPTED',
        approvalNumber: null, clientReferenceId: reference, identityNumber: '010****5678',
        usage: 'INCOME_DEDUCTION', taxation: 'TAXABLE', tradeOption: 'GENERAL',
        supplyCost: 10_000, tax: 1_000, serviceFee: 0, totalAmount: 11_000,
        canceledAmount: 0, remainingAmount: 11_000, originalIssuanceKey: null,
        merchant: { businessRegistrationNumber: '1234567891' } });
      expect((await balance()).balance).toBe(before.balance - 10);
    });

  it('accepts hyphenated and plain identity numbers of every kind its usage allows',
    async () => {
      const cases: Array<[string, string]> = [
        ['INCOME_DEDUCTION', '0101234567'], ['INCOME_DEDUCTION', '01012345678'],
        ['INCOME_DEDUCTION', '1234-5678-9012-3456'], ['INCOME_DEDUCTION', '9001011234567'],
        ['INCOME_DEDUCTION', '010-000-1234'], ['EXPENSE_PROOF', '123-45-67891'],
        ['EXPENSE_PROOF', '01012345678'], ['EXPENSE_PROOF', '1234567890123456789'],
      ];
      for (const [usage, identityNumber] of cases) {
        await accepted(await issue(receiptBody({ usage, identityNumber })));
      }
    });

  it('accepts yesterday, TAX_FREE with tax 0, a service fee and every trade option',
    async () => {
      await accepted(await issue(receiptBody({ tradeDate: addDays(today(), -1) })));
      await accepted(await issue(receiptBody({ taxation: 'TAX_FREE', supplyCost: 11_000,
        tax: 0 })));
      await accepted(await issue(receiptBody({ serviceFee: 500, totalAmount: 11_500 })));
      for (const tradeOption of ['GENERAL', 'BOOKS_PERFORMANCES', 'PUBLIC_TRANSPORT']) {
        await accepted(await issue(receiptBody({ tradeOption })));
      }
    });

  it('accepts a self-issued receipt for a payment up to 5 days back', async () => {
    await accepted(await issue(receiptBody({ identityNumber: '0100001234',
      tradeDate: addDays(today(), -5) })));
  });
});

describe('validation', () => {
  const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a mobile number too short', { identityNumber: '010123' }, /identityNumber/],
    ['a 12-digit number', { identityNumber: '123456789012' }, /identityNumber has 12 digits/],
    ['a 20-digit card number', { identityNumber: '12345678901234567890' }, /identityNumber/],
    ['letters in the identity number', { identityNumber: '010-abcd-5678' }, /identityNumber/],
    ['only hyphens', { identityNumber: '---' }, /identityNumber/],
    ['a business number for income deduction', { identityNumber: '1234567891' },
      /EXPENSE_PROOF only/],
    ['the self-issue number for expense proof', { usage: 'EXPENSE_PROOF',
      identityNumber: '0100001234' }, /INCOME_DEDUCTION receipts only/],
    ['a total that is not the sum', { totalAmount: 11_001 }, /totalAmount must equal/],
    ['a zero total', { supplyCost: 0, tax: 0, serviceFee: 0, totalAmount: 0 }, /more than 0/],
    ['a negative amount', { supplyCost: -1, totalAmount: 999 }, /supplyCost/],
    ['a fractional amount', { tax: 1.5 }, /tax/],
    ['an amount as a string', { supplyCost: '10000' }, /supplyCost/],
    ['tax on a TAX_FREE receipt', { taxation: 'TAX_FREE' }, /tax must be 0/],
    ['a trade date two days back', { tradeDate: addDays(today(), -2) }, /too far back/],
    ['a trade date tomorrow', { tradeDate: addDays(today(), 1) }, /future/],
    ['a self-issue six days back', { identityNumber: '0100001234',
      tradeDate: addDays(today(), -6) }, /too far back/],
    ['a trade date that is no date', { tradeDate: '2026-02-30' }, /tradeDate/],
    ['a trade date in another format', { tradeDate: '20261124' }, /tradeDate/],
    ['an unknown usage', { usage: 'GIFT' }, /usage/],
    ['an unknown taxation', { taxation: 'ZERO_RATED' }, /taxation/],
    ['an unknown trade option', { tradeOption: 'TAXI' }, /tradeOption/],
    ['an empty item name', { itemName: '' }, /itemName/],
    ['an item name with a control character', { itemName: 'a\u0000b' }, /itemName/],
    ['an item name of ideographic spaces only', { itemName: '\u3000\u3000' },
      /itemName must be printable text: not only spaces/],
    ['an item name with a right-to-left override', { itemName: '커피\u202e005' },
      /itemName must be printable text.*bidirectional/],
    ['a customer name with a first-strong isolate', { customer: { name: '홍\u2068길동' } },
      /customer\.name must be printable text/],
    ['an item name too long', { itemName: '가'.repeat(101) }, /itemName/],
    ['an unknown field', { discount: 100 }, /discount|additional/],
    ['a customer email that is none', { customer: { email: 'not-an-email' } }, /email/],
  ];
  for (const [what, overrides, message] of invalid) {
    it(`refuses ${what} with 400, recording and charging nothing`, async () => {
      const before = await balance();
      const reference = referenceId('bad');
      expectError(await issue(receiptBody(overrides), reference), 400, 'INVALID_REQUEST', message);
      expect(await receiptsWith(reference)).toBe(0);
      expect(await balance()).toEqual(before);
    });
  }

  it('refuses a business number whose checksum fails with INVALID_BUSINESS_REGISTRATION_NUMBER',
    async () => {
      expectError(await issue(receiptBody({ usage: 'EXPENSE_PROOF',
        identityNumber: '1234567890' })), 400, 'INVALID_BUSINESS_REGISTRATION_NUMBER');
    });

  it('refuses a missing field, malformed JSON and a missing body', async () => {
    const withoutItem: Record<string, unknown> = receiptBody();
    delete withoutItem.itemName;
    expectError(await issue(withoutItem), 400, 'INVALID_REQUEST', /itemName/);
    expectError(await issue('{"tradeDate":'), 400, 'INVALID_REQUEST');
    expectError(await app.server.inject(request(merchant.key, 'POST', '/v1/cashReceipts/issue',
      { headers: { 'supplier-key': merchant.supplierKey,
        'service-client-reference-id': referenceId() } })), 400, 'INVALID_REQUEST');
  });

  it('requires Service-Client-Reference-Id of 1 to 255 characters, not blank', async () => {
    const send = (headers: Record<string, string>) => app.server.inject(request(merchant.key,
      'POST', '/v1/cashReceipts/issue', { body: receiptBody(),
        headers: { 'supplier-key': merchant.supplierKey, ...headers } }));
    expectError(await send({}), 400, 'INVALID_REQUEST', /service-client-reference-id/);
    expectError(await send({ 'service-client-reference-id': '   ' }), 400, 'INVALID_REQUEST');
    expectError(await send({ 'service-client-reference-id': 'x'.repeat(256) }), 400,
      'INVALID_REQUEST');
    await accepted(await send({ 'service-client-reference-id': `${'x'.repeat(240)}${Date.now()}`
      .slice(0, 255) }));
  });

  it('answers 404 for a Supplier-Key of no issuer of this key, and of another account',
    async () => {
      expectError(await issueReceipt(app, merchant.key, 'sup_unknown', receiptBody()), 404,
        'NOT_FOUND');
      const other = await createMerchantAccount(app, 'Other');
      expectError(await issueReceipt(app, merchant.key, other.supplierKey, receiptBody()), 404,
        'NOT_FOUND');
    });
});

describe('Service-Client-Reference-Id', () => {
  it('replays the same request with the same issuanceKey: no second receipt, no second charge',
    async () => {
      const reference = referenceId();
      const first = await accepted(await issue(receiptBody(), reference));
      const before = await balance();
      // Key order does not make two equal requests differ.
      const reordered = Object.fromEntries(Object.entries(receiptBody()).reverse());
      for (const body of [receiptBody(), reordered]) {
        expect(await accepted(await issue(body, reference))).toBe(first);
      }
      expect(await receiptsWith(reference)).toBe(1);
      expect(await balance()).toEqual(before);
    });

  it('answers 409 IDEMPOTENCY_CONFLICT for the same reference id with different content',
    async () => {
      const reference = referenceId();
      await accepted(await issue(receiptBody(), reference));
      const before = await balance();
      expectError(await issue(receiptBody({ itemName: '다른 품목' }), reference), 409,
        'IDEMPOTENCY_CONFLICT');
      expect(await receiptsWith(reference)).toBe(1);
      expect(await balance()).toEqual(before);
    });

  it('answers 409 IDEMPOTENCY_CONFLICT for an issuance\'s reference id used to cancel',
    async () => {
      const reference = referenceId();
      const issuanceKey = await accepted(await issue(receiptBody(), reference));
      expectError(await cancelReceipt(app, merchant.key, issuanceKey,
        { reason: 'TRANSACTION_CANCELED' }, reference), 409, 'IDEMPOTENCY_CONFLICT');
    });

  it('replays concurrent duplicates once: one receipt, one charge', async () => {
    const reference = referenceId();
    const before = await balance();
    const responses = await Promise.all(Array.from({ length: 8 }, () =>
      issue(receiptBody(), reference)));
    const keys = await Promise.all(responses.map(accepted));
    expect(new Set(keys).size).toBe(1);
    expect(await receiptsWith(reference)).toBe(1);
    expect((await balance()).balance).toBe(before.balance - 10);
  });

  it('answers requests accepted together as it would alone: distinct ones recorded, ' +
    'a duplicate replayed, other content with the same reference id 409', async () => {
    const [shared, ...distinct] = Array.from({ length: 6 }, () => referenceId());
    const before = await balance();
    const responses = await Promise.all([
      issue(receiptBody(), shared),
      ...distinct.map((reference) => issue(receiptBody(), reference)),
      issue(receiptBody(), shared),
      issue(receiptBody({ itemName: '다른 상품' }), shared),
    ]);
    const distinctKeys = await Promise.all(responses.slice(1, 6).map(accepted));
    // Whichever content claims the shared reference id first is recorded; the other is 409.
    const [first, same, other] = [responses[0]!, responses[6]!, responses[7]!];
    let sharedKey: string;
    if (other.statusCode === 202) {
      sharedKey = await accepted(other);
      expectError(first, 409, 'IDEMPOTENCY_CONFLICT');
      expectError(same, 409, 'IDEMPOTENCY_CONFLICT');
    } else {
      sharedKey = await accepted(first);
      expect(await accepted(same)).toBe(sharedKey);
      expectError(other, 409, 'IDEMPOTENCY_CONFLICT');
    }
    expect(new Set([sharedKey, ...distinctKeys]).size).toBe(6);
    for (const reference of [shared!, ...distinct]) expect(await receiptsWith(reference)).toBe(1);
    expect((await balance()).balance).toBe(before.balance - 60);
  });

  it('is per API key: another key of the account uses the same value for a receipt of its own',
    async () => {
      const reference = referenceId();
      const { key: otherKey } = await app.platform.accounts.createKey({
        accountId: merchant.accountId, environment: 'test' });
      const first = await accepted(await issue(receiptBody(), reference));
      const second = await accepted(await issueReceipt(app, otherKey, merchant.supplierKey,
        receiptBody(), reference));
      expect(second).not.toBe(first);
    });

  it('is independent of tax invoice reference ids', async () => {
    const reference = referenceId();
    await registerSupplier(app, merchant.key, { identificationNumber: '2208162517' })
      .catch(() => undefined);
    await accepted(await issue(receiptBody(), reference));
    // The same value is still free for a tax invoice request of the same key (which then
    // fails for its own reasons, never for the reference id).
    const response = await app.server.inject(request(merchant.key, 'POST',
      '/v1/taxInvoices/issue', { body: invoiceBody(), headers: {
        'supplier-key': merchant.supplierKey, 'service-client-reference-id': reference } }));
    expect(response.body).not.toContain('already used');
  });

  it('tells the status of a request by its reference id, 404 for one never used', async () => {
    const reference = referenceId();
    const issuanceKey = await accepted(await issue(receiptBody(), reference));
    const status = await app.server.inject(request(merchant.key, 'GET',
      `/v1/cashReceipts/issue/status?clientReferenceId=${encodeURIComponent(reference)}`));
    expect(status.statusCode).toBe(200);
    expect(status.json()).toEqual({ issuanceKey, kind: 'ISSUANCE', clientReferenceId: reference,
      status: 'ACCEPTED', approvalNumber: null, message: expect.any(String) });
    expectError(await app.server.inject(request(merchant.key, 'GET',
      '/v1/cashReceipts/issue/status?clientReferenceId=never-used')), 404, 'NOT_FOUND');
    const { key: otherKey } = await app.platform.accounts.createKey({
      accountId: merchant.accountId, environment: 'test' });
    expectError(await app.server.inject(request(otherKey, 'GET',
      `/v1/cashReceipts/issue/status?clientReferenceId=${encodeURIComponent(reference)}`)), 404,
    'NOT_FOUND');
  });
});

describe('a reference id used before, with a request that would now be refused', () => {
  // The app's clock moves on between a request and its resend.
  let clockApp: TestApp;
  let clock: Date;
  let clockMerchant: MerchantAccount;

  beforeAll(async () => {
    clock = new Date();
    clockApp = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' },
      now: () => clock });
    clockMerchant = await createMerchantAccount(clockApp, 'Clock account');
  });
  afterAll(async () => {
    await clockApp?.close();
  });

  const issueAt = (body: unknown, reference?: string) =>
    issueReceipt(clockApp, clockMerchant.key, clockMerchant.supplierKey, body, reference);
  const clockBalance = () => clockApp.platform.points.getBalance({
    accountId: clockMerchant.accountId, environment: 'test' });

  it('replays its issuanceKey days later, when its trade date is refused, and charges nothing',
    async () => {
      const reference = referenceId();
      const body = receiptBody({ tradeDate: seoulDate(clock) });
      const first = await accepted(await issueAt(body, reference));
      const before = await clockBalance();
      clock = new Date(clock.getTime() + 10 * 86_400_000);
      try {
        expect(await accepted(await issueAt(body, reference))).toBe(first);
        // The same body under a new reference id is refused now.
        expectError(await issueAt(body), 400, 'INVALID_REQUEST');
        // Other content with the used reference id conflicts, valid or not.
        expectError(await issueAt({ ...body, itemName: '다른 품목' }, reference), 409,
          'IDEMPOTENCY_CONFLICT');
        expectError(await issueAt({ ...body, totalAmount: 1 }, reference), 409,
          'IDEMPOTENCY_CONFLICT');
        expect(await clockBalance()).toEqual(before);
      } finally {
        clock = new Date();
      }
    });

  it('leaves a refused request\'s reference id free for a request that is accepted',
    async () => {
      const reference = referenceId();
      expectError(await issueAt(receiptBody({ totalAmount: 1 }), reference), 400,
        'INVALID_REQUEST');
      await accepted(await issueAt(receiptBody({ tradeDate: seoulDate(clock) }), reference));
    });

  it('replays its issuanceKey after the merchant is deactivated', async () => {
    const reference = referenceId();
    const body = receiptBody({ tradeDate: seoulDate(clock) });
    const first = await accepted(await issueAt(body, reference));
    const deactivated = await clockApp.server.inject(request(clockMerchant.key, 'DELETE',
      `/v1/issuers/${clockMerchant.issuerId}`));
    expect(deactivated.statusCode, deactivated.body).toBeLessThan(300);
    expect(await accepted(await issueAt(body, reference))).toBe(first);
    expectError(await issueAt(body), 409, 'ISSUER_DEACTIVATED');
  });
});

describe('points and environments', () => {
  it('answers 402 PAYMENT_REQUIRED without a receipt when the balance is too low', async () => {
    const poor = await createTestApp({ jobs: true,
      env: { WORKERS_ENABLED: 'false', TEST_SIGNUP_POINTS: '5' } });
    try {
      const account = await createMerchantAccount(poor, 'Poor');
      expectError(await issueReceipt(poor, account.key, account.supplierKey, receiptBody()),
        402, 'PAYMENT_REQUIRED');
      const result = await poor.platform.database.pool.query(
        'select count(*)::int as count from cash_receipts');
      expect(result.rows[0].count).toBe(0);
    } finally {
      await poor.close();
    }
  });

  it('answers 503 SERVICE_UNAVAILABLE for live keys without a gateway, charging nothing',
    async () => {
      const account = await app.createAccount();
      const live = await registerSupplier(app, account.keys.live, { certificate: false });
      await app.platform.points.grant({ accountId: account.accountId, environment: 'live',
        points: 1_000 });
      const before = await app.platform.points.getBalance({ accountId: account.accountId,
        environment: 'live' });
      const body = expectError(await issueReceipt(app, account.keys.live, live.supplierKey,
        receiptBody()), 503, 'SERVICE_UNAVAILABLE');
      expect(body.message).toContain('CASH_RECEIPT_GATEWAY_URL');
      expect(await app.platform.points.getBalance({ accountId: account.accountId,
        environment: 'live' })).toEqual(before);
    });

  it('keeps receipts of one account from another, and test from live', async () => {
    const issuanceKey = await accepted(await issue(receiptBody()));
    const other = await createMerchantAccount(app, 'Stranger');
    expectError(await app.server.inject(request(other.key, 'GET',
      `/v1/cashReceipts/${issuanceKey}`)), 404, 'NOT_FOUND');
    expectError(await app.server.inject(request(merchant.liveKey, 'GET',
      `/v1/cashReceipts/${issuanceKey}`)), 404, 'NOT_FOUND');
    expectError(await cancelReceipt(app, other.key, issuanceKey,
      { reason: 'OTHER' }), 404, 'NOT_FOUND');
    const list = await app.server.inject(request(other.key, 'GET', '/v1/cashReceipts'));
    expect(list.json()).toEqual({ cashReceipts: [], nextCursor: null, hasMore: false });
  });
});
