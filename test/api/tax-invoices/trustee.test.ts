// Trustee issuance (위수탁, docs/tax-invoices.md § Trustee issuance) end to end: a consignment
// seller registered as the issuer issues in its consignor's name with itself as `broker`. The
// document is signed by the trustee, transmitted, served as XML whose TypeCode is 0103 (0203
// for its amendment) with the trustee as BrokerParty (its signature verified; xmlsec1 verifies
// trustee documents in test/areas/tax-invoices/xml/signed-document.test.ts), printed with the
// trustee's row, and booked as the consignor's sale. The consignor's registration status decides
// what may be supplied, the trustee's only whether it is closed; a trustee that is not the
// issuer, a supplier that is the trustee and a reverse issuance request with a trustee are
// refused with nothing charged. Run this file with DATABASE_URL too, for PostgreSQL.
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { verifyXmlDocument } from '../../../src/domain/xml-signature.ts';
import { SANDBOX_STATUS_NUMBERS } from '../../../src/upstream/tax-authority/sandbox.ts';
import { useApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { connectHometax, readAll } from '../revenue-expenses/helpers.ts';
import {
  createIssuingApp,
  amend,
  invoiceBody,
  issue,
  issueTransmitted,
  postWithSupplier,
  RECIPIENT_NUMBER,
  registerSupplier,
  request,
  SUPPLIER_NUMBER,
  today,
  waitForStatus,
  type TaxInvoiceView,
} from './helpers.ts';

let app: TestApp;

useApp(() => createIssuingApp({ AUTH_CACHE_TTL_MS: '0' }), (made) => {
  app = made;
});

// The consignment seller (수탁자) and the business it sells for (위탁자).
const TRUSTEE_NUMBER = '1248100998';
const CONSIGNOR_NUMBER = SUPPLIER_NUMBER;

const broker = (identificationNumber = TRUSTEE_NUMBER) => ({ identificationNumber,
  organizationName: '수탁판매 주식회사', representativeName: '최수탁',
  address: '서울특별시 강남구 테헤란로 1', businessType: '도소매', businessItem: '위탁판매',
  manager: { email: 'trustee@example.co.kr', name: '김수탁', telephone: '02-555-0100' } });

function trusteeBody(overrides: Record<string, unknown> = {}) {
  const body = invoiceBody(overrides) as ReturnType<typeof invoiceBody> & { supplier:
    { identificationNumber: string } };
  return { ...body, broker: broker(), ...overrides };
}

async function trusteeAccount(number = TRUSTEE_NUMBER) {
  const account = await app.createAccount();
  const trustee = await registerSupplier(app, account.keys.test, { identificationNumber: number,
    organizationName: '수탁판매 주식회사' });
  const balance = async () => (await app.platform.points.getBalance({
    accountId: account.accountId, environment: 'test' })).balance;
  return { key: account.keys.test, trustee, balance };
}

const xmlOf = async (key: string, issuanceKey: string) => {
  const response = await app.server.inject(request(key, 'GET',
    `/v1/taxInvoices/${issuanceKey}/xml`));
  expect(response.statusCode).toBe(200);
  return response.body;
};
const element = (xml: string, name: string) =>
  new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)?.[1] ?? null;

