// The validations of amendments, reverse issuance requests and cash receipt cancellations
// (POST /v1/taxInvoices/{issuanceKey}/amendments/<reason>:validate,
// /v1/taxInvoices/issueRequests:validate, /v1/cashReceipts/{issuanceKey}/cancellations:validate)
// run their action short of its effect. Each bad request is sent to the validation first and then
// to the action, and both must answer the same status and code; a good one is answered with what
// the action then makes, charging, recording and claiming nothing, and the action then accepts
// the same request with the same reference id. The SDK's methods reach the same operations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  createEtaxClient,
  validateCashReceiptCancellation,
  validateReverseIssuanceRequest,
  validateTaxInvoiceAmendment,
} from '@etax/sdk';
import * as store from '../../../src/areas/tax-invoices/store.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import {
  amend,
  createSupplierAccount,
  invoiceBody,
  issueTransmitted,
  postWithSupplier,
  today,
  type SupplierAccount,
  type TaxInvoiceView,
} from '../tax-invoices/helpers.ts';
import {
  accepted,
  cancelReceipt,
  createMerchantAccount,
  issueReceipt,
  receiptBody,
  referenceId,
  request,
  waitForStatus,
  type MerchantAccount,
} from '../cash-receipts/helpers.ts';

let app: TestApp;
let baseUrl: string;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0',
    CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS: '0' } });
  baseUrl = await app.server.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
});

const balanceOf = async (accountId: string) =>
  (await app.platform.points.getBalance({ accountId, environment: 'test' })).balance;

function sameAnswer(validation: LightMyRequestResponse, action: LightMyRequestResponse) {
  expect(validation.statusCode, validation.body).toBeGreaterThanOrEqual(400);
  expect(validation.statusCode, validation.body).toBe(action.statusCode);
  expect((validation.json() as { code: string }).code)
    .toBe((action.json() as { code: string }).code);
}

function validateAmendment(account: SupplierAccount, target: { issuanceKey: string;
  reason: string; body?: unknown; referenceId?: string; supplierKey?: string }) {
  const headers: Record<string, string> = {
    'supplier-key': target.supplierKey ?? account.supplier.supplierKey };
  if (target.referenceId !== undefined) {
    headers['service-client-reference-id'] = target.referenceId;
  }
  return app.server.inject(request(account.key, 'POST',
    `/v1/taxInvoices/${target.issuanceKey}/amendments/${target.reason}:validate`,
    { body: target.body, headers }));
}

const amendmentCount = async (issuanceKey: string) =>
  (await store.findAmendments(app.platform.database.db, issuanceKey)).length;

type Validated = { valid: boolean; documents: Array<{ totals: Record<string, number>;
  amendment?: { reason: string; originalIssuanceKey: string } }>;
  price: { operation: string; points: number } };

