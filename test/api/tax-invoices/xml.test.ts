// The signed standard XML of a tax invoice through the API: made when the document is issued
// (on the workers), with the approval number as its IssueID, verified with the
// certificate it carries; served at GET /v1/taxInvoices/{issuanceKey}/xml to its owner only (404
// for any other account or an unknown key, 409 TAX_INVOICE_NOT_SIGNED while there is none); and
// transmitted, the sandbox authority answering with that same approval number. The payment
// breakdown is accepted within the total, returned on retrieval and written on the XML.
import { X509Certificate } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { verifyXmlDocument } from '../../../src/domain/xml-signature.ts';
import { seoulDate } from '../../../src/domain/business-days.ts';
import { findInvoiceByKey } from '../../../src/areas/tax-invoices/store.ts';
import { findXmlDocumentsByKeys } from '../../../src/areas/tax-invoices/xml/store.ts';
import type { TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import {
  amend,
  createSupplierAccount,
  createIssuingApp,
  useSupplierAccount,
  invoiceBody,
  issue,
  issueTransmitted,
  request,
  today,
  waitForStatus,
  type Supplier,
} from './helpers.ts';

let app: TestApp;
let key: string;
let accountId: string;
let supplier: Supplier;

useSupplierAccount({ createApp: createIssuingApp }, (made) => {
  ({ app, key, accountId, supplier } = made);
});

const getXml = (callerKey: string, issuanceKey: string) =>
  app.server.inject(request(callerKey, 'GET', `/v1/taxInvoices/${issuanceKey}/xml`));

const element = (xml: string, name: string) =>
  new RegExp(`<(?:ds:)?${name}>([^<]*)</(?:ds:)?${name}>`).exec(xml)?.[1] ?? null;

describe('GET /v1/taxInvoices/{issuanceKey}/xml', () => {
  it('serves the signed XML of a transmitted invoice: verified, numbered, transmitted as is',
    async () => {
      const invoice = await issueTransmitted(app, key, supplier.supplierKey);
      const response = await getXml(key, invoice.issuanceKey);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(response.headers['content-disposition'])
        .toBe(`inline; filename="${invoice.issuanceKey}.xml"`);
      const xml = response.body;
      const check = verifyXmlDocument(xml);
      expect(check.valid).toBe(true);
      if (!check.valid) return;
      expect(new X509Certificate(check.certificate).subject)
        .toContain(supplier.identificationNumber);
      // The approval number was given at issuance, from the issue date, and is what the
      // sandbox authority answered.
      expect(element(xml, 'IssueID')).toBe(invoice.ntsTransactionId);
      expect(invoice.ntsTransactionId!.slice(0, 8))
        .toBe(seoulDate(new Date(invoice.issuedAt!)).replaceAll('-', ''));
      expect(element(xml, 'TypeCode')).toBe('0101');
      expect(element(xml, 'IssueDateTime')).toMatch(/^[0-9]{14}$/);
      expect(element(xml, 'GrandTotalAmount')).toBe(String(invoice.totals.total));
      // The signature columns of the document, and the certificate kept with its XML, are those
      // of the XML.
      const row = (await findInvoiceByKey(app.platform.database.db, invoice.issuanceKey))!;
      expect(element(xml, 'SignatureValue')).toBe(row.signature);
      const [kept] = await findXmlDocumentsByKeys(app.platform.database.db, [invoice.issuanceKey]);
      expect(element(xml, 'X509Certificate')).toBe(kept!.signingCertificate);
      // Changing a signed byte breaks it.
      expect(verifyXmlDocument(xml.replace('<GrandTotalAmount>', '<GrandTotalAmount>1'))
        .valid).toBe(false);
    });

  it('writes a zero-rated and a tax-free invoice with their type codes', async () => {
    const zero = invoiceBody();
    zero.items = zero.items.map((item) => ({ ...item, tax: 0 }));
    const free = invoiceBody();
    free.items = free.items.map((item) => ({ ...item, tax: null as unknown as number }));
    for (const [body, typeCode] of [[zero, '0102'], [free, '0301']] as const) {
      const invoice = await issueTransmitted(app, key, supplier.supplierKey, body);
      const xml = (await getXml(key, invoice.issuanceKey)).body;
      expect(verifyXmlDocument(xml).valid).toBe(true);
      expect(element(xml, 'TypeCode')).toBe(typeCode);
    }
  });

  it('writes an amendment with its reason code and the original\'s approval number',
    async () => {
      const original = await issueTransmitted(app, key, supplier.supplierKey);
      const response = await amend(app, key, supplier.supplierKey,
        { issuanceKey: original.issuanceKey, reason: 'termination', body: { date: today() } });
      expect(response.statusCode, response.body).toBe(200);
      const { issuanceKey } = response.json() as { issuanceKey: string };
      await waitForStatus(app, key, issuanceKey, ['TRANSMITTED']);
      const xml = (await getXml(key, issuanceKey)).body;
      expect(verifyXmlDocument(xml).valid).toBe(true);
      expect(element(xml, 'TypeCode')).toBe('0201');
      expect(element(xml, 'AmendmentStatusCode')).toBe('04');
      expect(element(xml, 'OriginalIssueID')).toBe(original.ntsTransactionId);
      expect(element(xml, 'GrandTotalAmount')).toBe(String(-original.totals.total));
    });

  it('numbers documents as the tax authority does, letters in the serial; such a number is ' +
    'transmitted, amended and printed', async () => {
    // The counter where the serials read `a1b2c3…`, as the standard's sample number ends.
    await app.platform.database.db.execute(sql`select setval('tax_invoice_approval_serials',
      ${parseInt('a1b2c300', 36)})`);
    const original = await issueTransmitted(app, key, supplier.supplierKey);
    const number = original.ntsTransactionId!;
    expect(number).toMatch(new RegExp(`^${seoulDate(new Date(original.issuedAt!))
      .replaceAll('-', '')}41000000a1b2c3[0-9a-z]{2}$`));
    const response = await amend(app, key, supplier.supplierKey,
      { issuanceKey: original.issuanceKey, reason: 'termination', body: { date: today() } });
    expect(response.statusCode, response.body).toBe(200);
    const { issuanceKey } = response.json() as { issuanceKey: string };
    const amendment = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED']);
    expect(amendment.amendment).toMatchObject({ originalNtsTransactionId: number });
    expect(amendment.ntsTransactionId).toMatch(/^[0-9]{8}41000000a1b2c3[0-9a-z]{2}$/);
    const xml = (await getXml(key, issuanceKey)).body;
    expect(verifyXmlDocument(xml).valid).toBe(true);
    expect(element(xml, 'OriginalIssueID')).toBe(number);
    const pdf = await app.server.inject(request(key, 'GET', `/v1/taxInvoices/${issuanceKey}/pdf`));
    expect(pdf.statusCode).toBe(200);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf.rawPayload)),
      { mergePages: true });
    const printed = (approval: string) =>
      `${approval.slice(0, 8)}-${approval.slice(8, 16)}-${approval.slice(16)}`;
    expect(text).toContain(printed(amendment.ntsTransactionId!));
    expect(text).toContain(printed(number));
  });

  it('is 404 for another account\'s document and for an unknown key', async () => {
    const invoice = await issueTransmitted(app, key, supplier.supplierKey);
    const other = await createSupplierAccount(app, 'Other account');
    expectError(await getXml(other.key, invoice.issuanceKey), 404, 'NOT_FOUND');
    expectError(await getXml(other.liveKey, invoice.issuanceKey), 404, 'NOT_FOUND');
    expectError(await getXml(key, 'txi_none'), 404, 'NOT_FOUND');
    expectError(await getXml(key, 'x'.repeat(101)), 400, 'INVALID_REQUEST');
  });

  it('is 409 TAX_INVOICE_NOT_SIGNED for a document canceled before it was signed',
    async () => {
      // Canceled at once: whether the worker signed it first decides which answer is right.
      const response = await issue(app, key, supplier.supplierKey);
      const { issuanceKey } = response.json() as { issuanceKey: string };
      const cancel = await app.server.inject(request(key, 'POST',
        `/v1/taxInvoices/${issuanceKey}/cancel`));
      expect(cancel.statusCode).toBe(200);
      const row = (await findInvoiceByKey(app.platform.database.db, issuanceKey))!;
      const xml = await getXml(key, issuanceKey);
      if (row.issuedAt === null) {
        expectError(xml, 409, 'TAX_INVOICE_NOT_SIGNED', /CANCELED/);
      } else {
        expect(xml.statusCode).toBe(200);
      }
    });
});