describe('a trustee tax invoice (위수탁)', () => {
  it('is issued in the consignor\'s name, signed by the trustee, with BrokerParty and 0103',
    async () => {
      const { key, trustee } = await trusteeAccount();
      const invoice = await issueTransmitted(app, key, trustee.supplierKey, trusteeBody());
      expect(invoice.invoice).toMatchObject({ supplier: { identificationNumber:
        CONSIGNOR_NUMBER }, broker: { identificationNumber: TRUSTEE_NUMBER,
        taxRegistrationId: null, manager: { email: 'trustee@example.co.kr' } } });

      const xml = await xmlOf(key, invoice.issuanceKey);
      expect(verifyXmlDocument(xml).valid).toBe(true);
      expect(element(xml, 'TypeCode')).toBe('0103');
      const invoicer = element(xml, 'InvoicerParty')!;
      const brokerParty = element(xml, 'BrokerParty')!;
      expect(element(invoicer, 'ID')).toBe(CONSIGNOR_NUMBER);
      expect(element(brokerParty, 'ID')).toBe(TRUSTEE_NUMBER);
      expect(element(brokerParty, 'NameText')).toBe('수탁판매 주식회사');
      expect(xml.indexOf('</InvoiceeParty><BrokerParty>')).toBeGreaterThan(0);

      const pdf = await app.server.inject(request(key, 'GET',
        `/v1/taxInvoices/${invoice.issuanceKey}/pdf`));
      expect(pdf.statusCode).toBe(200);
      const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf.rawPayload)),
        { mergePages: true });
      expect(text).toContain('전자세금계산서(위수탁)');
      expect(text).toContain('수탁자');
      expect(text).toContain('124-81-00998');
    });

  it('is amended by the trustee: the amendment is 0203 with the same trustee and consignor',
    async () => {
      const { key, trustee } = await trusteeAccount();
      const original = await issueTransmitted(app, key, trustee.supplierKey, trusteeBody());
      const response = await amend(app, key, trustee.supplierKey, {
        issuanceKey: original.issuanceKey, reason: 'changeSupplyCost',
        body: { date: today(), items: [{ name: '단가 인하', supplyCost: -20_000, tax: -2_000 }] } });
      expect(response.statusCode, response.body).toBe(200);
      const amendment = await waitForStatus(app, key,
        (response.json() as { issuanceKey: string }).issuanceKey, ['TRANSMITTED', 'FAILED']);
      expect(amendment.status).toBe('TRANSMITTED');
      expect(amendment.invoice).toMatchObject({ supplier: { identificationNumber:
        CONSIGNOR_NUMBER }, broker: { identificationNumber: TRUSTEE_NUMBER } });
      const xml = await xmlOf(key, amendment.issuanceKey);
      expect(element(xml, 'TypeCode')).toBe('0203');
      expect(element(element(xml, 'BrokerParty')!, 'ID')).toBe(TRUSTEE_NUMBER);
      expect(verifyXmlDocument(xml).valid).toBe(true);
    });

  it('is corrected only as a trustee document for the same consignor', async () => {
    const { key, trustee, balance } = await trusteeAccount();
    const original = await issueTransmitted(app, key, trustee.supplierKey, trusteeBody());
    const before = await balance();
    const withoutBroker: Record<string, unknown> = trusteeBody({ description: '정정' });
    delete withoutBroker.broker;
    expectError(await amend(app, key, trustee.supplierKey, { issuanceKey: original.issuanceKey,
      reason: 'entryCorrection', body: { invoice: withoutBroker } }), 400, 'INVALID_REQUEST',
    /^body\.invoice\.supplier\.identificationNumber must be the number of the issuer/);
    const otherConsignor = trusteeBody({ description: '정정' });
    otherConsignor.supplier = { ...otherConsignor.supplier, identificationNumber: '2208162517' };
    otherConsignor.supplied = { ...otherConsignor.supplied, identificationNumber: '1078614075' };
    expectError(await amend(app, key, trustee.supplierKey, { issuanceKey: original.issuanceKey,
      reason: 'entryCorrection', body: { invoice: otherConsignor } }), 400, 'INVALID_REQUEST',
    /^body\.invoice\.supplier\.identificationNumber must stay 1234567891/);
    expect(await balance()).toBe(before);
    const corrected = await amend(app, key, trustee.supplierKey, { issuanceKey:
      original.issuanceKey, reason: 'entryCorrection', body: { invoice: trusteeBody({
      description: '정정' }) } });
    expect(corrected.statusCode, corrected.body).toBe(200);
  });

  it('is the consignor\'s sale in the books, never the trustee\'s, and the buyer\'s purchase',
    async () => {
      const { key, trustee } = await trusteeAccount();
      // Issued with nothing connected: the trustee's own books get no sale of it.
      const alone = await issueTransmitted(app, key, trustee.supplierKey, trusteeBody());
      expect((await readAll(app, key)).items
        .filter((item) => item.approvalNumber === alone.ntsTransactionId)).toEqual([]);
      // In the sandbox an invoice is booked in the issuing account only: here the same account
      // also issues for the consignor's and the buyer's numbers and has connected both, and
      // another account connected to the consignor's number learns nothing.
      const other = await app.createAccount();
      await connectHometax(app, other.keys.test, CONSIGNOR_NUMBER);
      await connectHometax(app, key, CONSIGNOR_NUMBER);
      await connectHometax(app, key, RECIPIENT_NUMBER);
      const otherBefore = await readAll(app, other.keys.test);
      const invoice = await issueTransmitted(app, key, trustee.supplierKey, trusteeBody());

      const entries = (await readAll(app, key)).items
        .filter((item) => item.approvalNumber === invoice.ntsTransactionId);
      expect(entries.find((item) => item.direction === 'SALES')).toMatchObject({
        source: 'ISSUED_HERE', counterpart: { businessRegistrationNumber: RECIPIENT_NUMBER } });
      expect(entries.find((item) => item.direction === 'PURCHASE')).toMatchObject({
        issuanceKey: null, counterpart: { businessRegistrationNumber: CONSIGNOR_NUMBER } });
      expect(entries).toHaveLength(2);
      expect((await readAll(app, other.keys.test, otherBefore.cursor)).items).toEqual([]);
    });
});

