// Late issuance (지연발급) and supplier eligibility through the API: a write date past its issue
// deadline is issued, marked and priced with its penalty until the VAT return deadline of its tax
// period and refused after it; a supplier whose registration status bars it (the sandbox's
// documented numbers) is refused with 409 and charged nothing.
import { afterEach, describe, expect, it } from 'vitest';
import {
  addDays,
  issueDeadline,
  vatReturnDeadline,
} from '../../../src/domain/business-days.ts';
import { SANDBOX_STATUS_NUMBERS as N } from '../../../src/upstream/tax-authority/sandbox.ts';
import { expectError } from '../../helpers/errors.ts';
import {
  useSupplierAccount,
  getInvoice,
  invoiceBody,
  issue,
  registerSupplier,
  request,
  SUPPLIER_NUMBER,
  today,
  waitForStatus,
  type Supplier,
} from './helpers.ts';
import {
  createReverseTestApp,
  decide,
  newRequest,
  type ReverseTestApp,
} from './reverse-helpers.ts';

let app: ReverseTestApp;
let key: string;
let accountId: string;
let supplier: Supplier;

useSupplierAccount({ createApp: createReverseTestApp, name: 'Late' }, (made) => {
  ({ app, key, accountId, supplier } = made);
});

afterEach(() => {
  app.clock.offsetMs = 0;
});

// Moves the app's clock to noon in Seoul on `date`.
function setToday(date: string) {
  app.clock.offsetMs = Date.parse(`${date}T12:00:00+09:00`) - Date.now();
}

// A body written on `date`.
function writtenOn(date: string, overrides: Record<string, unknown> = {}) {
  const body = invoiceBody(overrides);
  return { ...body, date, items: body.items.map((item) => ({ ...item, date })) };
}

const balance = async () => (await app.platform.points.getBalance({ accountId,
  environment: 'test' })).balance;

describe('late issuance', () => {
  // Written today (the certificates of the tests are valid from yesterday on, so the clock only
  // moves forward); the exact days are unit-tested in test/areas/tax-invoices.
  const WRITE_DATE = today();
  const DEADLINE = issueDeadline(WRITE_DATE);
  const LIMIT = vatReturnDeadline(WRITE_DATE)!;

  it('issues on the deadline day as an ordinary invoice', async () => {
    setToday(DEADLINE);
    const response = await issue(app, key, supplier.supplierKey, writtenOn(WRITE_DATE));
    expect(response.statusCode, response.body).toBe(200);
    expect(await getInvoice(app, key, response.json().issuanceKey)).toMatchObject({
      issueDeadline: DEADLINE, lateIssuance: false, lateIssuancePenalty: null });
  });

  it('issues the day after and on the last day as late, with the penalty rates', async () => {
    for (const day of [addDays(DEADLINE, 1), LIMIT]) {
      setToday(day);
      const response = await issue(app, key, supplier.supplierKey, writtenOn(WRITE_DATE));
      expect(response.statusCode, response.body).toBe(200);
      const invoice = await waitForStatus(app, key, response.json().issuanceKey,
        ['TRANSMITTED', 'FAILED']);
      expect(invoice).toMatchObject({ status: 'TRANSMITTED', lateIssuance: true,
        lateIssuancePenalty: { supplierRate: 0.01, recipientRate: 0.005 } });
    }
  });

  it('refuses the day after the late-issuance limit with 400, saying why, charging nothing',
    async () => {
      setToday(addDays(LIMIT, 1));
      const before = await balance();
      const response = await issue(app, key, supplier.supplierKey, writtenOn(WRITE_DATE));
      const error = expectError(response, 400, 'INVALID_REQUEST');
      expect(error.message).toContain('past its late-issuance limit');
      expect(error.message).toContain(`only until ${LIMIT}, the final VAT return deadline`);
      expect(await balance()).toBe(before);
    });

  it('re-issues late an invoice whose transmission failed near the deadline', async () => {
    setToday(DEADLINE);
    // The sandbox authority rejects this recipient.
    const rejected = writtenOn(WRITE_DATE, { supplied: { ...invoiceBody().supplied,
      identificationNumber: '9900000000001' } });
    const failed = await issue(app, key, supplier.supplierKey, rejected);
    expect(failed.statusCode, failed.body).toBe(200);
    expect((await waitForStatus(app, key, failed.json().issuanceKey, ['TRANSMITTED', 'FAILED']))
      .status).toBe('FAILED');
    setToday(addDays(DEADLINE, 1));
    const again = await issue(app, key, supplier.supplierKey, writtenOn(WRITE_DATE));
    expect(again.statusCode, again.body).toBe(200);
    expect((await getInvoice(app, key, again.json().issuanceKey)).lateIssuance).toBe(true);
  });
});

