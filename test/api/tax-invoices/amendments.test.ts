// POST /v1/taxInvoices/{issuanceKey}/amend/* end to end: for each of the six reasons an
// original is issued and transmitted by the jobs, then amended, and the new documents are
// transmitted too, with the reason, the original's key and approval number, their signs, write
// dates and charge. Then what is refused, and that a refusal makes and charges nothing: an
// original that is not TRANSMITTED, a Supplier-Key of another supplier, an original of another
// account or environment, a reused reference id, bad bodies, and a second reversal, also when
// two terminations race (run this file with DATABASE_URL for PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as store from '../../../src/areas/tax-invoices/store.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import {
  amend,
  getInvoice,
  invoiceBody,
  issue,
  issueTransmitted,
  createSupplierAccount,
  registerSupplier,
  request,
  today,
  waitForStatus,
  type Supplier,
  type TaxInvoiceView,
} from './helpers.ts';

type Amendment = {
  reason: string; reasonCode: number; originalIssuanceKey: string;
  originalNtsTransactionId: string;
};
type Item = { date: string; supplyCost: number; tax: number | null; quantity: number | null };
type Document = { date: string; items: Item[]; description: string | null };

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' } });
});
afterAll(async () => {
  await app?.close();
});

// The documents made from `original`, in the order they were made.
async function amendmentsOf(original: string) {
  return store.findAmendments(app.platform.database.db, original);
}

function expectAmends(document: TaxInvoiceView, original: TaxInvoiceView, reason: string,
  reasonCode: number) {
  expect(document.amendment as Amendment).toEqual({ reason, reasonCode,
    originalIssuanceKey: original.issuanceKey,
    originalNtsTransactionId: original.ntsTransactionId });
  expect(document.issuanceType).toBe('STANDARD');
}

// A new account with a registered supplier, and the calls a test makes with its test key. Each
// test amends the documents of its own account: no test's balance sees another's charges, so
// the tests run at once while they wait for the jobs to transmit.
async function newSupplier() {
  const { key, liveKey, accountId, supplier } = await createSupplierAccount(app);

  async function balance(): Promise<number> {
    return (await app.platform.points.getBalance({ accountId, environment: 'test' })).balance;
  }

  async function transmitted(issuanceKey: string): Promise<TaxInvoiceView> {
    const invoice = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
    expect(invoice.status).toBe('TRANSMITTED');
    expect(invoice.ntsTransactionId).toMatch(/^[0-9]{8}41000000[0-9a-z]{8}$/);
    return invoice;
  }

  // Amends and returns the new documents once transmitted, and the points the request charged.
  async function amendAndTransmit(original: TaxInvoiceView, reason: string, body?: unknown) {
    const before = await balance();
    const response = await amend(app, key, supplier.supplierKey,
      { issuanceKey: original.issuanceKey, reason, body });
    expect(response.statusCode, response.body).toBe(200);
    const accepted = response.json() as { issuanceKey: string; issuanceKeys?: string[] };
    const chargedPoints = before - await balance();
    const keys = accepted.issuanceKeys ?? [accepted.issuanceKey];
    expect(keys[0]).toBe(accepted.issuanceKey);
    const documents = [];
    for (const issuanceKey of keys) documents.push(await transmitted(issuanceKey));
    return { accepted, documents, chargedPoints };
  }

  return { key, liveKey, supplier, balance, transmitted, amendAndTransmit };
}

const invoiceOf = (document: TaxInvoiceView) => document.invoice as Document;

