// The document rules that depend on the owner business and today
// (documents/acceptance/validation.ts checkForOwner), with the clock fixed: 소득금액증명 is for
// individuals, its 종합소득세 신고자용 kind only once the year's return could be filed (May of the next
// year), and an individual's 표준재무제표증명 is of a calendar year whose return could be filed.
import { describe, expect, it } from 'vitest';
import {
  checkForOwner,
  validateDocumentRequest,
} from '../../../src/areas/documents/acceptance/validation.ts';
import type { IssueDocumentBody } from '../../../src/areas/documents/schemas.ts';

const INDIVIDUAL = '1234567891';
const CORPORATION = '1208100017';
// 2026-04-30 15:30 UTC is 2026-05-01 00:30 in Korea; 2026-04-30 14:30 UTC is still April.
const MAY_FIRST = new Date('2026-04-30T15:30:00Z');
const APRIL_END = new Date('2026-04-30T14:30:00Z');

function check(body: IssueDocumentBody, owner: string, now: Date) {
  checkForOwner(validateDocumentRequest(body, now), owner, now);
}

describe('소득금액증명 (INCOME_AMOUNT_CERTIFICATE)', () => {
  const income = (incomeCertificateKind: IssueDocumentBody['incomeCertificateKind']) =>
    ({ type: 'INCOME_AMOUNT_CERTIFICATE' as const, taxYear: 2025, incomeCertificateKind });

  it('is for individuals only', () => {
    expect(() => check(income('WAGE_EARNER'), INDIVIDUAL, MAY_FIRST)).not.toThrow();
    expect(() => check(income('WAGE_EARNER'), CORPORATION, MAY_FIRST))
      .toThrow(/individuals only/);
  });

  it('of the 종합소득세 신고자용 kind, only from May of the year after, in Korea', () => {
    expect(() => check(income('GLOBAL_INCOME_TAX_RETURN'), INDIVIDUAL, APRIL_END))
      .toThrow(/filed from May 2026/);
    expect(() => check(income('GLOBAL_INCOME_TAX_RETURN'), INDIVIDUAL, MAY_FIRST))
      .not.toThrow();
    // A wage earner's year-end settlement is done by then: only the year before is asked.
    expect(() => check(income('WAGE_EARNER'), INDIVIDUAL, APRIL_END)).not.toThrow();
  });
});

describe('표준재무제표증명 (STANDARD_FINANCIAL_STATEMENTS)', () => {
  const statements = (fiscalYearEndMonth: string) =>
    ({ type: 'STANDARD_FINANCIAL_STATEMENTS' as const, fiscalYearEndMonth });

  it('of an individual: a December, from May of the next year', () => {
    expect(() => check(statements('2025-06'), INDIVIDUAL, MAY_FIRST)).toThrow(/December/);
    expect(() => check(statements('2025-12'), INDIVIDUAL, APRIL_END))
      .toThrow(/filed from May 2026/);
    expect(() => check(statements('2025-12'), INDIVIDUAL, MAY_FIRST)).not.toThrow();
  });

  it('of a corporation: any fiscal year end before the current month', () => {
    expect(() => check(statements('2025-06'), CORPORATION, APRIL_END)).not.toThrow();
    expect(() => check(statements('2026-03'), CORPORATION, APRIL_END)).not.toThrow();
  });
});
