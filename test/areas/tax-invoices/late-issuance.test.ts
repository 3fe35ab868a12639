import { describe, expect, it } from 'vitest';
import {
  issueTiming,
  LATE_ISSUANCE_PENALTY,
  TAX_INVOICE_PENALTY_RATES,
} from '../../../src/areas/tax-invoices/issuance/late-issuance.ts';
import { NO_ADDED_HOLIDAYS, vatReturnDeadline } from '../../../src/domain/business-days.ts';

// Late issuance (지연발급): the VAT return deadline of the tax period of a write date, where a
// day falls (on time, late, too late) and the penalty table.

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

describe('issueTiming', () => {
  const at = (today: string) => issueTiming('2026-06-15', today, NO_ADDED_HOLIDAYS).kind;

  it('is on time through the issue deadline, late through the return deadline, then too late',
    () => {
      expect(at('2026-07-10')).toBe('on-time');
      expect(at('2026-07-11')).toBe('late');
      expect(at('2026-07-27')).toBe('late');
      expect(at('2026-07-28')).toBe('too-late');
    });
});

describe('the penalty table', () => {
  it('holds the rates of 부가가치세법 §60: 1% late, 0.5% received late, 2% not issued', () => {
    expect(TAX_INVOICE_PENALTY_RATES).toEqual({ lateIssuanceSupplier: 0.01,
      lateIssuanceRecipient: 0.005, nonIssuanceSupplier: 0.02 });
    expect(LATE_ISSUANCE_PENALTY).toEqual({ supplierRate: 0.01, recipientRate: 0.005 });
    expect(Object.isFrozen(TAX_INVOICE_PENALTY_RATES)).toBe(true);
  });
});