describe.concurrent('happy', () => {
  it('terminates: one negative copy on the termination date, 100 points', async () => {
    const { key, supplier, amendAndTransmit } = await newSupplier();
    const original = await issueTransmitted(app, key, supplier.supplierKey);
    const { accepted, documents, chargedPoints } = await amendAndTransmit(original,
      'termination', { date: today() });
    expect(Object.keys(accepted)).toEqual(['issuanceKey']);
    expect(chargedPoints).toBe(100);
    const [document] = documents;
    expectAmends(document!, original, 'TERMINATION', 4);
    expect(document!.totals).toEqual({ supplyCost: -200_000, tax: -20_000, total: -220_000 });
    expect(invoiceOf(document!).date).toBe(today());
    expect(invoiceOf(document!).items[0]).toMatchObject({ quantity: -10, supplyCost: -50_000,
      tax: -5_000 });
  });

  it('changes the supply cost: the difference on the change date, original date in the remark',
    async () => {
      const { key, supplier, amendAndTransmit } = await newSupplier();
      const original = await issueTransmitted(app, key, supplier.supplierKey);
      const { documents, chargedPoints } = await amendAndTransmit(original, 'changeSupplyCost', {
        date: today(), items: [{ name: '단가 인하', supplyCost: -20_000, tax: -2_000 }],
        description: '단가 인하 합의' });
      expect(chargedPoints).toBe(100);
      const [document] = documents;
      expectAmends(document!, original, 'SUPPLY_COST_CHANGE', 2);
      expect(document!.totals).toEqual({ supplyCost: -20_000, tax: -2_000, total: -22_000 });
      expect(invoiceOf(document!).description)
        .toBe(`당초 작성일자 ${invoiceOf(original).date} 단가 인하 합의`);
    });

  it('reverses a double issuance: one negative copy with the original\'s date, no body',
    async () => {
      const { key, supplier, amendAndTransmit } = await newSupplier();
      const original = await issueTransmitted(app, key, supplier.supplierKey);
      const { documents, chargedPoints } = await amendAndTransmit(original, 'doubleIssuance');
      expect(chargedPoints).toBe(100);
      const [document] = documents;
      expectAmends(document!, original, 'DOUBLE_ISSUANCE', 6);
      expect(document!.totals).toEqual({ supplyCost: -200_000, tax: -20_000, total: -220_000 });
      expect(invoiceOf(document!).date).toBe(invoiceOf(original).date);
    });

  it.each([
    ['a zero-length JSON body', ''],
    ['an empty JSON object', {}],
  ])('reverses a double issuance sent %s, as with no body', async (_case, body) => {
    const { key, supplier, amendAndTransmit } = await newSupplier();
    const original = await issueTransmitted(app, key, supplier.supplierKey);
    const { documents, chargedPoints } = await amendAndTransmit(original, 'doubleIssuance', body);
    expect(chargedPoints).toBe(100);
    expectAmends(documents[0]!, original, 'DOUBLE_ISSUANCE', 6);
  });

  it('corrects an entry: the negative original, then the corrected one, 200 points',
    async () => {
      const { key, supplier, amendAndTransmit } = await newSupplier();
      const original = await issueTransmitted(app, key, supplier.supplierKey);
      const corrected = invoiceBody();
      corrected.supplied.organizationName = '주식회사 받는곳 (정정)';
      const { accepted, documents, chargedPoints } = await amendAndTransmit(original,
        'entryCorrection', { invoice: corrected });
      expect(accepted.issuanceKeys).toHaveLength(2);
      expect(chargedPoints).toBe(200);
      const [cancellation, correction] = documents;
      for (const document of documents) expectAmends(document, original, 'ENTRY_CORRECTION', 1);
      expect(cancellation!.totals).toEqual({ supplyCost: -200_000, tax: -20_000,
        total: -220_000 });
      expect(invoiceOf(cancellation!).date).toBe(invoiceOf(original).date);
      expect(correction!.totals).toEqual(original.totals);
      expect((correction!.invoice as { supplied: { organizationName: string } }).supplied
        .organizationName).toBe('주식회사 받는곳 (정정)');
    });

  it('takes back returned goods: sent positive, issued negative on the return date',
    async () => {
      const { key, supplier, amendAndTransmit } = await newSupplier();
      const original = await issueTransmitted(app, key, supplier.supplierKey);
      const { documents, chargedPoints } = await amendAndTransmit(original, 'returnedGoods', {
        date: today(), items: [{ name: '클라우드 사용료', quantity: 2, unitPrice: 5_000,
          supplyCost: 10_000, tax: 1_000 }] });
      expect(chargedPoints).toBe(100);
      const [document] = documents;
      expectAmends(document!, original, 'RETURNED_GOODS', 3);
      expect(invoiceOf(document!).items[0]).toMatchObject({ quantity: -2, supplyCost: -10_000,
        tax: -1_000 });
      expect(invoiceOf(document!).description).toBe(`당초 작성일자 ${invoiceOf(original).date}`);
    });

  it('applies a local letter of credit: taxed items negated, then zero-rated', async () => {
    const { key, supplier, balance, transmitted } = await newSupplier();
    const original = await issueTransmitted(app, key, supplier.supplierKey);
    const referenceId = `lc-${original.issuanceKey}`;
    const before = await balance();
    const response = await amend(app, key, supplier.supplierKey, { issuanceKey:
      original.issuanceKey, reason: 'localLetterOfCredit', body: { openedOn: today() },
    referenceId });
    expect(response.statusCode, response.body).toBe(200);
    expect(before - await balance()).toBe(200);
    const { issuanceKeys } = response.json() as { issuanceKeys: string[] };
    const [taxable, zeroRated] = [await transmitted(issuanceKeys[0]!),
      await transmitted(issuanceKeys[1]!)];
    for (const document of [taxable!, zeroRated!]) {
      expectAmends(document, original, 'LOCAL_LETTER_OF_CREDIT', 5);
      expect(invoiceOf(document).date).toBe(invoiceOf(original).date);
      expect(invoiceOf(document).description).toMatch(new RegExp(`^내국신용장 개설일 ${today()}`));
    }
    expect(taxable!.totals).toEqual({ supplyCost: -200_000, tax: -20_000, total: -220_000 });
    expect(zeroRated!.totals).toEqual({ supplyCost: 200_000, tax: 0, total: 200_000 });
    const status = await app.server.inject(request(key, 'GET',
      `/v1/taxInvoices/issue/status?clientReferenceId=${referenceId}`));
    expect(status.json()).toMatchObject({ issuanceKey: issuanceKeys[0], issuanceKeys });
  });

  it('amends the corrected document of an entry correction in place of the original',
    async () => {
      const { key, supplier, amendAndTransmit } = await newSupplier();
      const original = await issueTransmitted(app, key, supplier.supplierKey);
      const corrected = invoiceBody({ description: '정정' });
      const first = await amendAndTransmit(original, 'entryCorrection', { invoice: corrected });
      const replacement = first.documents[1]!;
      const { documents } = await amendAndTransmit(replacement, 'termination',
        { date: today() });
      expectAmends(documents[0]!, replacement, 'TERMINATION', 4);
    });
});

