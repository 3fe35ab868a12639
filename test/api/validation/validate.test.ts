import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import {
  invoiceBody,
  registerSupplier,
  request,
  type Supplier,
} from '../tax-invoices/helpers.ts';
import { receiptBody, referenceId } from '../cash-receipts/helpers.ts';
import { CORPORATION_NUMBER, createOwnerAccount } from '../documents/helpers.ts';

// The validation endpoints (POST /v1/taxInvoices:validate, /v1/cashReceipts:validate,
// /v1/documents:validate) run their issuance short of its effect. Each bad request is sent to
// the validation first and then to the issuance, and both must answer the same status and code;
// a good one must be answered with what issuance then records, without a charge, a document or a
// claimed reference id (the same reference id is then accepted by issuance).

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ jobs: true,
    env: { WORKERS_ENABLED: 'false', TEST_SIGNUP_POINTS: '0' } });
});
afterAll(async () => {
  await app?.close();
});

const balanceOf = (accountId: string) =>
  app.platform.points.getBalance({ accountId, environment: 'test' });

function post(key: string, url: string, body: unknown, headers: Record<string, string>) {
  return app.server.inject(request(key, 'POST', url, { body, headers }));
}

function sameAnswer(validation: LightMyRequestResponse, issuance: LightMyRequestResponse) {
  expect(validation.statusCode, validation.body).toBeGreaterThanOrEqual(400);
  expect(validation.statusCode, validation.body).toBe(issuance.statusCode);
  expect((validation.json() as { code: string }).code)
    .toBe((issuance.json() as { code: string }).code);
}

async function countOf(key: string, url: string, field: string): Promise<number> {
  const response = await app.server.inject(request(key, 'GET', `${url}?limit=100`));
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Record<string, unknown[]>)[field]!.length;
}

describe('POST /v1/taxInvoices:validate', () => {
  let key: string;
  let accountId: string;
  let supplier: Supplier;

  beforeAll(async () => {
    const account = await app.createFundedAccount(1_000);
    ({ accountId } = account);
    key = account.keys.test;
    supplier = await registerSupplier(app, key);
  });

  const headers = (supplierKey: string, reference?: string) => ({ 'supplier-key': supplierKey,
    ...(reference === undefined ? {} : { 'service-client-reference-id': reference }) });

  it('answers what issuance records, charging, recording and claiming nothing', async () => {
    const before = await balanceOf(accountId);
    const reference = referenceId('txi');
    const response = await post(key, '/v1/taxInvoices:validate', invoiceBody(),
      headers(supplier.supplierKey, reference));
    expect(response.statusCode, response.body).toBe(200);
    const validation = response.json() as { valid: boolean; documents: Array<{
      totals: unknown; taxType: string; lateIssuance: boolean; lateIssuancePenalty: unknown;
      issueDeadline: string }>; price: unknown; supplier: unknown };
    expect(validation.valid).toBe(true);
    expect(validation.supplier).toEqual({ issuerId: supplier.issuerId,
      identificationNumber: supplier.identificationNumber });
    expect(validation.documents).toHaveLength(1);
    expect(validation.documents[0]).toMatchObject({ taxType: 'TAXABLE', lateIssuance: false,
      lateIssuancePenalty: null,
      totals: { supplyCost: 200_000, tax: 20_000, total: 220_000 } });
    expect(validation.price).toEqual({ operation: 'taxInvoices.issue', points: 100 });
    expect(await balanceOf(accountId)).toEqual(before);
    expect(await countOf(key, '/v1/taxInvoices', 'taxInvoices')).toBe(0);
    // The reference id is still unused: issuance takes it.
    const issued = await post(key, '/v1/taxInvoices/issue', invoiceBody(),
      headers(supplier.supplierKey, reference));
    expect(issued.statusCode, issued.body).toBe(200);
    // And now validation answers what issuance answers for a reference id used before.
    sameAnswer(await post(key, '/v1/taxInvoices:validate', invoiceBody(),
      headers(supplier.supplierKey, reference)), await post(key, '/v1/taxInvoices/issue',
      invoiceBody(), headers(supplier.supplierKey, reference)));
  });

  it('shows a late issuance with its penalty rates', async () => {
    // Six weeks back is past the issue deadline (the 10th of the next month) and within the
    // VAT return deadline for most days of the year; a day outside it is refused as too late
    // by both, which the comparison below covers as well.
    const date = new Date(Date.now() - 42 * 86_400_000).toISOString().slice(0, 10);
    const body = invoiceBody({ date, items: [{ date, name: '용역', supplyCost: 100_000,
      tax: 10_000 }] });
    const validation = await post(key, '/v1/taxInvoices:validate', body,
      headers(supplier.supplierKey));
    if (validation.statusCode === 200) {
      const [document] = (validation.json() as { documents: Array<{ lateIssuance: boolean;
        lateIssuancePenalty: unknown }> }).documents;
      expect(document).toMatchObject({ lateIssuance: true,
        lateIssuancePenalty: { supplierRate: 0.01, recipientRate: 0.005 } });
    } else {
      sameAnswer(validation, await post(key, '/v1/taxInvoices/issue', body,
        headers(supplier.supplierKey)));
    }
  });

  it.each([
    ['an unknown Supplier-Key', invoiceBody(), 'sup_unknown'],
    ['a body without supplied', { ...invoiceBody(), supplied: undefined }, null],
    ['another supplier\'s number', invoiceBody({ supplier: { ...invoiceBody().supplier,
      identificationNumber: '2208162517' } }), null],
    ['a tax that is not 10 %', invoiceBody({ items: [{ date: invoiceBody().date, name: 'x',
      supplyCost: 100_000, tax: 1 }] }), null],
    ['no items', invoiceBody({ items: [] }), null],
    ['a write date in the future', invoiceBody({ date: '2999-01-01' }), null],
  ])('answers the error issuance gives for %s, charging nothing', async (_name, body,
    supplierKey) => {
    const before = await balanceOf(accountId);
    const count = await countOf(key, '/v1/taxInvoices', 'taxInvoices');
    const used = supplierKey ?? supplier.supplierKey;
    sameAnswer(await post(key, '/v1/taxInvoices:validate', body, headers(used)),
      await post(key, '/v1/taxInvoices/issue', body, headers(used)));
    expect(await balanceOf(accountId)).toEqual(before);
    expect(await countOf(key, '/v1/taxInvoices', 'taxInvoices')).toBe(count);
  });

  it('answers 402 PAYMENT_REQUIRED as issuance does when the balance cannot pay', async () => {
    const poor = await app.createFundedAccount(0);
    const poorSupplier = await registerSupplier(app, poor.keys.test);
    const validation = await post(poor.keys.test, '/v1/taxInvoices:validate', invoiceBody(),
      headers(poorSupplier.supplierKey));
    expectError(validation, 402, 'PAYMENT_REQUIRED');
    sameAnswer(validation, await post(poor.keys.test, '/v1/taxInvoices/issue', invoiceBody(),
      headers(poorSupplier.supplierKey)));
  });

  it('is 401 without a key, like every operation', async () => {
    const response = await app.server.inject({ method: 'POST', url: '/v1/taxInvoices:validate',
      payload: invoiceBody(), headers: { 'supplier-key': supplier.supplierKey } });
    expect(response.statusCode).toBe(401);
  });
});

