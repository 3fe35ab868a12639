import { describe, expect, it } from 'vitest';
import {
  GENERAL_SUPPLIER_PERIODS,
  issueTiming,
  lateIssuanceLimit,
  lateIssuancePenaltyOf,
  supplierPeriodsOf,
  TAX_INVOICE_PENALTY_RATES,
  tooLateReason,
  type SupplierPeriods,
} from '../../../src/areas/tax-invoices/acceptance/late-issuance.ts';
import {
  NO_ADDED_HOLIDAYS,
  vatReturnDeadline,
  yearEndReturnDeadline,
} from '../../../src/domain/business-days.ts';

// Late issuance (지연발급): the late-issuance limit of a write date by document and supplier (the
// VAT return deadline of a half-year period for a general taxpayer's tax invoice, 25 January for
// a simplified taxpayer's, the 25th after the supplier's business year for a 계산서), where a
// day falls (on time, late, too late) and the penalty table.

const SIMPLIFIED: SupplierPeriods = { vatPeriod: 'CALENDAR_YEAR', businessYearEndMonth: 12 };
const MARCH_YEAR_END: SupplierPeriods = { vatPeriod: 'HALF_YEAR', businessYearEndMonth: 3 };
const INDIVIDUAL_NUMBER = '1234567891'; // digits 4–5: 45
const CORPORATION_NUMBER = '1248100998'; // digits 4–5: 81

describe('vatReturnDeadline', () => {
  it.each([
    ['2026-01-01', '2026-07-27', 'first period; 25 July 2026 is a Saturday'],
    ['2026-06-30', '2026-07-27', 'the last day of the first period'],
    ['2026-07-01', '2027-01-25', 'second period, due in January of the next year'],
    ['2026-12-31', '2027-01-25', 'the last day of the second period'],
    ['2025-03-10', '2025-07-25', 'a Friday, not moved'],
    ['2027-10-01', '2028-01-25', 'a Tuesday'],
  ])('gives %s the deadline %s (%s)', (writeDate, deadline) => {
    expect(vatReturnDeadline(writeDate)).toBe(deadline);
  });

  it('moves it past a day the operator added', () => {
    expect(vatReturnDeadline('2028-12-01', new Set(['2029-01-25']))).toBe('2029-01-26');
  });

  it('has none for the second period of 9999, whose deadline would be in the year 10000', () => {
    expect(vatReturnDeadline('9999-07-01')).toBeNull();
    expect(vatReturnDeadline('9999-06-30')).toBe('9999-07-26');
  });
});

describe('yearEndReturnDeadline', () => {
  it.each([
    ['2026-05-31', 12, '2027-01-25', 'a calendar year: 25 January of the next year'],
    ['2026-12-31', 12, '2027-01-25', 'the last day of a calendar year'],
    ['2027-01-01', 12, '2028-01-25', 'the first day of the next one'],
    ['2026-05-31', 3, '2027-04-26', 'a year ending in March 2027; 25 April 2027 is a Sunday'],
    ['2026-02-10', 3, '2026-04-27', 'a year ending in March 2026; 25 April 2026 is a Saturday'],
    ['2026-06-30', 6, '2026-07-27', 'the last day of a year ending in June'],
  ])('gives %s in a year ending in month %i the deadline %s (%s)', (writeDate, month, deadline) => {
    expect(yearEndReturnDeadline(writeDate, month)).toBe(deadline);
  });

  it('has none when it would fall in the year 10000', () => {
    expect(yearEndReturnDeadline('9999-05-01', 12)).toBeNull();
    expect(yearEndReturnDeadline('9999-05-01', 6)).toBe('9999-07-26');
  });
});

describe('lateIssuanceLimit', () => {
  const limit = (taxType: 'TAXABLE' | 'ZERO_RATED' | 'TAX_FREE', periods: SupplierPeriods) =>
    lateIssuanceLimit('2026-05-31', taxType, periods, NO_ADDED_HOLIDAYS);

  it('is the half-year VAT return deadline for a general taxpayer\'s tax invoice', () => {
    expect(limit('TAXABLE', GENERAL_SUPPLIER_PERIODS)).toBe('2026-07-27');
    expect(limit('ZERO_RATED', MARCH_YEAR_END)).toBe('2026-07-27');
  });

  it('is 25 January for a simplified taxpayer\'s tax invoice, whose period is the year', () => {
    expect(limit('TAXABLE', SIMPLIFIED)).toBe('2027-01-25');
    expect(limit('ZERO_RATED', SIMPLIFIED)).toBe('2027-01-25');
  });

  it('runs to the 25th after the business year for a 계산서, never the VAT period', () => {
    expect(limit('TAX_FREE', GENERAL_SUPPLIER_PERIODS)).toBe('2027-01-25');
    expect(limit('TAX_FREE', MARCH_YEAR_END)).toBe('2027-04-26');
    expect(limit('TAX_FREE', { vatPeriod: 'HALF_YEAR', businessYearEndMonth: 6 }))
      .toBe('2026-07-27');
  });
});