describe.concurrent('errors', () => {
  it('refuses a second reversal with 409 TAX_INVOICE_ALREADY_AMENDED and charges nothing',
    async () => {
      const { key, supplier, balance, amendAndTransmit } = await newSupplier();
      const original = await issueTransmitted(app, key, supplier.supplierKey);
      await amendAndTransmit(original, 'termination', { date: today() });
      const before = await balance();
      for (const [reason, body] of [['termination', { date: today() }],
        ['doubleIssuance', undefined], ['changeSupplyCost', { date: today(),
          items: [{ name: '인하', supplyCost: -1_000, tax: -100 }] }]] as const) {
        expectError(await amend(app, key, supplier.supplierKey,
          { issuanceKey: original.issuanceKey, reason, body }), 409,
        'TAX_INVOICE_ALREADY_AMENDED');
      }
      expect(await balance()).toBe(before);
      expect(await amendmentsOf(original.issuanceKey)).toHaveLength(1);
    });

  it('refuses to amend an amendment document with 409 TAX_INVOICE_NOT_AMENDABLE', async () => {
    const { key, supplier, amendAndTransmit } = await newSupplier();
    const original = await issueTransmitted(app, key, supplier.supplierKey);
    const { documents } = await amendAndTransmit(original, 'doubleIssuance');
    const response = await amend(app, key, supplier.supplierKey,
      { issuanceKey: documents[0]!.issuanceKey, reason: 'termination', body: { date: today() } });
    const body = expectError(response, 409, 'TAX_INVOICE_NOT_AMENDABLE');
    expect(body.message).toContain(`amend that tax invoice instead`);
  });

  it('refuses a FAILED or TRANSMITTING original with 409 TAX_INVOICE_NOT_AMENDABLE',
    async () => {
      const { key, supplier, balance } = await newSupplier();
      const recipients = { FAILED: '9900000000001', TRANSMITTING: '9900000000002' };
      for (const [status, identificationNumber] of Object.entries(recipients)) {
        const body = invoiceBody();
        body.supplied.identificationNumber = identificationNumber;
        const { issuanceKey } = (await issue(app, key, supplier.supplierKey, body)).json() as
          { issuanceKey: string };
        expect((await waitForStatus(app, key, issuanceKey, [status])).status).toBe(status);
        const before = await balance();
        const response = await amend(app, key, supplier.supplierKey,
          { issuanceKey, reason: 'termination', body: { date: today() } });
        const error = expectError(response, 409, 'TAX_INVOICE_NOT_AMENDABLE');
        expect(error.message).toContain(`The tax invoice is ${status}`);
        expect(await balance()).toBe(before);
      }
    });

  it('answers 404 NOT_FOUND for another supplier\'s Supplier-Key and charges nothing',
    async () => {
      const { key, supplier, balance } = await newSupplier();
      const original = await issueTransmitted(app, key, supplier.supplierKey);
      const other = await registerSupplier(app, key, { identificationNumber: '1248100998',
        organizationName: '삼성전자 주식회사' });
      const before = await balance();
      for (const supplierKey of [other.supplierKey, 'sup_unknown']) {
        expectError(await amend(app, key, supplierKey, { issuanceKey: original.issuanceKey,
          reason: 'termination', body: { date: today() } }), 404, 'NOT_FOUND');
      }
      expectError(await amend(app, key, supplier.supplierKey, { issuanceKey: 'txi_unknown',
        reason: 'termination', body: { date: today() } }), 404, 'NOT_FOUND');
      expect(await balance()).toBe(before);
      expect(await amendmentsOf(original.issuanceKey)).toEqual([]);
    });

  it('answers 400 INVALID_REQUEST to a reference id used before, makes and charges nothing',
    async () => {
      const { key, supplier, balance, transmitted } = await newSupplier();
      const referenceId = `ref-${Date.now()}`;
      const response = await issue(app, key, supplier.supplierKey, invoiceBody(), referenceId);
      const original = await transmitted((response.json() as { issuanceKey: string })
        .issuanceKey);
      const before = await balance();
      const error = expectError(await amend(app, key, supplier.supplierKey, { issuanceKey:
        original.issuanceKey, reason: 'termination', body: { date: today() }, referenceId }),
      400, 'INVALID_REQUEST');
      expect(error.message).toMatch(/Service-Client-Reference-Id was already used/);
      expect(await balance()).toBe(before);
      expect(await amendmentsOf(original.issuanceKey)).toEqual([]);

      const amendmentReference = `${referenceId}-amendment`;
      const amended = await amend(app, key, supplier.supplierKey, { issuanceKey:
        original.issuanceKey, reason: 'doubleIssuance', referenceId: amendmentReference });
      expect(amended.statusCode).toBe(200);
      const afterAmendment = await balance();
      expectError(await issue(app, key, supplier.supplierKey, invoiceBody(), amendmentReference),
        400, 'INVALID_REQUEST');
      expect(await balance()).toBe(afterAmendment);
    });

  it('makes exactly one document of concurrent terminations', async () => {
    const { key, supplier, balance } = await newSupplier();
    const original = await issueTransmitted(app, key, supplier.supplierKey);
    const before = await balance();
    const responses = await Promise.all(Array.from({ length: 4 }, (_, index) =>
      amend(app, key, supplier.supplierKey, { issuanceKey: original.issuanceKey,
        reason: index % 2 === 0 ? 'termination' : 'doubleIssuance',
        body: index % 2 === 0 ? { date: today() } : undefined })));
    const accepted = responses.filter((response) => response.statusCode === 200);
    expect(accepted).toHaveLength(1);
    for (const response of responses.filter((candidate) => candidate.statusCode !== 200)) {
      expectError(response, 409, 'TAX_INVOICE_ALREADY_AMENDED');
    }
    expect(await amendmentsOf(original.issuanceKey)).toHaveLength(1);
    expect(before - await balance()).toBe(100);
  });

  const BAD_BODIES: Array<[string, string, unknown]> = [
    ['termination', 'without date', {}],
    ['termination', 'with a future date', { date: '2999-01-01' }],
    ['termination', 'with a date of the wrong type', { date: 20261203 }],
    ['termination', 'with an extra field', { date: 'TODAY', reason: 'x' }],
    ['termination', 'with a date that is no date', { date: '2026-02-30' }],
    ['changeSupplyCost', 'without items', { date: 'TODAY', items: [] }],
    ['changeSupplyCost', 'with an item of the wrong tax type', { date: 'TODAY',
      items: [{ name: '인하', supplyCost: -1_000, tax: null }] }],
    ['returnedGoods', 'with a negative amount', { date: 'TODAY',
      items: [{ name: '반품', supplyCost: -1_000, tax: -100 }] }],
    ['returnedGoods', 'returning more than was supplied', { date: 'TODAY',
      items: [{ name: '반품', supplyCost: 200_001, tax: 0 }] }],
    ['entryCorrection', 'without invoice', {}],
    ['entryCorrection', 'with the original unchanged', 'ORIGINAL'],
    ['localLetterOfCredit', 'with an item position out of range', { openedOn: 'TODAY',
      items: [5] }],
    ['localLetterOfCredit', 'with a string for an item position', { openedOn: 'TODAY',
      items: ['0'] }],
    ['doubleIssuance', 'with a body of data', { reason: 'sent twice' }],
    ['doubleIssuance', 'with a JSON array', []],
  ];

  it.each(BAD_BODIES)('answers 400 INVALID_REQUEST to %s %s and charges nothing',
    async (reason, _case, template) => {
      const { key, supplier, balance } = await badBodySupplier();
      const original = await originalForBadBodies();
      const body = template === 'ORIGINAL' ? { invoice: invoiceBody() }
        : JSON.parse(JSON.stringify(template).replaceAll('TODAY', today()));
      const before = await balance();
      expectError(await amend(app, key, supplier.supplierKey,
        { issuanceKey: original.issuanceKey, reason, body }), 400, 'INVALID_REQUEST');
      expect(await balance()).toBe(before);
      expect(await amendmentsOf(original.issuanceKey)).toEqual([]);
    });
});

