import { addDays, seoulDate } from '../../../domain/business-days.ts';
import { businessRegistrationNumberDefect } from '../../../domain/business-registration-number.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { CancelInput, IssueInput } from '../schemas.ts';

// The rules of a cash receipt between fields (docs/cash-receipts.md § Rules). Shapes and lengths
// are the schema's; every message here names the field it is about.

// The tax authority's designated number for a receipt issued without the customer's number
// (자진발급), income deduction only.
const SELF_ISSUE_NUMBER = '0100001234';
// A receipt is issued for a payment of today or yesterday (Korea time); a self-issued one within
// five days of the payment.
const TRADE_DATE_DAYS_BACK = 1;
const SELF_ISSUE_DAYS_BACK = 5;

const MOBILE = /^01[0-9]{8,9}$/;
const CARD_OR_RESIDENT = /^[0-9]{13,19}$/;

function invalid(message: string): never {
  throw new ApiError('INVALID_REQUEST', message);
}

// The identity number with its hyphens removed, checked against what the usage accepts.
export function normalizeIdentityNumber(input: string, usage: IssueInput['usage']): string {
  const digits = input.replaceAll('-', '');
  if (!/^[0-9]+$/.test(digits)) {
    invalid('body.identityNumber must hold digits (hyphens are allowed between them).');
  }
  if (digits === SELF_ISSUE_NUMBER) {
    if (usage !== 'INCOME_DEDUCTION') {
      invalid(`body.identityNumber ${SELF_ISSUE_NUMBER} (self-issue) is for INCOME_DEDUCTION ` +
        'receipts only; an EXPENSE_PROOF receipt needs the business registration number.');
    }
    return digits;
  }
  if (MOBILE.test(digits) || CARD_OR_RESIDENT.test(digits)) return digits;
  if (digits.length === 10) {
    if (usage === 'INCOME_DEDUCTION') {
      invalid('body.identityNumber: a business registration number is accepted for ' +
        'EXPENSE_PROOF only; INCOME_DEDUCTION takes a mobile number (01…, 10–11 digits), a ' +
        'cash-receipt card (13–19), a resident number (13) or the self-issue number.');
    }
    const defect = businessRegistrationNumberDefect(digits);
    if (defect !== null) {
      throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER',
        `body.identityNumber ${defect}.`);
    }
    return digits;
  }
  return invalid(`body.identityNumber has ${digits.length} digits: ` + (usage === 'EXPENSE_PROOF'
    ? 'EXPENSE_PROOF takes a business registration number (10), a mobile number (01…, 10–11), ' +
      'a cash-receipt card (13–19) or a resident number (13).'
    : 'INCOME_DEDUCTION takes a mobile number (01…, 10–11 digits), a cash-receipt card ' +
      '(13–19), a resident number (13) or the self-issue number.'));
}

function checkAmounts(amounts: { supplyCost: number; tax: number; serviceFee: number;
  totalAmount: number }, field: string) {
  if (amounts.totalAmount !== amounts.supplyCost + amounts.tax + amounts.serviceFee) {
    invalid(`${field}.totalAmount must equal supplyCost + tax + serviceFee ` +
      `(${amounts.supplyCost + amounts.tax + amounts.serviceFee}).`);
  }
  if (amounts.totalAmount === 0) invalid(`${field}.totalAmount must be more than 0.`);
}

// Whether a taxable receipt's tax is the VAT of its supply cost as issuers compute it: 10% of
// the supply cost, or 1/11 of supply cost + tax (the price with VAT, the service fee apart,
// since it bears none), each truncated, rounded or rounded up. The first allows |10·tax −
// supplyCost| < 10, the second < 11, so one rule takes both: at most 10.
export function isVatOfSupply(supplyCost: number, tax: number): boolean {
  return Math.abs(10 * tax - supplyCost) <= 10;
}

// What a tax of `supplyCost` would be, for the messages: 10% of it, rounded.
export const vatOfSupply = (supplyCost: number) => Math.round(supplyCost / 10);

export function checkVat(amounts: { supplyCost: number; tax: number }, field: string,
  what = 'a TAXABLE receipt') {
  if (isVatOfSupply(amounts.supplyCost, amounts.tax)) return;
  invalid(`${field}.tax must be the VAT of ${field}.supplyCost for ${what}: 10% of the supply ` +
    `cost (${vatOfSupply(amounts.supplyCost)}) or 1/11 of supplyCost + tax, within rounding ` +
    `(|10 × tax − supplyCost| at most 10); got tax ${amounts.tax} on supplyCost ` +
    `${amounts.supplyCost}.`);
}

export type ValidatedIssue = Omit<IssueInput, 'tradeOption' | 'customer'> & {
  tradeOption: NonNullable<IssueInput['tradeOption']>;
  customer: NonNullable<IssueInput['customer']> | null;
};

export function validateIssue(body: IssueInput, now: Date): ValidatedIssue {
  const identityNumber = normalizeIdentityNumber(body.identityNumber, body.usage);
  checkAmounts(body, 'body');
  if (body.taxation === 'TAX_FREE' && body.tax !== 0) {
    invalid('body.tax must be 0 for a TAX_FREE receipt.');
  }
  if (body.taxation === 'TAXABLE') checkVat(body, 'body');
  const today = seoulDate(now);
  const daysBack = identityNumber === SELF_ISSUE_NUMBER ? SELF_ISSUE_DAYS_BACK
    : TRADE_DATE_DAYS_BACK;
  if (body.tradeDate > today) invalid(`body.tradeDate ${body.tradeDate} is in the future ` +
    `(today is ${today} in Korea).`);
  if (body.tradeDate < addDays(today, -daysBack)) {
    invalid(`body.tradeDate ${body.tradeDate} is too far back: a receipt is issued for a ` +
      `payment of the last ${daysBack === 1 ? 'day (today or yesterday)' : `${daysBack} days`}, ` +
      `Korea time (today is ${today}).`);
  }
  const customer = body.customer ?? null;
  return { ...body, identityNumber, tradeOption: body.tradeOption ?? 'GENERAL', customer };
}

export type CancelAmounts = { supplyCost: number; tax: number; serviceFee: number;
  totalAmount: number };

// The amounts a cancellation asks for: all four, or none (what remains, decided against the
// locked original).
export function validateCancelAmounts(body: CancelInput): CancelAmounts | null {
  const given = [body.supplyCost, body.tax, body.serviceFee, body.totalAmount];
  if (given.every((amount) => amount === undefined)) return null;
  if (given.some((amount) => amount === undefined)) {
    invalid('body: a partial cancellation gives supplyCost, tax, serviceFee and totalAmount ' +
      'together; omit all four to cancel what remains.');
  }
  const amounts = { supplyCost: body.supplyCost!, tax: body.tax!, serviceFee: body.serviceFee!,
    totalAmount: body.totalAmount! };
  checkAmounts(amounts, 'body');
  return amounts;
}