describe('POST /v1/taxInvoices/{issuanceKey}/amendments/<reason>:validate', () => {
  let account: SupplierAccount;
  let original: TaxInvoiceView;

  beforeAll(async () => {
    account = await createSupplierAccount(app, 'Amending account');
    original = await issueTransmitted(app, account.key, account.supplier.supplierKey);
  });

  it('answers the documents of a termination and an entry correction, charging nothing, then ' +
    'the amendment takes the same reference id', async () => {
    const before = await balanceOf(account.accountId);
    const reference = referenceId('amend');
    const response = await validateAmendment(account, { issuanceKey: original.issuanceKey,
      reason: 'termination', body: { date: today() }, referenceId: reference });
    expect(response.statusCode, response.body).toBe(200);
    const termination = response.json() as Validated;
    expect(termination).toMatchObject({ valid: true,
      price: { operation: 'taxInvoices.issue', points: 100 } });
    expect(termination.documents).toHaveLength(1);
    expect(termination.documents[0]).toMatchObject({
      totals: { supplyCost: -200_000, tax: -20_000, total: -220_000 },
      amendment: { reason: 'TERMINATION', originalIssuanceKey: original.issuanceKey } });
    const corrected = await validateAmendment(account, { issuanceKey: original.issuanceKey,
      reason: 'entryCorrection', body: { invoice: invoiceBody({ description: '정정' }) } });
    expect(corrected.statusCode, corrected.body).toBe(200);
    const correction = corrected.json() as Validated;
    expect(correction.documents.map((document) => document.totals.total))
      .toEqual([-220_000, 220_000]);
    expect(correction.price.points).toBe(200);
    expect(await balanceOf(account.accountId)).toBe(before);
    expect(await amendmentCount(original.issuanceKey)).toBe(0);
    const amended = await amend(app, account.key, account.supplier.supplierKey, {
      issuanceKey: original.issuanceKey, reason: 'termination', body: { date: today() },
      referenceId: reference });
    expect(amended.statusCode, amended.body).toBe(200);
    expect(await balanceOf(account.accountId)).toBe(before - 100);
    // Terminated now: both answer that a second reversal is refused, and the reference id is
    // used.
    for (const [reason, body] of [['termination', { date: today() }],
      ['doubleIssuance', undefined]] as const) {
      sameAnswer(await validateAmendment(account, { issuanceKey: original.issuanceKey, reason,
        body }), await amend(app, account.key, account.supplier.supplierKey,
        { issuanceKey: original.issuanceKey, reason, body }));
    }
    sameAnswer(await validateAmendment(account, { issuanceKey: original.issuanceKey,
      reason: 'changeSupplyCost', referenceId: reference, body: { date: today(),
        items: [{ name: '단가 인하', supplyCost: -1_000, tax: -100 }] } }),
    await amend(app, account.key, account.supplier.supplierKey, {
      issuanceKey: original.issuanceKey, reason: 'changeSupplyCost', referenceId: reference,
      body: { date: today(), items: [{ name: '단가 인하', supplyCost: -1_000, tax: -100 }] } }));
  });

  it.each([
    ['an unknown original', 'termination', { date: today() }, 'txi_none', null],
    ['a Supplier-Key of no issuer', 'termination', { date: today() }, null, 'sup_none'],
    ['a termination date in the future', 'termination', { date: '2999-01-01' }, null, null],
    ['a body with an unknown field', 'termination', { date: today(), extra: 1 }, null, null],
    ['a body for double issuance', 'doubleIssuance', { anything: true }, null, null],
    ['returned goods worth more than the invoice', 'returnedGoods', { date: today(),
      items: [{ name: '반품', supplyCost: 900_000, tax: 90_000 }] }, null, null],
    ['a letter of credit item that does not exist', 'localLetterOfCredit',
      { openedOn: today(), items: [7] }, null, null],
  ])('answers the error the amendment gives for %s, charging and making nothing',
    async (_name, reason, body, issuanceKey, supplierKey) => {
      const fresh = await createSupplierAccount(app, 'Refused amendments');
      const transmitted = await issueTransmitted(app, fresh.key, fresh.supplier.supplierKey);
      const before = await balanceOf(fresh.accountId);
      const target = { issuanceKey: issuanceKey ?? transmitted.issuanceKey, reason, body,
        ...(supplierKey === null ? {} : { supplierKey }) };
      sameAnswer(await validateAmendment(fresh, target), await amend(app, fresh.key,
        target.supplierKey ?? fresh.supplier.supplierKey, target));
      expect(await balanceOf(fresh.accountId)).toBe(before);
      expect(await amendmentCount(transmitted.issuanceKey)).toBe(0);
    });
});

describe('POST /v1/taxInvoices/issueRequests:validate', () => {
  let account: SupplierAccount;

  beforeAll(async () => {
    account = await createSupplierAccount(app, 'Requesting account');
  });

  const requestCount = async () => {
    const response = await app.server.inject(request(account.key, 'GET',
      '/v1/taxInvoices?limit=100'));
    return (response.json() as { taxInvoices: unknown[] }).taxInvoices.length;
  };
  const post = (path: string, body: unknown, reference?: string) =>
    postWithSupplier(app, account.key, path, { supplierKey: account.supplier.supplierKey, body,
      referenceId: reference });

  it('answers the document the supplier would be asked to issue, charging and mailing ' +
    'nothing, then the request takes the same reference id', async () => {
    const before = await balanceOf(account.accountId);
    const reference = referenceId('reverse');
    const response = await post('/v1/taxInvoices/issueRequests:validate', invoiceBody(),
      reference);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ valid: true,
      documents: [{ totals: { supplyCost: 200_000, tax: 20_000, total: 220_000 } }],
      price: { operation: 'taxInvoices.issue', points: 100 } });
    expect(await balanceOf(account.accountId)).toBe(before);
    expect(await requestCount()).toBe(0);
    const requested = await post('/v1/taxInvoices/issueRequest', invoiceBody(), reference);
    expect(requested.statusCode, requested.body).toBe(200);
    sameAnswer(await post('/v1/taxInvoices/issueRequests:validate', invoiceBody(), reference),
      await post('/v1/taxInvoices/issueRequest', invoiceBody(), reference));
  });

  it.each([
    ['a tax that is not 10 %', invoiceBody({ items: [{ date: today(), name: 'x',
      supplyCost: 100_000, tax: 1 }] })],
    ['no items', invoiceBody({ items: [] })],
    ['a broker', invoiceBody({ broker: { identificationNumber: '2208162517' } })],
  ])('answers the error the request gives for %s, charging nothing', async (_name, body) => {
    const before = await balanceOf(account.accountId);
    const count = await requestCount();
    sameAnswer(await post('/v1/taxInvoices/issueRequests:validate', body),
      await post('/v1/taxInvoices/issueRequest', body));
    expect(await balanceOf(account.accountId)).toBe(before);
    expect(await requestCount()).toBe(count);
  });
});