// The bad-body tests share one account and one original, which none of them may change.
let badBodies: ReturnType<typeof newSupplier> | undefined;
let badBodyOriginal: Promise<TaxInvoiceView> | undefined;
function badBodySupplier() {
  badBodies ??= newSupplier();
  return badBodies;
}
async function originalForBadBodies() {
  const { key, supplier } = await badBodySupplier();
  badBodyOriginal ??= issueTransmitted(app, key, supplier.supplierKey);
  return badBodyOriginal;
}

describe.concurrent('security', () => {
  it('answers 404 NOT_FOUND to another account and to the other environment', async () => {
    const { key, liveKey, supplier } = await newSupplier();
    const original = await issueTransmitted(app, key, supplier.supplierKey);
    const other = await app.createAccount();
    const otherSupplier = await registerSupplier(app, other.keys.test);
    expectError(await amend(app, other.keys.test, otherSupplier.supplierKey,
      { issuanceKey: original.issuanceKey, reason: 'termination', body: { date: today() } }),
    404, 'NOT_FOUND');
    // The same account's live key: the test supplier and its documents do not exist there.
    expectError(await amend(app, liveKey, supplier.supplierKey,
      { issuanceKey: original.issuanceKey, reason: 'termination', body: { date: today() } }),
    404, 'NOT_FOUND');
    expect(await amendmentsOf(original.issuanceKey)).toEqual([]);
    expect((await getInvoice(app, key, original.issuanceKey)).status).toBe('TRANSMITTED');
  });
});