describe('supplier eligibility (sandbox numbers)', () => {
  async function supplierNumbered(identificationNumber: string) {
    const account = await app.platform.accounts.createAccount({ name: identificationNumber,
      plan: 'FREE' });
    const registered = await registerSupplier(app, account.keys.test, { identificationNumber });
    return { key: account.keys.test, accountId: account.accountId, supplier: registered };
  }

  const bodyOf = (identificationNumber: string, taxFree = false) => {
    const body = invoiceBody();
    return { ...body, supplier: { ...body.supplier, identificationNumber },
      items: body.items.map((item) => ({ ...item, tax: taxFree ? null : item.tax })) };
  };

  it.each([
    [N.closed, 'SUPPLIER_CLOSED', /closed \(폐업\) on 2024-06-30/],
    [N.activeTaxFree, 'SUPPLIER_TAX_EXEMPT', /tax-exempt business/],
    [N.activeSimplifiedReceiptIssuer, 'SUPPLIER_NOT_TAX_INVOICE_ISSUER', /simplified taxpayer/],
  ])('refuses a tax invoice of %s with 409 %s, charging and making nothing',
    async (number, code, message) => {
      const { key: ownKey, accountId: ownAccount, supplier: own } = await supplierNumbered(number);
      const before = await app.platform.points.getBalance({ accountId: ownAccount,
        environment: 'test' });
      const error = expectError(await issue(app, ownKey, own.supplierKey, bodyOf(number)), 409,
        code);
      expect(error.message).toMatch(message);
      expect(await app.platform.points.getBalance({ accountId: ownAccount,
        environment: 'test' })).toEqual(before);
      const list = await app.server.inject(request(ownKey, 'GET', '/v1/taxInvoices'));
      expect(list.json().taxInvoices).toEqual([]);
    });

  it('lets the tax-exempt number issue a 계산서 (every tax null)', async () => {
    const { key: ownKey, supplier: own } = await supplierNumbered(N.activeTaxFree);
    const response = await issue(app, ownKey, own.supplierKey, bodyOf(N.activeTaxFree, true));
    expect(response.statusCode, response.body).toBe(200);
  });

  it.each([N.activeGeneral, N.activeSimplifiedTaxInvoiceIssuer, N.unavailable])(
    'lets %s issue a tax invoice (the unavailable number is allowed by default)',
    async (number) => {
      const { key: ownKey, supplier: own } = await supplierNumbered(number);
      const response = await issue(app, ownKey, own.supplierKey, bodyOf(number));
      expect(response.statusCode, response.body).toBe(200);
    });

  it('refuses a reverse issuance request to a closed supplier too', async () => {
    const { key: ownKey, supplier: own } = await supplierNumbered(N.closed);
    const response = await app.server.inject(request(ownKey, 'POST',
      '/v1/taxInvoices/issueRequest', { body: bodyOf(N.closed),
        headers: { 'supplier-key': own.supplierKey } }));
    expectError(response, 409, 'SUPPLIER_CLOSED');
  });
});