describe('the payment breakdown', () => {
  it('is accepted within the total, returned on retrieval and written on the XML', async () => {
    const payment = { cash: 100_000, check: 50_000, note: null, credit: 70_000 };
    const invoice = await issueTransmitted(app, key, supplier.supplierKey,
      invoiceBody({ payment }));
    expect(invoice.invoice).toMatchObject({ payment });
    const xml = (await getXml(key, invoice.issuanceKey)).body;
    expect(xml).toContain('<SpecifiedPaymentMeans><TypeCode>10</TypeCode>' +
      '<PaidAmount>100000</PaidAmount></SpecifiedPaymentMeans>');
    expect(xml).toContain('<TypeCode>20</TypeCode><PaidAmount>50000</PaidAmount>');
    expect(xml).toContain('<TypeCode>40</TypeCode><PaidAmount>70000</PaidAmount>');
    expect(xml).not.toContain('<TypeCode>30</TypeCode>');
  });

  it('fills absent parts with null and leaves a document without one as it was', async () => {
    const given = await issue(app, key, supplier.supplierKey,
      invoiceBody({ payment: { cash: 1 } }));
    const { issuanceKey } = given.json() as { issuanceKey: string };
    const read = await app.server.inject(request(key, 'GET', `/v1/taxInvoices/${issuanceKey}`));
    expect(read.json().invoice.payment).toEqual({ cash: 1, check: null, note: null, credit: null });
    const none = await issue(app, key, supplier.supplierKey);
    const plain = await app.server.inject(request(key, 'GET',
      `/v1/taxInvoices/${(none.json() as { issuanceKey: string }).issuanceKey}`));
    expect(plain.json().invoice).not.toHaveProperty('payment');
  });

  it('is 400 when its parts add up to more than the total, and nothing is charged', async () => {
    const balance = () => app.platform.points.getBalance({ accountId, environment: 'test' });
    const before = await balance();
    const response = await issue(app, key, supplier.supplierKey,
      invoiceBody({ payment: { cash: 200_000, credit: 20_001 } }));
    expectError(response, 400, 'INVALID_REQUEST',
      /body\.payment adds up to 220001 won .*total amount of 220000 won/);
    expect(await balance()).toEqual(before);
    // Exactly the total is accepted.
    const exact = await issue(app, key, supplier.supplierKey,
      invoiceBody({ payment: { cash: 200_000, credit: 20_000 } }));
    expect(exact.statusCode, exact.body).toBe(200);
  });

  it('is 400 for negative, fractional, textual or unknown parts', async () => {
    for (const payment of [{ cash: -1 }, { cash: 1.5 }, { cash: '100' }, { cheque: 1 },
      'cash', [100]]) {
      const response = await issue(app, key, supplier.supplierKey, invoiceBody({ payment }));
      expectError(response, 400, 'INVALID_REQUEST', /payment/);
    }
  });
});