describe('an original not yet transmitted', () => {
  let idle: TestApp;
  let idleKey: string;
  let idleSupplier: Supplier;

  beforeAll(async () => {
    // Jobs are staged but never worked, so a document stays PENDING.
    idle = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
    idleKey = (await idle.createAccount()).keys.test;
    idleSupplier = await registerSupplier(idle, idleKey);
  });
  afterAll(async () => {
    await idle?.close();
  });

  it('is refused with 409 TAX_INVOICE_NOT_AMENDABLE while PENDING and once CANCELED',
    async () => {
      const { issuanceKey } = (await issue(idle, idleKey, idleSupplier.supplierKey)).json() as
        { issuanceKey: string };
      const attempt = () => amend(idle, idleKey, idleSupplier.supplierKey,
        { issuanceKey, reason: 'termination', body: { date: today() } });
      expect(expectError(await attempt(), 409, 'TAX_INVOICE_NOT_AMENDABLE').message)
        .toMatch(/is PENDING.*cancel it/);
      const canceled = await idle.server.inject(request(idleKey, 'POST',
        `/v1/taxInvoices/${issuanceKey}/cancel`));
      expect(canceled.statusCode).toBe(200);
      expect(expectError(await attempt(), 409, 'TAX_INVOICE_NOT_AMENDABLE').message)
        .toMatch(/is CANCELED/);
    });
});