describe('POST /v1/cashReceipts/{issuanceKey}/cancellations:validate', () => {
  let merchant: MerchantAccount;
  let original: string;

  beforeAll(async () => {
    merchant = await createMerchantAccount(app, 'Cancelling account');
    original = await accepted(await issueReceipt(app, merchant.key, merchant.supplierKey,
      receiptBody()));
    expect((await waitForStatus(app, merchant.key, original, ['TRANSMITTED', 'FAILED'])).status)
      .toBe('TRANSMITTED');
  });

  const validateCancel = (issuanceKey: string, body: unknown, reference = referenceId('cv')) =>
    app.server.inject(request(merchant.key, 'POST',
      `/v1/cashReceipts/${issuanceKey}/cancellations:validate`,
      { body, headers: { 'service-client-reference-id': reference } }));
  const receiptCount = async () => {
    const response = await app.server.inject(request(merchant.key, 'GET',
      '/v1/cashReceipts?limit=100'));
    return (response.json() as { cashReceipts: unknown[] }).cashReceipts.length;
  };
  const PART = { reason: 'TRANSACTION_CANCELED', supplyCost: 5_000, tax: 500, serviceFee: 0,
    totalAmount: 5_500 };

  it('answers the cancellation receipt and what remains, charging nothing, then the ' +
    'cancellation, its replay and a conflict', async () => {
    const before = await balanceOf(merchant.accountId);
    const count = await receiptCount();
    const reference = referenceId('cancel');
    const response = await validateCancel(original, PART, reference);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ valid: true, replayOf: null, cancellation: {
      originalIssuanceKey: original, reason: 'TRANSACTION_CANCELED', supplyCost: 5_000,
      tax: 500, serviceFee: 0, totalAmount: 5_500, remainingAfter: { supplyCost: 5_000,
        tax: 500, serviceFee: 0, totalAmount: 5_500 } },
    price: { operation: 'cashReceipts.cancel', points: 10 } });
    expect(await balanceOf(merchant.accountId)).toBe(before);
    expect(await receiptCount()).toBe(count);
    const cancellation = await accepted(await cancelReceipt(app, merchant.key, original, PART,
      reference));
    expect(await validateCancel(original, PART, reference).then((replay) => replay.json()))
      .toMatchObject({ replayOf: cancellation, cancellation: null, price: { points: 0 } });
    const other = { reason: 'OTHER' };
    sameAnswer(await validateCancel(original, other, reference),
      await cancelReceipt(app, merchant.key, original, other, reference));
  });

  it.each([
    ['an unknown receipt', 'csr_none', { reason: 'TRANSACTION_CANCELED' }],
    ['more than remains', null, { ...PART, supplyCost: 50_000, tax: 5_000,
      totalAmount: 55_000 }],
    ['amounts that do not add up', null, { ...PART, totalAmount: 9_999 }],
    ['an unknown reason', null, { reason: 'MOOD' }],
  ])('answers the error the cancellation gives for %s, charging nothing',
    async (_name, issuanceKey, body) => {
      const before = await balanceOf(merchant.accountId);
      const count = await receiptCount();
      sameAnswer(await validateCancel(issuanceKey ?? original, body),
        await cancelReceipt(app, merchant.key, issuanceKey ?? original, body));
      expect(await balanceOf(merchant.accountId)).toBe(before);
      expect(await receiptCount()).toBe(count);
    });
});

describe('the SDK\'s validations', () => {
  it('reach the three operations and answer their errors as EtaxError', async () => {
    const account = await createSupplierAccount(app, 'SDK account');
    const etax = createEtaxClient({ apiKey: account.key, baseUrl, retry: false });
    const transmitted = await issueTransmitted(app, account.key, account.supplier.supplierKey);
    const amendment = await validateTaxInvoiceAmendment(etax, { kind: 'returnedGoods',
      issuanceKey: transmitted.issuanceKey, supplierKey: account.supplier.supplierKey,
      amendment: { date: today(), items: [{ name: '반품', supplyCost: 10_000, tax: 1_000 }] } });
    expect(amendment.documents[0]!.totals).toEqual({ supplyCost: -10_000, tax: -1_000,
      total: -11_000 });
    const doubled = await validateTaxInvoiceAmendment(etax, { kind: 'doubleIssuance',
      issuanceKey: transmitted.issuanceKey, supplierKey: account.supplier.supplierKey,
      amendment: undefined });
    expect(doubled.documents[0]!.totals.total).toBe(-220_000);
    const reverse = await validateReverseIssuanceRequest(etax, {
      supplierKey: account.supplier.supplierKey, draft: invoiceBody() as never });
    expect(reverse.price.points).toBe(100);
    await expect(validateCashReceiptCancellation(etax, { issuanceKey: 'csr_none',
      clientReferenceId: referenceId(), cancellation: { reason: 'OTHER' } }))
      .rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});

it('answers 401 without a key, as every operation', async () => {
  const response = await app.server.inject({ method: 'POST',
    url: '/v1/taxInvoices/issueRequests:validate', payload: invoiceBody() });
  expect(response.statusCode).toBe(401);
  expect(response.body).toBe('');
});
