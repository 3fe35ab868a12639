// The payment breakdown of amendment documents, end to end (docs/tax-invoice-amendments.md § The
// payment breakdown): an original with a breakdown of cash 200,000 and credit 20,000 on its
// 220,000 total is issued and transmitted, then amended for each reason whose documents are not
// the whole original. A supply cost change and a return have the breakdown their request gives,
// or none, never the original's (which would exceed their total); a local letter of credit's
// negative half takes back the original's breakdown only when it covers every item, and its
// zero-rated half has the one its request gives; a termination takes back the original's. The
// documents are transmitted and their signed XML carries the parts with the total's sign. Run
// this file with DATABASE_URL too, for PostgreSQL.
import { describe, expect, it } from 'vitest';
import { useApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import {
  createIssuingApp,
  amend,
  createSupplierAccount,
  invoiceBody,
  issueTransmitted,
  request,
  today,
  waitForStatus,
  type TaxInvoiceView,
} from './helpers.ts';

let app: TestApp;

useApp(createIssuingApp, (made) => {
  app = made;
});

const PAID = { cash: 200_000, check: null, note: null, credit: 20_000 };

type Payment = { cash: number | null; check: number | null; note: number | null;
  credit: number | null };
const paymentOf = (document: TaxInvoiceView) =>
  (document.invoice as { payment?: Payment }).payment;

// The PaidAmount of each SpecifiedPaymentMeans of the signed XML, by TypeCode.
function paidAmounts(xml: string): Record<string, number> {
  const found: Record<string, number> = {};
  const means = new RegExp('<SpecifiedPaymentMeans><TypeCode>([0-9]+)</TypeCode>' +
    '<PaidAmount>(-?[0-9]+)</PaidAmount></SpecifiedPaymentMeans>', 'g');
  for (const match of xml.matchAll(means)) {
    found[match[1]!] = Number(match[2]);
  }
  return found;
}

// An account whose supplier has transmitted an original with the breakdown above.
async function originalWithPayment() {
  const { key, supplier, accountId } = await createSupplierAccount(app);
  const original = await issueTransmitted(app, key, supplier.supplierKey,
    invoiceBody({ payment: PAID }));
  expect(paymentOf(original)).toEqual(PAID);
  const balance = async () =>
    (await app.platform.points.getBalance({ accountId, environment: 'test' })).balance;

  // The documents of an accepted amendment, once transmitted, each with its signed XML.
  async function amended(reason: string, body?: unknown) {
    const response = await amend(app, key, supplier.supplierKey,
      { issuanceKey: original.issuanceKey, reason, body });
    expect(response.statusCode, response.body).toBe(200);
    const accepted = response.json() as { issuanceKey: string; issuanceKeys?: string[] };
    const documents = [];
    for (const issuanceKey of accepted.issuanceKeys ?? [accepted.issuanceKey]) {
      const document = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
      expect(document.status).toBe('TRANSMITTED');
      const xml = await app.server.inject(request(key, 'GET',
        `/v1/taxInvoices/${issuanceKey}/xml`));
      expect(xml.statusCode).toBe(200);
      documents.push({ document, paid: paidAmounts(xml.body) });
    }
    return documents;
  }

  // A refused amendment: 400 naming body.payment, and nothing charged.
  async function refused(reason: string, body: unknown) {
    const before = await balance();
    expectError(await amend(app, key, supplier.supplierKey,
      { issuanceKey: original.issuanceKey, reason, body }), 400, 'INVALID_REQUEST',
    /body\.payment adds up to/);
    expect(await balance()).toBe(before);
  }

  return { original, amended, refused };
}

const DECREASE = { date: today(), items: [{ name: '단가 인하', supplyCost: -20_000, tax: -2_000 }] };
const RETURN = { date: today(), items: [{ name: '클라우드 사용료', quantity: 2, unitPrice: 5_000,
  supplyCost: 10_000, tax: 1_000 }] };

describe.concurrent('amendments of an invoice with a payment breakdown', () => {
  it('changes the supply cost without copying the original\'s breakdown', async () => {
    const { amended } = await originalWithPayment();
    const [change] = await amended('changeSupplyCost', DECREASE);
    expect(change!.document.totals.total).toBe(-22_000);
    expect(paymentOf(change!.document)).toBeUndefined();
    expect(change!.paid).toEqual({});
  });

  it('gives a supply cost change the breakdown of its difference, negative on the XML',
    async () => {
      const { amended, refused } = await originalWithPayment();
      await refused('changeSupplyCost', { ...DECREASE, payment: { cash: 22_001 } });
      const [change] = await amended('changeSupplyCost',
        { ...DECREASE, payment: { cash: 12_000, credit: 10_000 } });
      expect(paymentOf(change!.document)).toEqual({ cash: 12_000, check: null, note: null,
        credit: 10_000 });
      expect(change!.paid).toEqual({ 10: -12_000, 40: -10_000 });
    });

  it('takes goods back without the original\'s breakdown, or with the return\'s own',
    async () => {
      const { amended, refused } = await originalWithPayment();
      const [plain] = await amended('returnedGoods', RETURN);
      expect(plain!.document.totals.total).toBe(-11_000);
      expect(paymentOf(plain!.document)).toBeUndefined();
      await refused('returnedGoods', { ...RETURN, payment: { cash: 11_000, credit: 1 } });
      const [refund] = await amended('returnedGoods', { ...RETURN, payment: { cash: 11_000 } });
      expect(refund!.paid).toEqual({ 10: -11_000 });
    });

  it('takes back the original\'s breakdown with a local letter of credit covering every item',
    async () => {
      const { amended, refused } = await originalWithPayment();
      await refused('localLetterOfCredit', { openedOn: today(), payment: { cash: 200_001 } });
      const [negative, zeroRated] = await amended('localLetterOfCredit',
        { openedOn: today(), payment: { credit: 200_000 } });
      expect(negative!.document.totals.total).toBe(-220_000);
      expect(paymentOf(negative!.document)).toEqual(PAID);
      expect(negative!.paid).toEqual({ 10: -200_000, 40: -20_000 });
      expect(zeroRated!.document.totals.total).toBe(200_000);
      expect(paymentOf(zeroRated!.document)).toEqual({ cash: null, check: null, note: null,
        credit: 200_000 });
      expect(zeroRated!.paid).toEqual({ 40: 200_000 });
    });

  it('gives a local letter of credit for some items no breakdown unless asked', async () => {
    const { amended } = await originalWithPayment();
    const [negative, zeroRated] = await amended('localLetterOfCredit',
      { openedOn: today(), items: [0] });
    expect(negative!.document.totals.total).toBe(-55_000);
    expect(paymentOf(negative!.document)).toBeUndefined();
    expect(paymentOf(zeroRated!.document)).toBeUndefined();
    expect([negative!.paid, zeroRated!.paid]).toEqual([{}, {}]);
  });

  it('takes back the original\'s breakdown with a termination', async () => {
    const { amended } = await originalWithPayment();
    const [reversal] = await amended('termination', { date: today() });
    expect(paymentOf(reversal!.document)).toEqual(PAID);
    expect(reversal!.paid).toEqual({ 10: -200_000, 40: -20_000 });
  });
});
