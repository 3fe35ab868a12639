// Accepting POST /v1/taxInvoices/issue: every refusal is a 4xx in the spec's error shape that
// leaves nothing behind (no document, no claim, no processing step, no charge), and what is
// accepted is charged once to the key's own balance. The rules themselves are unit-tested in
// test/areas/tax-invoices/validation.test.ts; here each kind of rule is proven wired in.
import { describe, expect, it } from 'vitest';
import { addDays } from '../../../src/domain/business-days.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import {
  invoiceBody,
  issue,
  useSupplierAccount,
  registerSupplier,
  request,
  today,
  type Supplier,
} from './helpers.ts';

let app: TestApp;
let key: string;
let accountId: string;
let supplier: Supplier;

// No workers: a step added stays to be counted.
const createPausedApp = () => createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
useSupplierAccount({ createApp: createPausedApp }, (made) => {
  ({ app, key, accountId, supplier } = made);
});

const balance = () => app.platform.points.getBalance({ accountId, environment: 'test' });

async function documentCount(): Promise<number> {
  const result = await app.platform.database.pool.query(
    'select count(*)::int as count from tax_invoices where account_id = $1', [accountId]);
  return result.rows[0].count as number;
}

async function stagedStepCount(): Promise<number> {
  const result = await app.platform.database.pool.query(
    'select count(*)::int as count from tax_invoice_steps');
  return result.rows[0].count as number;
}

// Sends the request and checks it is refused with `status` and `code`, changing nothing.
async function expectRefused(
  send: () => ReturnType<typeof issue>,
  status: number,
  code: string,
  messagePart?: string,
) {
  const [pointsBefore, documentsBefore, stepsBefore] =
    [await balance(), await documentCount(), await stagedStepCount()];
  const body = expectError(await send(), status, code);
  if (messagePart !== undefined) expect(body.message).toContain(messagePart);
  expect(await balance()).toEqual(pointsBefore);
  expect(await documentCount()).toBe(documentsBefore);
  expect(await stagedStepCount()).toBe(stepsBefore);
}

const withItem = (changes: Record<string, unknown>) => {
  const body = invoiceBody();
  return { ...body, items: [{ ...body.items[0], ...changes }] };
};

describe('accepting an issuance', () => {
  it('answers {issuanceKey}, stores the document PENDING and adds its issuance step', async () => {
    const before = await balance();
    const response = await issue(app, key, supplier.supplierKey);
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json())).toEqual(['issuanceKey']);
    const document = await app.server.inject(request(key, 'GET',
      `/v1/taxInvoices/${response.json().issuanceKey}`));
    expect(document.json()).toMatchObject({ status: 'PENDING', ntsTransactionId: null,
      issuedAt: null, issuanceType: 'STANDARD', taxType: 'TAXABLE',
      invoice: { date: today(), purpose: 'CLAIM' } });
    expect((await balance()).balance).toBe(before.balance - 100);
    const steps = await app.platform.database.pool.query(`select step, attempt_number,
      leased_until from tax_invoice_steps where issuance_key = $1`,
    [response.json().issuanceKey]);
    expect(steps.rows).toEqual([{ step: 'ISSUANCE', attempt_number: 1, leased_until: null }]);
  });
});

describe('tax types', () => {
  it('makes an invoice whose every tax is 0 zero-rated (ZERO_RATED)', async () => {
    const body = invoiceBody();
    const response = await issue(app, key, supplier.supplierKey,
      { ...body, items: body.items.map((item) => ({ ...item, tax: 0 })) });
    expect(response.statusCode, response.body).toBe(200);
    const document = await app.server.inject(request(key, 'GET',
      `/v1/taxInvoices/${response.json().issuanceKey}`));
    expect(document.json()).toMatchObject({ taxType: 'ZERO_RATED',
      totals: { supplyCost: 200_000, tax: 0, total: 200_000 } });
  });
});