describe('supplierPeriodsOf', () => {
  it('takes the fiscal year of a corporation and the calendar year of an individual', () => {
    expect(supplierPeriodsOf({ identificationNumber: CORPORATION_NUMBER, fiscalYearEndMonth: 3 },
      null).businessYearEndMonth).toBe(3);
    expect(supplierPeriodsOf({ identificationNumber: CORPORATION_NUMBER,
      fiscalYearEndMonth: null }, null).businessYearEndMonth).toBe(12);
    expect(supplierPeriodsOf({ identificationNumber: INDIVIDUAL_NUMBER, fiscalYearEndMonth: 3 },
      null).businessYearEndMonth).toBe(12);
  });

  it('gives the calendar-year VAT period only to a simplified taxpayer that issues invoices',
    () => {
      const issuer = { identificationNumber: INDIVIDUAL_NUMBER, fiscalYearEndMonth: null };
      expect(supplierPeriodsOf(issuer, { taxType: 'SIMPLIFIED_TAX_INVOICE_ISSUER' }).vatPeriod)
        .toBe('CALENDAR_YEAR');
      for (const taxType of ['GENERAL', 'SIMPLIFIED_RECEIPT_ISSUER', 'TAX_FREE', null] as const) {
        expect(supplierPeriodsOf(issuer, { taxType }).vatPeriod).toBe('HALF_YEAR');
      }
      // The tax authority did not answer: the half year, the shorter window.
      expect(supplierPeriodsOf(issuer, null)).toEqual(GENERAL_SUPPLIER_PERIODS);
    });
});

describe('issueTiming', () => {
  const at = (today: string) => issueTiming('2026-06-15', today, { taxType: 'TAXABLE',
    supplier: GENERAL_SUPPLIER_PERIODS, added: NO_ADDED_HOLIDAYS }).kind;

  it('is on time through the issue deadline, late through the return deadline, then too late',
    () => {
      expect(at('2026-07-10')).toBe('on-time');
      expect(at('2026-07-11')).toBe('late');
      expect(at('2026-07-27')).toBe('late');
      expect(at('2026-07-28')).toBe('too-late');
    });

  it('makes a 계산서 or a simplified taxpayer\'s invoice of May late in November, not too late',
    () => {
      const timing = (taxType: 'TAXABLE' | 'TAX_FREE', supplier: SupplierPeriods) =>
        issueTiming('2026-05-31', '2026-11-27', { taxType, supplier,
          added: NO_ADDED_HOLIDAYS }).kind;
      expect(timing('TAXABLE', GENERAL_SUPPLIER_PERIODS)).toBe('too-late');
      expect(timing('TAXABLE', SIMPLIFIED)).toBe('late');
      expect(timing('TAX_FREE', GENERAL_SUPPLIER_PERIODS)).toBe('late');
      expect(timing('TAX_FREE', { vatPeriod: 'HALF_YEAR', businessYearEndMonth: 6 }))
        .toBe('too-late');
    });

  it('says in its refusal which limit passed and the penalties of the document', () => {
    const basis = { taxType: 'TAX_FREE' as const, supplier: MARCH_YEAR_END };
    const timing = issueTiming('2026-02-10', '2026-05-01', { ...basis, added: NO_ADDED_HOLIDAYS });
    expect(timing.kind).toBe('too-late');
    const reason = tooLateReason('2026-02-10', timing, basis);
    expect(reason).toMatch(/^A tax-exempt invoice written on 2026-02-10 /);
    expect(reason).toContain('only until 2026-04-27, the 25th of the month after the end of ' +
      'the supplier\'s business year');
    expect(reason).toContain('(2% penalty)');
  });
});

describe('the penalty table', () => {
  it('holds the rates of 부가가치세법 §60 and of 법인세법 §75의8 / 소득세법 §81의10', () => {
    expect(TAX_INVOICE_PENALTY_RATES).toEqual({ lateIssuanceSupplier: 0.01,
      lateIssuanceRecipient: 0.005, nonIssuanceSupplier: 0.02,
      lateExemptInvoiceSupplier: 0.01, lateExemptInvoiceRecipient: 0,
      nonIssuanceExemptInvoiceSupplier: 0.02 });
    expect(Object.isFrozen(TAX_INVOICE_PENALTY_RATES)).toBe(true);
  });

  it('shows a late tax invoice\'s recipient 0.5% and a late 계산서\'s recipient nothing', () => {
    expect(lateIssuancePenaltyOf('TAXABLE')).toEqual({ supplierRate: 0.01,
      recipientRate: 0.005 });
    expect(lateIssuancePenaltyOf('ZERO_RATED')).toEqual({ supplierRate: 0.01,
      recipientRate: 0.005 });
    expect(lateIssuancePenaltyOf('TAX_FREE')).toEqual({ supplierRate: 0.01, recipientRate: 0 });
  });
});