// The late-issuance limit by document and supplier (docs/tax-invoices.md § Late issuance): a
// write date of a first half-year whose VAT return deadline has passed but whose calendar year's
// (25 January) has not. A general taxpayer's tax invoice of that date is refused; a 계산서 of an
// individual, or of a corporation whose business year has not ended long enough ago, and a
// simplified taxpayer's tax invoice, are issued late.
describe('late-issuance limits beyond the VAT half year', () => {
  // The write date, and the day (today or later: the clock only moves forward) to issue it on.
  function firstHalfPastItsReturn(): { writeDate: string; issueOn: string } {
    const now = today();
    const year = Number(now.slice(0, 4));
    if (now.slice(5) <= '01-25') return { writeDate: `${year - 1}-06-30`, issueOn: now };
    const writeDate = now.slice(5, 7) <= '06' ? now : `${year}-06-30`;
    const afterReturn = addDays(vatReturnDeadline(writeDate)!, 1);
    return { writeDate, issueOn: afterReturn > now ? afterReturn : now };
  }
  const { writeDate, issueOn } = firstHalfPastItsReturn();
  const CORPORATION = '1248100998'; // digits 4–5: 81

  async function supplierNumbered(identificationNumber: string) {
    const account = await app.platform.accounts.createAccount({ name: identificationNumber,
      plan: 'FREE' });
    const own = await registerSupplier(app, account.keys.test, { identificationNumber });
    const body = (taxFree: boolean) => {
      const written = writtenOn(writeDate);
      return { ...written, supplier: { ...written.supplier, identificationNumber },
        items: written.items.map((item) => ({ ...item, tax: taxFree ? null : item.tax })) };
    };
    const issueOne = (taxFree: boolean) =>
      issue(app, account.keys.test, own.supplierKey, body(taxFree));
    const setFiscalYearEnd = async (month: number | null) => {
      const changed = await app.server.inject(request(account.keys.test, 'PATCH',
        `/v1/issuers/${own.issuerId}`, { body: { fiscalYearEndMonth: month } }));
      expect(changed.statusCode, changed.body).toBe(200);
    };
    const late = async (response: Awaited<ReturnType<typeof issueOne>>) => {
      expect(response.statusCode, response.body).toBe(200);
      return getInvoice(app, account.keys.test, response.json().issuanceKey);
    };
    const ownBalance = async () => (await app.platform.points.getBalance({
      accountId: account.accountId, environment: 'test' })).balance;
    return { issueOne, setFiscalYearEnd, late, ownBalance, body, key: account.keys.test,
      supplierKey: own.supplierKey };
  }

  it('issues an individual\'s late 계산서 until 25 January, with no recipient penalty',
    async () => {
      setToday(issueOn);
      const { issueOne, late } = await supplierNumbered(SUPPLIER_NUMBER);
      const taxInvoice = expectError(await issueOne(false), 400, 'INVALID_REQUEST');
      expect(taxInvoice.message).toContain('the final VAT return deadline of its tax period');
      expect(await late(await issueOne(true))).toMatchObject({ taxType: 'TAX_FREE',
        lateIssuance: true, lateIssuancePenalty: { supplierRate: 0.01, recipientRate: 0 } });
    });

  it('issues a simplified taxpayer\'s late tax invoice until 25 January', async () => {
    setToday(issueOn);
    const { issueOne, late } = await supplierNumbered(N.activeSimplifiedTaxInvoiceIssuer);
    expect(await late(await issueOne(false))).toMatchObject({ taxType: 'TAXABLE',
      lateIssuance: true, lateIssuancePenalty: { supplierRate: 0.01, recipientRate: 0.005 } });
  });

  it('runs a corporation\'s 계산서 to the 25th after its business year ends', async () => {
    setToday(issueOn);
    const { issueOne, setFiscalYearEnd, late, ownBalance } = await supplierNumbered(CORPORATION);
    // A business year that ended on 30 June of the write date: its limit was in July.
    await setFiscalYearEnd(6);
    const before = await ownBalance();
    const refused = expectError(await issueOne(true), 400, 'INVALID_REQUEST');
    expect(refused.message).toContain('A tax-exempt invoice');
    expect(refused.message).toContain('the 25th of the month after the end of the supplier\'s ' +
      'business year');
    expect(await ownBalance()).toBe(before);
    // A business year ending in March of the next year, and the calendar year: not yet.
    await setFiscalYearEnd(3);
    expect((await late(await issueOne(true))).lateIssuance).toBe(true);
    await setFiscalYearEnd(null);
    expect((await late(await issueOne(true))).lateIssuance).toBe(true);
  });

  it('approves a reverse issuance request for a 계산서 by the supplier\'s business year',
    async () => {
      setToday(issueOn);
      const { setFiscalYearEnd, body, key: ownKey, supplierKey } =
        await supplierNumbered(CORPORATION);
      await setFiscalYearEnd(3);
      const issuanceKey = await newRequest(app, ownKey, supplierKey, body(true));
      // With a business year that ended in June, the limit has passed: it cannot be approved.
      await setFiscalYearEnd(6);
      const refused = expectError(await decide(app, ownKey, issuanceKey, 'approve',
        { supplierKey }), 409, 'ISSUE_DEADLINE_PASSED');
      expect(refused.message).toContain('the end of the supplier\'s business year');
      await setFiscalYearEnd(3);
      const approved = await decide(app, ownKey, issuanceKey, 'approve', { supplierKey });
      expect(approved.statusCode, approved.body).toBe(200);
      expect(await getInvoice(app, ownKey, issuanceKey)).toMatchObject({ status: 'APPROVED',
        lateIssuance: true, lateIssuancePenalty: { supplierRate: 0.01, recipientRate: 0 } });
    });
});