describe('refusing bad input with nothing charged or made', () => {
  it.each([
    ['a write date in the future', () => invoiceBody({ date: addDays(today(), 1) }), 'body.date'],
    ['a write date past its issue deadline', () => invoiceBody({ date: '2024-01-31' }),
      'deadline'],
    ['a supplier other than the Supplier-Key issuer', () => ({ ...invoiceBody(), supplier: {
      ...invoiceBody().supplier, identificationNumber: '1048123454' } }), 'Supplier-Key'],
    ['tax and tax-exempt items mixed', () => {
      const body = invoiceBody();
      return { ...body, items: [body.items[0], { ...body.items[1], tax: null }] };
    }, 'body.items[1].tax'],
    ['a negative supply cost', () => withItem({ supplyCost: -1 }), 'body.items[0]'],
    ['an emoji in an item name', () => withItem({ name: '커피 ☕️🍩' }), 'body.items[0].name'],
    ['a blank representative name', () => ({ ...invoiceBody(), supplied: {
      ...invoiceBody().supplied, representativeName: '   ' } }), 'representativeName'],
    ['an item dated in another month', () => withItem({ date: '2020-01-01' }), 'items[0].date'],
    ['a tax of half the supply cost', () => withItem({ tax: 25_000 }),
      'body.items[0].tax must be 10% of body.items[0].supplyCost: 5000, give or take 1 won ' +
      'for rounding; got 25000.'],
    ['a tax of 1 won on 100,000', () => withItem({ quantity: null, unitPrice: null,
      supplyCost: 100_000, tax: 1 }), 'body.items[0].supplyCost: 10000, give or take 1 won'],
    ['a zero-rated item beside a taxed one', () => {
      const body = invoiceBody();
      return { ...body, items: [body.items[0], { ...body.items[1], tax: 0 }] };
    }, 'cannot share a tax invoice with taxed items'],
    ['a supply cost other than quantity × unit price', () => withItem({ quantity: 3 }),
      'body.items[0].supplyCost must be body.items[0].quantity × body.items[0].unitPrice ' +
      '(15000)'],
  ])('400 INVALID_REQUEST for %s', async (_case, body, messagePart) => {
    await expectRefused(() => issue(app, key, supplier.supplierKey, body()), 400,
      'INVALID_REQUEST', messagePart);
  });

  it('400 INVALID_BUSINESS_REGISTRATION_NUMBER for a recipient checksum mismatch', async () => {
    const body = { ...invoiceBody(), supplied: { ...invoiceBody().supplied,
      identificationNumber: '2208162518' } };
    await expectRefused(() => issue(app, key, supplier.supplierKey, body), 400,
      'INVALID_BUSINESS_REGISTRATION_NUMBER');
  });

  it('400 INVALID_BUSINESS_REGISTRATION_NUMBER for the all-zero recipient 0000000000', async () => {
    const body = { ...invoiceBody(), supplied: { ...invoiceBody().supplied,
      identificationNumber: '0000000000' } };
    await expectRefused(() => issue(app, key, supplier.supplierKey, body), 400,
      'INVALID_BUSINESS_REGISTRATION_NUMBER', 'body.supplied.identificationNumber starts with ' +
      '000, a tax office code below 101 that is never assigned.');
  });

  it.each([
    ['100 items', () => ({ ...invoiceBody(), items: Array(100).fill(invoiceBody().items[0]) })],
    ['no items', () => ({ ...invoiceBody(), items: [] })],
    ['an amount given as a string', () => withItem({ supplyCost: '50000' })],
    ['a fractional amount', () => withItem({ supplyCost: 100.5 })],
    ['tax missing', () => {
      const item: Record<string, unknown> = { ...invoiceBody().items[0] };
      delete item.tax;
      return { ...invoiceBody(), items: [item] };
    }],
    ['an unknown purpose', () => invoiceBody({ purpose: 'GIFT' })],
    ['an extra field', () => invoiceBody({ taxInvoiceKind: 'X' })],
    ['no supplied field', () => {
      const body: Record<string, unknown> = invoiceBody();
      delete body.supplied;
      return body;
    }],
    ['a 101-character organization name', () => ({ ...invoiceBody(), supplier: {
      ...invoiceBody().supplier, organizationName: '가'.repeat(101) } })],
    ['an invalid manager email', () => ({ ...invoiceBody(), supplied: {
      ...invoiceBody().supplied, managers: [{ email: 'not-an-email' }] } })],
    ['a control character in a remark', () => invoiceBody({ description: 'a\u0000b' })],
    ['an array instead of an object', () => [invoiceBody()]],
  ])('400 INVALID_REQUEST for %s', async (_case, body) => {
    await expectRefused(() => issue(app, key, supplier.supplierKey, body()), 400,
      'INVALID_REQUEST');
  });

  it('400 INVALID_REQUEST for malformed JSON', async () => {
    await expectRefused(() => app.server.inject({ ...request(key, 'POST',
      '/v1/taxInvoices/issue', { headers: { 'supplier-key': supplier.supplierKey } }),
    payload: '{"date": ', headers: { authorization: request(key, 'GET', '/').headers!
      .authorization as string, 'content-type': 'application/json',
    'supplier-key': supplier.supplierKey } }), 400, 'INVALID_REQUEST');
  });

  it('400 INVALID_REQUEST naming the header when Supplier-Key is missing', async () => {
    await expectRefused(() => app.server.inject(request(key, 'POST', '/v1/taxInvoices/issue',
      { body: invoiceBody() })), 400, 'INVALID_REQUEST', 'supplier-key');
  });

  it('415 for a body that is not JSON', async () => {
    await expectRefused(() => app.server.inject({ method: 'POST', url: '/v1/taxInvoices/issue',
      headers: { authorization: request(key, 'GET', '/').headers!.authorization as string,
        'content-type': 'text/plain', 'supplier-key': supplier.supplierKey },
      payload: JSON.stringify(invoiceBody()) }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('404 NOT_FOUND for a Supplier-Key that names no issuer of this key', async () => {
    await expectRefused(() => issue(app, key, 'sup_doesNotExist'), 404, 'NOT_FOUND');
  });

  it('404 NOT_FOUND for another account\'s Supplier-Key', async () => {
    const other = await app.createAccount();
    const theirs = await registerSupplier(app, other.keys.test, { certificate: false });
    await expectRefused(() => issue(app, key, theirs.supplierKey), 404, 'NOT_FOUND');
  });

  it('404 NOT_FOUND for this account\'s Supplier-Key of the other environment', async () => {
    const account = await app.createAccount();
    const live = await registerSupplier(app, account.keys.live, { certificate: false });
    await expectRefused(() => issue(app, account.keys.test, live.supplierKey), 404, 'NOT_FOUND');
  });

  it('409 CERTIFICATE_NOT_REGISTERED for an issuer without a certificate', async () => {
    const account = await app.createAccount();
    const bare = await registerSupplier(app, account.keys.test, { certificate: false });
    const pointsBefore = await app.platform.points.getBalance({ accountId: account.accountId,
      environment: 'test' });
    expectError(await issue(app, account.keys.test, bare.supplierKey), 409,
      'CERTIFICATE_NOT_REGISTERED');
    expect(await app.platform.points.getBalance({ accountId: account.accountId,
      environment: 'test' })).toEqual(pointsBefore);
  });

  it('409 ISSUER_DEACTIVATED for a deactivated issuer', async () => {
    const account = await app.createAccount();
    const gone = await registerSupplier(app, account.keys.test);
    await app.server.inject(request(account.keys.test, 'DELETE', `/v1/issuers/${gone.issuerId}`));
    expectError(await issue(app, account.keys.test, gone.supplierKey), 409, 'ISSUER_DEACTIVATED');
  });
});

describe('charging', () => {
  it('402 PAYMENT_REQUIRED when the test balance cannot pay, with nothing made', async () => {
    const poor = await createTestApp({ jobs: true,
      env: { WORKERS_ENABLED: 'false', TEST_SIGNUP_POINTS: '50' } });
    try {
      const account = await poor.createAccount();
      const mine = await registerSupplier(poor, account.keys.test);
      expectError(await issue(poor, account.keys.test, mine.supplierKey), 402,
        'PAYMENT_REQUIRED');
      const result = await poor.platform.database.pool.query(
        'select count(*)::int as count from tax_invoices');
      expect(result.rows[0].count).toBe(0);
    } finally {
      await poor.close();
    }
  });

  it('503 SERVICE_UNAVAILABLE for a live key without a transmission gateway', async () => {
    const account = await app.createAccount();
    const live = await registerSupplier(app, account.keys.live);
    await app.platform.points.grant({ accountId: account.accountId, environment: 'live',
      points: 1_000 });
    const before = await app.platform.points.getBalance({ accountId: account.accountId,
      environment: 'live' });
    const body = expectError(await issue(app, account.keys.live, live.supplierKey), 503,
      'SERVICE_UNAVAILABLE');
    expect(body.message).toContain('TAX_INVOICE_GATEWAY_URL');
    expect(await app.platform.points.getBalance({ accountId: account.accountId,
      environment: 'live' })).toEqual(before);
  });
});