describe('who may issue as a trustee', () => {
  it('refuses a trustee that is not the issuer, and a supplier that is the trustee, uncharged',
    async () => {
      const { key, trustee, balance } = await trusteeAccount();
      const before = await balance();
      expectError(await issue(app, key, trustee.supplierKey,
        trusteeBody({ broker: broker('2208162517') })), 400, 'INVALID_REQUEST',
      /^body\.broker\.identificationNumber must be the number of the issuer named by Supplier-Key/);
      const itself = trusteeBody();
      itself.supplier = { ...itself.supplier, identificationNumber: TRUSTEE_NUMBER };
      expectError(await issue(app, key, trustee.supplierKey, itself), 400, 'INVALID_REQUEST',
        /^body\.supplier\.identificationNumber must differ from body\.broker/);
      expectError(await issue(app, key, trustee.supplierKey, trusteeBody({ broker: {
        ...broker(), unknown: 1 } })), 400, 'INVALID_REQUEST');
      expectError(await issue(app, key, trustee.supplierKey, trusteeBody({ broker: {
        ...broker(), identificationNumber: 1248100998 } })), 400, 'INVALID_REQUEST');
      expectError(await postWithSupplier(app, key, '/v1/taxInvoices/issueRequest', {
        supplierKey: trustee.supplierKey, body: trusteeBody() }), 400, 'INVALID_REQUEST',
      /^body\.broker must be null: a reverse issuance request/);
      expect(await balance()).toBe(before);
      const list = await app.server.inject(request(key, 'GET', '/v1/taxInvoices'));
      expect((list.json() as { taxInvoices: TaxInvoiceView[] }).taxInvoices).toEqual([]);
    });

  it('judges the consignor\'s registration status, and the trustee\'s only for closure',
    async () => {
      const { key, trustee, balance } = await trusteeAccount();
      const before = await balance();
      const forConsignor = (number: string) => {
        const body = trusteeBody();
        body.supplier = { ...body.supplier, identificationNumber: number };
        return body;
      };
      expectError(await issue(app, key, trustee.supplierKey,
        forConsignor(SANDBOX_STATUS_NUMBERS.closed)), 409, 'SUPPLIER_CLOSED',
      /^The supplier 9999901080 was closed/);
      expectError(await issue(app, key, trustee.supplierKey,
        forConsignor(SANDBOX_STATUS_NUMBERS.activeTaxFree)), 409, 'SUPPLIER_TAX_EXEMPT');
      expect(await balance()).toBe(before);

      // A tax-exempt business may sell a taxable consignor's goods; a closed one may not.
      const exemptTrustee = await trusteeAccount(SANDBOX_STATUS_NUMBERS.activeTaxFree);
      const accepted = await issue(app, exemptTrustee.key, exemptTrustee.trustee.supplierKey,
        trusteeBody({ broker: broker(SANDBOX_STATUS_NUMBERS.activeTaxFree) }));
      expect(accepted.statusCode, accepted.body).toBe(200);
      const closedTrustee = await trusteeAccount(SANDBOX_STATUS_NUMBERS.closed);
      expectError(await issue(app, closedTrustee.key, closedTrustee.trustee.supplierKey,
        trusteeBody({ broker: broker(SANDBOX_STATUS_NUMBERS.closed) })), 409, 'SUPPLIER_CLOSED',
      /^The trustee 9999901080 was closed/);
    });
});