describe('POST /v1/cashReceipts:validate', () => {
  let key: string;
  let accountId: string;
  let supplierKey: string;

  beforeAll(async () => {
    const account = await app.createFundedAccount(1_000);
    ({ accountId } = account);
    key = account.keys.test;
    ({ supplierKey } = await registerSupplier(app, key, { certificate: false }));
  });

  const headers = (reference: string, merchant = supplierKey) =>
    ({ 'supplier-key': merchant, 'service-client-reference-id': reference });

  it('answers the receipt issuance records, then the replay, charging nothing', async () => {
    const before = await balanceOf(accountId);
    const reference = referenceId();
    const response = await post(key, '/v1/cashReceipts:validate', receiptBody(),
      headers(reference));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ valid: true, replayOf: null,
      receipt: { identityNumber: '010****5678', totalAmount: 11_000, taxation: 'TAXABLE' },
      price: { operation: 'cashReceipts.issue', points: 10 } });
    expect(await balanceOf(accountId)).toEqual(before);
    expect(await countOf(key, '/v1/cashReceipts', 'cashReceipts')).toBe(0);
    const issued = await post(key, '/v1/cashReceipts/issue', receiptBody(), headers(reference));
    expect(issued.statusCode, issued.body).toBe(202);
    const { issuanceKey } = issued.json() as { issuanceKey: string };
    const replay = await post(key, '/v1/cashReceipts:validate', receiptBody(),
      headers(reference));
    expect(replay.json()).toMatchObject({ replayOf: issuanceKey, receipt: null,
      price: { points: 0 } });
    sameAnswer(await post(key, '/v1/cashReceipts:validate', receiptBody({ itemName: '다른 것' }),
      headers(reference)), await post(key, '/v1/cashReceipts/issue',
      receiptBody({ itemName: '다른 것' }), headers(reference)));
  });

  it.each([
    ['an unknown Supplier-Key', receiptBody(), 'sup_unknown'],
    ['a total that is not the sum', receiptBody({ totalAmount: 12_000 }), null],
    ['a bad identity number', receiptBody({ identityNumber: '12' }), null],
    ['a future trade date', receiptBody({ tradeDate: '2999-01-01' }), null],
  ])('answers the error issuance gives for %s, charging nothing', async (_name, body,
    merchant) => {
    const before = await balanceOf(accountId);
    const count = await countOf(key, '/v1/cashReceipts', 'cashReceipts');
    const validation = await post(key, '/v1/cashReceipts:validate', body,
      headers(referenceId(), merchant ?? supplierKey));
    sameAnswer(validation, await post(key, '/v1/cashReceipts/issue', body,
      headers(referenceId(), merchant ?? supplierKey)));
    expect(await balanceOf(accountId)).toEqual(before);
    expect(await countOf(key, '/v1/cashReceipts', 'cashReceipts')).toBe(count);
  });

  it('requires Service-Client-Reference-Id as issuance does', async () => {
    sameAnswer(await post(key, '/v1/cashReceipts:validate', receiptBody(),
      { 'supplier-key': supplierKey }), await post(key, '/v1/cashReceipts/issue', receiptBody(),
      { 'supplier-key': supplierKey }));
  });
});

