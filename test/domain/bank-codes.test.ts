// The bank code table and the account number rule of docs/bank-account-holders.md: known codes
// (banks and securities firms) are found with their
// Korean and English names, malformed or unknown codes are not, and account numbers are
// normalised to 8 to 16 digits after hyphens and spaces are removed.
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_NUMBER_DIGITS_MAX,
  ACCOUNT_NUMBER_DIGITS_MIN,
  BANKS,
  findBank,
  normalizeAccountNumber,
} from '../../src/domain/bank-codes.ts';

describe('findBank', () => {
  it.each([
    ['004', 'KB국민은행', 'Kookmin Bank'],
    ['011', 'NH농협은행', 'NongHyup Bank'],
    ['020', '우리은행', 'Woori Bank'],
    ['081', '하나은행', 'Hana Bank'],
    ['088', '신한은행', 'Shinhan Bank'],
    ['090', '카카오뱅크', 'KakaoBank'],
    ['092', '토스뱅크', 'Toss Bank'],
    ['071', '우체국', 'Korea Post'],
    ['045', '새마을금고', 'Korean Federation of Community Credit Cooperatives (MG)'],
    ['240', '삼성증권', 'Samsung Securities'],
    ['264', '키움증권', 'Kiwoom Securities'],
    ['295', '우리종합금융', 'Woori Investment Bank'],
  ])('finds %s as %s (%s)', (code, nameKorean, nameEnglish) => {
    expect(findBank(code)).toEqual({ code, nameKorean, nameEnglish });
  });

  it('returns null for unknown three-digit codes', () => {
    for (const code of ['000', '006', '036', '289', '999']) expect(findBank(code)).toBeNull();
  });

  it('returns null for malformed codes without padding or trimming them', () => {
    for (const code of ['4', '04', '0004', ' 004', '004 ', 'abc', '', '０04', '4.0']) {
      expect(findBank(code), JSON.stringify(code)).toBeNull();
    }
  });

  it('never treats inherited object names as banks', () => {
    for (const code of ['constructor', '__proto__', 'toString']) expect(findBank(code)).toBeNull();
  });

  it('holds only three-digit codes, each with both names, in a frozen table', () => {
    expect(Object.isFrozen(BANKS)).toBe(true);
    expect(Object.keys(BANKS).length).toBeGreaterThanOrEqual(80);
    for (const [code, bank] of Object.entries(BANKS)) {
      expect(code).toMatch(/^[0-9]{3}$/);
      expect(bank.code).toBe(code);
      expect(bank.nameKorean.length).toBeGreaterThan(0);
      expect(bank.nameEnglish).toMatch(/^[A-Za-z]/);
      expect(Object.isFrozen(bank)).toBe(true);
    }
  });
});

describe('normalizeAccountNumber', () => {
  it('removes hyphens and spaces and keeps the digits', () => {
    expect(normalizeAccountNumber('123-456-789012')).toBe('123456789012');
    expect(normalizeAccountNumber(' 123 456 789012 ')).toBe('123456789012');
    expect(normalizeAccountNumber('1234567890')).toBe('1234567890');
  });

  it('accepts 8 to 16 digits and refuses 7 or 17', () => {
    expect(ACCOUNT_NUMBER_DIGITS_MIN).toBe(8);
    expect(ACCOUNT_NUMBER_DIGITS_MAX).toBe(16);
    expect(normalizeAccountNumber('1'.repeat(8))).toBe('11111111');
    expect(normalizeAccountNumber('1'.repeat(16))).toBe('1'.repeat(16));
    expect(normalizeAccountNumber('1'.repeat(7))).toBeNull();
    expect(normalizeAccountNumber('1'.repeat(17))).toBeNull();
    expect(normalizeAccountNumber('1234-567')).toBeNull();
  });

  it('refuses letters, other separators and non-ASCII digits', () => {
    for (const raw of ['12345678a', '1234.5678.90', '1234_567890', '1234\t567890', '１２３４５６７８９０',
      '', '--------', '+1234567890']) {
      expect(normalizeAccountNumber(raw), JSON.stringify(raw)).toBeNull();
    }
  });
});
