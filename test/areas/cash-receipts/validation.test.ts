// The rules between fields of a cash receipt (src/areas/cash-receipts/acceptance/validation.ts),
// with the clock fixed: identity numbers per usage, amounts, the trade date window, partial
// cancellation amounts and masking.
import { describe, expect, it } from 'vitest';
import { maskIdentityNumber } from '../../../src/areas/cash-receipts/identity-numbers.ts';
import {
  isVatOfSupply,
  normalizeIdentityNumber,
  validateCancelAmounts,
  validateIssue,
} from '../../../src/areas/cash-receipts/acceptance/validation.ts';
import type { IssueInput } from '../../../src/areas/cash-receipts/schemas.ts';

// 2026-11-24 09:00 in Korea.
const NOW = new Date('2026-11-24T00:00:00Z');

const body = (overrides: Partial<IssueInput> = {}): IssueInput => ({
  tradeDate: '2026-11-24', usage: 'INCOME_DEDUCTION', identityNumber: '010-1234-5678',
  taxation: 'TAXABLE', supplyCost: 10_000, tax: 1_000, serviceFee: 0, totalAmount: 11_000,
  itemName: '커피', ...overrides });

describe('identity numbers', () => {
  it('removes hyphens and accepts what each usage allows', () => {
    expect(normalizeIdentityNumber('010-1234-5678', 'INCOME_DEDUCTION')).toBe('01012345678');
    expect(normalizeIdentityNumber('123-45-67891', 'EXPENSE_PROOF')).toBe('1234567891');
    expect(normalizeIdentityNumber('010-000-1234', 'INCOME_DEDUCTION')).toBe('0100001234');
  });

  it('refuses the self-issue number for expense proof, and a business number for income ' +
    'deduction', () => {
    expect(() => normalizeIdentityNumber('0100001234', 'EXPENSE_PROOF')).toThrow(/self-issue/);
    expect(() => normalizeIdentityNumber('1234567891', 'INCOME_DEDUCTION'))
      .toThrow(/EXPENSE_PROOF only/);
    expect(() => normalizeIdentityNumber('1234567890', 'EXPENSE_PROOF'))
      .toThrow(/checksum/);
    expect(() => normalizeIdentityNumber('123456789012', 'EXPENSE_PROOF')).toThrow(/12 digits/);
  });
});

describe('the trade date window (Korea time)', () => {
  it('accepts today and yesterday, and five days back for a self-issued receipt', () => {
    expect(validateIssue(body(), NOW).tradeDate).toBe('2026-11-24');
    expect(validateIssue(body({ tradeDate: '2026-11-23' }), NOW).tradeDate).toBe('2026-11-23');
    expect(validateIssue(body({ tradeDate: '2026-11-19', identityNumber: '0100001234' }), NOW)
      .identityNumber).toBe('0100001234');
  });

  it('refuses the day before yesterday, tomorrow, and six days back when self-issued', () => {
    expect(() => validateIssue(body({ tradeDate: '2026-11-22' }), NOW)).toThrow(/too far back/);
    expect(() => validateIssue(body({ tradeDate: '2026-11-25' }), NOW)).toThrow(/future/);
    expect(() => validateIssue(body({ tradeDate: '2026-11-18', identityNumber: '0100001234' }),
      NOW)).toThrow(/too far back/);
  });
});

describe('amounts', () => {
  it('requires the total to be the sum and more than 0, and no tax when TAX_FREE', () => {
    expect(() => validateIssue(body({ totalAmount: 11_001 }), NOW)).toThrow(/must equal/);
    expect(() => validateIssue(body({ supplyCost: 0, tax: 0, totalAmount: 0 }), NOW))
      .toThrow(/more than 0/);
    expect(() => validateIssue(body({ taxation: 'TAX_FREE' }), NOW)).toThrow(/tax must be 0/);
  });

  it('checks a taxable receipt\'s tax against its supply cost, as issuers compute VAT', () => {
    // 10% of the supply cost, truncated, rounded or rounded up.
    expect(validateIssue(body(), NOW).tax).toBe(1_000);
    expect(validateIssue(body({ supplyCost: 10_005, tax: 1_000, totalAmount: 11_005 }), NOW)
      .tax).toBe(1_000);
    expect(validateIssue(body({ supplyCost: 10_005, tax: 1_001, totalAmount: 11_006 }), NOW)
      .tax).toBe(1_001);
    // 1/11 of a price of 10,000 with VAT: tax 909 (truncated) or 910 (rounded up).
    expect(validateIssue(body({ supplyCost: 9_091, tax: 909, totalAmount: 10_000 }), NOW).tax)
      .toBe(909);
    expect(validateIssue(body({ supplyCost: 9_090, tax: 910, totalAmount: 10_000 }), NOW).tax)
      .toBe(910);
    // The service fee bears no VAT.
    expect(validateIssue(body({ serviceFee: 5_000, totalAmount: 16_000 }), NOW).serviceFee)
      .toBe(5_000);
    // Small amounts: 5 won of supply has a tax of 0 or 1.
    expect(validateIssue(body({ supplyCost: 5, tax: 0, totalAmount: 5 }), NOW).tax).toBe(0);
    for (const [supplyCost, tax] of [[10_000, 5_000], [10_000, 0], [10_000, 1_002],
      [10_000, 998], [100, 0], [0, 2]] as const) {
      expect(() => validateIssue(body({ supplyCost, tax, totalAmount: supplyCost + tax }), NOW),
        `${supplyCost}/${tax}`).toThrow(/body\.tax must be the VAT of body\.supplyCost/);
    }
    // A tax-free receipt has no VAT to check beyond its 0.
    expect(validateIssue(body({ taxation: 'TAX_FREE', tax: 0, totalAmount: 10_000 }), NOW)
      .taxation).toBe('TAX_FREE');
    expect(isVatOfSupply(9_091, 909)).toBe(true);
    expect(isVatOfSupply(9_079, 909)).toBe(false);
  });

  it('takes partial cancellation amounts all together or not at all', () => {
    expect(validateCancelAmounts({ reason: 'OTHER' })).toBeNull();
    expect(validateCancelAmounts({ reason: 'OTHER', supplyCost: 1, tax: 0, serviceFee: 0,
      totalAmount: 1 })).toEqual({ supplyCost: 1, tax: 0, serviceFee: 0, totalAmount: 1 });
    expect(() => validateCancelAmounts({ reason: 'OTHER', supplyCost: 1 })).toThrow(/together/);
  });
});

it('masks all but the first three and last four digits', () => {
  expect(maskIdentityNumber('01012345678')).toBe('010****5678');
  expect(maskIdentityNumber('9001011234567')).toBe('900******4567');
});