describe('POST /v1/documents:validate', () => {
  const registry = { type: 'CORPORATE_REGISTRY_SUBMISSION', corporationNumber: CORPORATION_NUMBER };

  it('answers the request and its price, reserving and recording nothing', async () => {
    const owner = await createOwnerAccount(app, { points: 2_000 });
    const reference = referenceId('doc');
    const before = await balanceOf(owner.accountId);
    const response = await post(owner.key, '/v1/documents:validate',
      { type: 'BUSINESS_REGISTRATION_CERTIFICATE' }, { 'service-client-reference-id': reference });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ valid: true, replayOf: null,
      document: { type: 'BUSINESS_REGISTRATION_CERTIFICATE',
        businessRegistrationNumber: owner.owner.businessNumber ?? expect.any(String) },
      price: { operation: 'documents.taxAuthority.issue', points: 500 } });
    expect(await balanceOf(owner.accountId)).toEqual(before);
    expect(await countOf(owner.key, '/v1/documents', 'documents')).toBe(0);
    const issued = await post(owner.key, '/v1/documents/issue',
      { type: 'BUSINESS_REGISTRATION_CERTIFICATE' }, { 'service-client-reference-id': reference });
    expect(issued.statusCode, issued.body).toBe(202);
    const replay = await post(owner.key, '/v1/documents:validate',
      { type: 'BUSINESS_REGISTRATION_CERTIFICATE' }, { 'service-client-reference-id': reference });
    expect(replay.json()).toMatchObject({
      replayOf: (issued.json() as { issuanceKey: string }).issuanceKey, document: null });
    sameAnswer(await post(owner.key, '/v1/documents:validate', registry,
      { 'service-client-reference-id': reference }), await post(owner.key,
      '/v1/documents/issue', registry, { 'service-client-reference-id': reference }));
  });

  it.each([
    ['a bad corporation number', { ...registry, corporationNumber: '1101110062433' }],
    ['an option of another type', { ...registry, taxYear: 2023 }],
    ['an unknown type', { type: 'PASSPORT' }],
  ])('answers the error issuance gives for %s', async (_name, body) => {
    const owner = await createOwnerAccount(app, { points: 2_000 });
    sameAnswer(await post(owner.key, '/v1/documents:validate', body,
      { 'service-client-reference-id': referenceId('doc') }), await post(owner.key,
      '/v1/documents/issue', body, { 'service-client-reference-id': referenceId('doc') }));
    expect(await countOf(owner.key, '/v1/documents', 'documents')).toBe(0);
  });

  it('answers 402 and 409 as the reservation would', async () => {
    const poor = await createOwnerAccount(app, { points: 1_200 });
    sameAnswer(await post(poor.key, '/v1/documents:validate', registry,
      { 'service-client-reference-id': referenceId('doc') }), await post(poor.key,
      '/v1/documents/issue', registry, { 'service-client-reference-id': referenceId('doc') }));
    const view = { type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: CORPORATION_NUMBER };
    expect((await post(poor.key, '/v1/documents/issue', view,
      { 'service-client-reference-id': referenceId('doc') })).statusCode).toBe(202);
    const held = await post(poor.key, '/v1/documents:validate',
      { type: 'BUSINESS_REGISTRATION_CERTIFICATE' },
      { 'service-client-reference-id': referenceId('doc') });
    expectError(held, 409, 'AVAILABLE_POINTS_INSUFFICIENT');
    expect(await balanceOf(poor.accountId)).toEqual({ balance: 1_200, reserved: 1_000,
      available: 200 });
  });
});
