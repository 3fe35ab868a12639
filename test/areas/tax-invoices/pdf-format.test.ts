// How values read on the tax invoice PDF (src/areas/tax-invoices/pdf/format.ts): amounts with
// thousands separators and a leading minus, approval numbers in three groups of eight, numbers
// of businesses and people, the title and the 영수/청구 line. Pure functions, checked by value.
import { describe, expect, it } from 'vitest';
import {
  AMENDMENT_REASON_LABELS, formatAmount, formatApprovalNumber, formatIdentificationNumber,
  formatIssuedAt, formatPurpose, formatQuantity, formatStatus, formatTitle, printable,
  splitSupplyDate,
} from '../../../src/areas/tax-invoices/pdf/format.ts';
import {
  AMENDMENT_REASONS, AMOUNT_ABS_MAX,
} from '../../../src/areas/tax-invoices/schemas.ts';

describe('formatting amounts', () => {
  it('separates thousands and keeps a leading minus', () => {
    expect(formatAmount(0)).toBe('0');
    expect(formatAmount(999)).toBe('999');
    expect(formatAmount(1000)).toBe('1,000');
    expect(formatAmount(1_234_567)).toBe('1,234,567');
    expect(formatAmount(-5000)).toBe('-5,000');
    expect(formatAmount(AMOUNT_ABS_MAX)).toBe('9,999,999,999,999');
    expect(formatAmount(-AMOUNT_ABS_MAX)).toBe('-9,999,999,999,999');
  });

  it('refuses an amount that is not whole won', () => {
    expect(() => formatAmount(1.5)).toThrow();
    expect(() => formatAmount(Number.NaN)).toThrow();
  });

  it('writes quantities with up to two decimals and no trailing zeros', () => {
    expect(formatQuantity(1)).toBe('1');
    expect(formatQuantity(1.5)).toBe('1.5');
    expect(formatQuantity(0.25)).toBe('0.25');
    expect(formatQuantity(1234.1)).toBe('1,234.1');
    expect(formatQuantity(-2.5)).toBe('-2.5');
    expect(formatQuantity(-999_999_999)).toBe('-999,999,999');
    expect(formatQuantity(0)).toBe('0');
  });
});

describe('formatting approval numbers', () => {
  it('shows 24 digits as three groups of eight joined by hyphens', () => {
    expect(formatApprovalNumber('202611204100000012345678')).toBe('20261120-41000000-12345678');
  });

  it('shows 미전송 when there is none yet', () => {
    expect(formatApprovalNumber(null)).toBe('미전송');
  });

  it('refuses anything but 24 digits', () => {
    expect(() => formatApprovalNumber('20261120-41000000-12345678')).toThrow();
    expect(() => formatApprovalNumber('2026112041000000123456789')).toThrow();
  });
});

describe('formatting identification numbers', () => {
  it('writes a business registration number as XXX-XX-XXXXX', () => {
    expect(formatIdentificationNumber('1234567891')).toBe('123-45-67891');
  });

  it('masks all but the birth date of a resident registration number', () => {
    expect(formatIdentificationNumber('8001012987654')).toBe('800101-*******');
    expect(formatIdentificationNumber('9999999999999')).toBe('999999-*******');
  });

  it('refuses other lengths', () => {
    expect(() => formatIdentificationNumber('123456789')).toThrow();
  });
});

describe('formatting the wording of the form', () => {
  it('titles tax invoices, tax-exempt invoices and their amendments', () => {
    expect(formatTitle({ taxType: 'TAXABLE', amended: false })).toBe('전자세금계산서');
    expect(formatTitle({ taxType: 'TAX_FREE', amended: false })).toBe('전자계산서');
    expect(formatTitle({ taxType: 'TAXABLE', amended: true })).toBe('수정 전자세금계산서');
    expect(formatTitle({ taxType: 'TAX_FREE', amended: true })).toBe('수정 전자계산서');
    expect(formatTitle({ taxType: 'ZERO_RATED', amended: false })).toBe('전자세금계산서(영세율)');
    expect(formatTitle({ taxType: 'ZERO_RATED', amended: true }))
      .toBe('수정 전자세금계산서(영세율)');
  });

  it('closes with (영수) for a receipt and (청구) for a claim', () => {
    expect(formatPurpose('RECEIPT')).toBe('이 금액을 (영수) 함');
    expect(formatPurpose('CLAIM')).toBe('이 금액을 (청구) 함');
  });

  it('has a Korean label for every amendment reason', () => {
    expect(Object.keys(AMENDMENT_REASON_LABELS).sort())
      .toEqual(Object.keys(AMENDMENT_REASONS).sort());
    expect(AMENDMENT_REASON_LABELS.ENTRY_CORRECTION).toBe('기재사항 착오정정');
    expect(AMENDMENT_REASON_LABELS.SUPPLY_COST_CHANGE).toBe('공급가액 변동');
    expect(AMENDMENT_REASON_LABELS.RETURNED_GOODS).toBe('환입');
    expect(AMENDMENT_REASON_LABELS.TERMINATION).toBe('계약의 해제');
    expect(AMENDMENT_REASON_LABELS.LOCAL_LETTER_OF_CREDIT).toBe('내국신용장 사후개설');
    expect(AMENDMENT_REASON_LABELS.DOUBLE_ISSUANCE).toBe('착오에 의한 이중발급');
  });

  it('names known statuses in Korean and shows unknown ones as they are', () => {
    expect(formatStatus('TRANSMITTED')).toBe('국세청 전송 완료');
    expect(formatStatus('SOMETHING_NEW')).toBe('SOMETHING_NEW');
  });

  it('gives the issue time in Korean time', () => {
    expect(formatIssuedAt(new Date('2026-11-20T15:30:00Z'))).toBe('2026-11-21 00:30 KST');
  });

  it('splits a supply date into month and day without leading zeros', () => {
    expect(splitSupplyDate('2026-01-05')).toEqual({ month: '1', day: '5' });
    expect(splitSupplyDate('2026-11-20')).toEqual({ month: '11', day: '20' });
  });

  it('turns control characters into spaces and missing text into nothing', () => {
    expect(printable('가\n나\t다\u007f')).toBe('가 나 다');
    expect(printable(null)).toBe('');
    expect(printable(undefined)).toBe('');
  });
});
