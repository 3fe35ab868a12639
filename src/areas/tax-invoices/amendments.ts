import assert from 'node:assert/strict';
import canonicalizeModule from 'canonicalize';
import { addDays } from '../../domain/business-days.ts';
import { ApiError } from '../../platform/errors.ts';
import type { DocumentDraft } from './acceptance.ts';
import {
  AMENDMENT_REASONS,
  type AmendmentReason,
  type Invoice,
  type Item,
  type TaxInvoiceStatus,
} from './invoice-schema.ts';
import type { TaxInvoiceRow } from './store.ts';
import {
  validateInvoice,
  type AmountRule,
  type ValidatedInvoice,
  type ValidationContext,
} from './validation.ts';

// The rules of amendments (수정발행, domain facts §4.4; docs/tax-invoice-amendments.md): which
// documents each reason makes from the original, with which signs, dates and remarks, and when
// an original may be amended at all. Pure functions of the original, its amendments so far and
// the request body; amendment-service.ts runs them through acceptance.
//
// An original may be amended when it is TRANSMITTED and is not itself a correcting document:
// only the positive replacement of an entry correction or of a local letter of credit stands in
// for an original. Termination, double issuance and entry correction reverse the whole original,
// so each needs an original without amendments and leaves it closed to any further amendment;
// supply cost changes and returns may follow one another, as long as the original's remaining
// supply cost and tax stay at 0 or above; a local letter of credit is applied once.

// The package is CommonJS with `module.exports = fn`, which its types describe as a default export.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

export type OriginalDocument = Pick<TaxInvoiceRow, 'issuanceKey' | 'status' | 'invoice' |
  'writeDate' | 'taxType' | 'ntsTransactionId' | 'amendmentReason' | 'originalIssuanceKey' |
  'supplyCostTotal' | 'taxTotal'>;
export type ExistingAmendment = Pick<TaxInvoiceRow, 'issuanceKey' | 'status' |
  'amendmentReason' | 'supplyCostTotal' | 'taxTotal'>;

// An item of a supply cost change or a return; its date defaults to the amendment's date.
export type AmendmentItem = Omit<Item, 'date'> & { date?: string | undefined };

export type AmendmentRequest =
  | { reason: 'TERMINATION'; date: string }
  | { reason: 'SUPPLY_COST_CHANGE'; date: string; items: AmendmentItem[];
    description?: string | null | undefined }
  | { reason: 'DOUBLE_ISSUANCE' }
  | { reason: 'ENTRY_CORRECTION'; invoice: Invoice }
  | { reason: 'RETURNED_GOODS'; date: string; items: AmendmentItem[];
    description?: string | null | undefined }
  | { reason: 'LOCAL_LETTER_OF_CREDIT'; openedOn: string; items?: number[] | undefined };

// One document an amendment makes, before validation.
export type PlannedDocument = {
  invoice: Invoice;
  amounts: AmountRule;
  // 'enforced' where the issue deadline runs from the amendment's own write date; 'ignored'
  // where the document keeps the original's write date.
  deadline: ValidationContext['deadline'];
  // Where the request body holds this document, so that validation messages name the field
  // the client sent.
  bodyPath: 'body' | 'body.invoice';
};

export type AmendmentContext = {
  today: string; // YYYY-MM-DD in Asia/Seoul
  supplier: ValidationContext['supplier'];
};

type Totals = ValidatedInvoice['totals'];

export const REASON_LABELS: Record<AmendmentReason, string> = {
  ENTRY_CORRECTION: 'entry correction (기재사항 착오정정)',
  SUPPLY_COST_CHANGE: 'supply cost change (공급가액 변동)',
  RETURNED_GOODS: 'returned goods (환입)',
  TERMINATION: 'termination (계약의 해제)',
  LOCAL_LETTER_OF_CREDIT: 'local letter of credit (내국신용장 사후개설)',
  DOUBLE_ISSUANCE: 'double issuance (착오에 의한 이중발급)',
};

const REASON_BY_CODE = new Map<number, AmendmentReason>(Object.entries(AMENDMENT_REASONS)
  .map(([reason, code]) => [code, reason as AmendmentReason]));

// Reasons whose documents cancel the whole original.
const FULL_REVERSALS: ReadonlySet<AmendmentReason> =
  new Set(['TERMINATION', 'DOUBLE_ISSUANCE', 'ENTRY_CORRECTION']);

// Statuses in which a document never took effect; such an amendment does not count.
const ENDED_WITHOUT_ISSUANCE: ReadonlySet<TaxInvoiceStatus> =
  new Set(['FAILED', 'CANCELED', 'REFUSED', 'REQUEST_CANCELED']);

// The remark (비고) holds at most this many characters (invoice-schema.ts).
export const REMARK_LENGTH_MAX = 200;
// The note a supply cost change or return puts first in the remark; the client's own remark
// follows after a space, so it may be this much shorter than a remark.
export const originalDateNote = (writeDate: string) => `당초 작성일자 ${writeDate}`;
export const AMENDMENT_DESCRIPTION_LENGTH_MAX =
  REMARK_LENGTH_MAX - originalDateNote('2026-01-01').length - 1;
export const letterOfCreditNote = (openedOn: string) => `내국신용장 개설일 ${openedOn}`;
// A local letter of credit opened after the supply makes it zero-rated when it is opened within
// 25 days after the end of the VAT period of the supply (부가가치세법 시행령 §70①5).
export const LETTER_OF_CREDIT_DAYS_AFTER_PERIOD = 25;

function invalid(message: string): ApiError {
  return new ApiError('INVALID_REQUEST', message);
}

function notAmendable(message: string): ApiError {
  return new ApiError('TAX_INVOICE_NOT_AMENDABLE', message);
}

export function reasonOf(code: number): AmendmentReason {
  const reason = REASON_BY_CODE.get(code);
  assert(reason !== undefined, `unknown amendment reason code ${code}`);
  return reason;
}

// ---- When an original may be amended ------------------------------------------------------

const NOT_TRANSMITTED_HINTS: Record<TaxInvoiceStatus, string> = {
  REQUESTED: 'It is a reverse issuance request that has not been issued.',
  APPROVED: 'It is a reverse issuance request that has not been issued yet.',
  REFUSED: 'It is a reverse issuance request that was refused and never issued.',
  REQUEST_CANCELED: 'It is a reverse issuance request that was canceled and never issued.',
  PENDING: 'Until it is transmitted, cancel it and issue a corrected one instead.',
  ISSUED: 'Until it is transmitted, cancel it and issue a corrected one instead.',
  TRANSMITTING: 'Retry once it is transmitted.',
  TRANSMITTED: '',
  CANCELED: 'It was canceled and never took effect; issue a new tax invoice instead.',
  FAILED: 'It failed and never took effect; issue a new tax invoice instead.',
};

// The positive document of an entry correction or a local letter of credit replaces its
// original, so it is amended in the original's place. Every other amendment document only
// corrects one, and is never amended itself.
export function isReplacement(document: OriginalDocument): boolean {
  if (document.amendmentReason === null) return false;
  const reason = reasonOf(document.amendmentReason);
  return (reason === 'ENTRY_CORRECTION' || reason === 'LOCAL_LETTER_OF_CREDIT') &&
    document.supplyCostTotal > 0;
}

export function isInEffect(amendment: Pick<ExistingAmendment, 'status'>): boolean {
  return !ENDED_WITHOUT_ISSUANCE.has(amendment.status);
}

function checkDocumentAmendable(original: OriginalDocument, reason: AmendmentReason): void {
  if (original.status !== 'TRANSMITTED') {
    throw notAmendable(`The tax invoice is ${original.status}; only a TRANSMITTED tax invoice ` +
      `can be amended. ${NOT_TRANSMITTED_HINTS[original.status]}`);
  }
  if (original.amendmentReason !== null && !isReplacement(original)) {
    throw notAmendable('The tax invoice is itself an amendment (' +
      `${REASON_LABELS[reasonOf(original.amendmentReason)]}) of ` +
      `${original.originalIssuanceKey}; amend that tax invoice instead.`);
  }
  const items = original.invoice.items;
  if (reason === 'TERMINATION' && items.some((item) => item.supplyCost < 0)) {
    throw notAmendable('The tax invoice has an item with a negative supply cost, so a ' +
      'termination cannot mirror it; amend it with changeSupplyCost instead.');
  }
  if (reason === 'LOCAL_LETTER_OF_CREDIT' && original.taxType !== 'TAXABLE') {
    throw notAmendable('The tax invoice is tax-exempt (계산서); only a taxable tax invoice ' +
      'becomes zero-rated under a local letter of credit.');
  }
  if (reason === 'LOCAL_LETTER_OF_CREDIT' && !items.some((item) => (item.tax ?? 0) !== 0)) {
    throw notAmendable('Every item of the tax invoice is already zero-rated (tax 0).');
  }
}

function checkAmendmentsSoFar(
  original: OriginalDocument,
  existing: readonly ExistingAmendment[],
  reason: AmendmentReason,
): void {
  const inEffect = existing.filter(isInEffect)
    .map((amendment) => ({ ...amendment, reason: reasonOf(amendment.amendmentReason!) }));
  const reversal = inEffect.find((amendment) => FULL_REVERSALS.has(amendment.reason));
  if (reversal !== undefined) {
    // An entry correction's positive document now stands in for the original.
    const replacement = inEffect.find((amendment) => amendment.reason === 'ENTRY_CORRECTION' &&
      amendment.supplyCostTotal > 0);
    throw new ApiError('TAX_INVOICE_ALREADY_AMENDED', `The tax invoice ${original.issuanceKey} ` +
      `was already reversed by the ${REASON_LABELS[reversal.reason]} ${reversal.issuanceKey}` +
      (replacement ? `; amend its corrected tax invoice ${replacement.issuanceKey} instead.`
        : '; it can no longer be amended.'));
  }
  const first = inEffect[0];
  if (FULL_REVERSALS.has(reason) && first !== undefined) {
    throw new ApiError('TAX_INVOICE_ALREADY_AMENDED', `The tax invoice ${original.issuanceKey} ` +
      `already has the amendment ${first.issuanceKey} (${REASON_LABELS[first.reason]}); a ` +
      `${REASON_LABELS[reason]} reverses the original alone and would leave that amendment ` +
      'standing. Reduce what remains with changeSupplyCost instead.');
  }
  const letterOfCredit = reason === 'LOCAL_LETTER_OF_CREDIT'
    ? inEffect.find((amendment) => amendment.reason === reason) : undefined;
  if (letterOfCredit !== undefined) {
    throw new ApiError('TAX_INVOICE_ALREADY_AMENDED', `The tax invoice ${original.issuanceKey} ` +
      `was already amended for a local letter of credit by ${letterOfCredit.issuanceKey}.`);
  }
}

// Refuses an amendment the original's state rules out: 409 TAX_INVOICE_NOT_AMENDABLE for the
// original itself, 409 TAX_INVOICE_ALREADY_AMENDED for its amendments in effect so far.
export function checkAmendable(
  original: OriginalDocument,
  existing: readonly ExistingAmendment[],
  reason: AmendmentReason,
): void {
  checkDocumentAmendable(original, reason);
  checkAmendmentsSoFar(original, existing, reason);
}

// What remains of the original after its amendments in effect and the new documents may not
// fall below 0: a decrease or return cannot take back more than was supplied.
export function checkRemainingAmounts(
  original: OriginalDocument,
  existing: readonly ExistingAmendment[],
  added: readonly Totals[],
): void {
  const inEffect = existing.filter(isInEffect);
  const before = {
    supplyCost: original.supplyCostTotal + sum(inEffect.map((row) => row.supplyCostTotal)),
    tax: original.taxTotal + sum(inEffect.map((row) => row.taxTotal)),
  };
  const supplyCost = before.supplyCost + sum(added.map((totals) => totals.supplyCost));
  const tax = before.tax + sum(added.map((totals) => totals.tax));
  if (supplyCost < 0) {
    throw invalid(`body.items take back more supply cost than remains of ` +
      `${original.issuanceKey}: ${before.supplyCost} won after its amendments so far.`);
  }
  if (tax < 0) {
    throw invalid(`body.items take back more tax than remains of ${original.issuanceKey}: ` +
      `${before.tax} won after its amendments so far.`);
  }
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

// ---- The documents of each reason ---------------------------------------------------------

// -0 would be stored and signed as 0 but compares oddly; amounts of zero stay 0.
const negate = (value: number) => (value === 0 ? 0 : -value);

// The item with its amounts and quantity negated; the unit price stays, so quantity × unit price
// still gives the supply cost.
export function negatedItem(item: Item, date: string = item.date): Item {
  const quantity = item.quantity ?? null;
  return {
    ...item,
    date,
    quantity: quantity === null ? null : negate(quantity),
    supplyCost: negate(item.supplyCost),
    tax: item.tax === null ? null : negate(item.tax),
  };
}

function remark(note: string, text: string | null | undefined): string {
  if (text === null || text === undefined) return note;
  return `${note} ${text}`.slice(0, REMARK_LENGTH_MAX);
}

function checkNotBeforeOriginal(date: string, field: string, original: OriginalDocument): void {
  if (date < original.writeDate) {
    throw invalid(`${field} must not be before ${original.writeDate}, the write date of the ` +
      'tax invoice it amends.');
  }
}

// Items of a change or a return carry tax like the original: null for a tax-exempt invoice, an
// integer for a tax invoice.
function checkItemTaxType(items: readonly AmendmentItem[], original: OriginalDocument): void {
  const taxFree = original.taxType === 'TAX_FREE';
  const index = items.findIndex((item) => (item.tax === null) !== taxFree);
  if (index === -1) return;
  throw invalid(taxFree
    ? `body.items[${index}].tax must be null: the tax invoice it amends is tax-exempt (계산서).`
    : `body.items[${index}].tax must be an integer: the tax invoice it amends is taxable.`);
}

function termination(original: OriginalDocument, date: string): PlannedDocument[] {
  checkNotBeforeOriginal(date, 'body.date', original);
  const invoice = { ...original.invoice, date,
    items: original.invoice.items.map((item) => negatedItem(item, date)) };
  return [{ invoice, amounts: 'amendment', deadline: 'enforced', bodyPath: 'body' }];
}

function doubleIssuance(original: OriginalDocument): PlannedDocument[] {
  const invoice = { ...original.invoice,
    items: original.invoice.items.map((item) => negatedItem(item)) };
  return [{ invoice, amounts: 'amendment', deadline: 'ignored', bodyPath: 'body' }];
}

function entryCorrection(original: OriginalDocument, corrected: Invoice): PlannedDocument[] {
  const [cancellation] = doubleIssuance(original);
  // The corrected document is a whole invoice again, so the rules of issuance hold for its
  // amounts. Its deadline does not: a correction may be made after the original's deadline.
  return [cancellation!,
    { invoice: corrected, amounts: 'forward', deadline: 'ignored', bodyPath: 'body.invoice' }];
}

// A supply cost change (the items as sent: + increase, − decrease) or a return (the items as
// sent, positive, negated here), dated when it happened, with the original's write date first
// in the remark.
function change(
  original: OriginalDocument,
  body: { date: string; items: AmendmentItem[]; description?: string | null | undefined },
  sign: 'asSent' | 'negated',
): PlannedDocument[] {
  checkNotBeforeOriginal(body.date, 'body.date', original);
  checkItemTaxType(body.items, original);
  const items = body.items.map((item): Item => {
    const dated = { ...item, date: item.date ?? body.date };
    return sign === 'negated' ? negatedItem(dated) : dated;
  });
  const invoice = { ...original.invoice, date: body.date, items,
    description: remark(originalDateNote(original.writeDate), body.description) };
  return [{ invoice, amounts: 'amendment', deadline: 'enforced', bodyPath: 'body' }];
}

// The last day a local letter of credit may be opened for a supply written on `writeDate`: 25
// days after the end of its VAT period (January–June or July–December, 부가가치세법 §5).
export function letterOfCreditDeadline(writeDate: string): string {
  const year = writeDate.slice(0, 4);
  const periodEnd = writeDate.slice(5, 7) <= '06' ? `${year}-06-30` : `${year}-12-31`;
  return addDays(periodEnd, LETTER_OF_CREDIT_DAYS_AFTER_PERIOD);
}

function checkOpenedOn(openedOn: string, original: OriginalDocument, today: string): void {
  if (openedOn > today) {
    throw invalid(`body.openedOn must not be after today (${today} in Korea).`);
  }
  checkNotBeforeOriginal(openedOn, 'body.openedOn', original);
  const deadline = letterOfCreditDeadline(original.writeDate);
  if (openedOn > deadline) {
    throw invalid(`body.openedOn must be on or before ${deadline}: a local letter of credit ` +
      'makes a supply zero-rated only when it is opened within 25 days after the end of the ' +
      'VAT period of the original\'s write date.');
  }
}

// The positions (from 0) of the items the letter of credit covers: those asked for, or every
// taxed item.
function coveredItemIndexes(original: OriginalDocument, requested: number[] | undefined) {
  const items = original.invoice.items;
  if (requested === undefined) {
    return items.flatMap((item, index) => ((item.tax ?? 0) !== 0 ? [index] : []));
  }
  requested.forEach((itemIndex, position) => {
    const item = items[itemIndex];
    if (item === undefined) {
      throw invalid(`body.items[${position}] must be the position of an item of the tax ` +
        `invoice it amends, from 0 to ${items.length - 1}.`);
    }
    if ((item.tax ?? 0) === 0) {
      throw invalid(`body.items[${position}] names an item whose tax is already 0.`);
    }
  });
  return requested;
}

function localLetterOfCredit(
  original: OriginalDocument,
  body: { openedOn: string; items?: number[] | undefined },
  today: string,
): PlannedDocument[] {
  checkOpenedOn(body.openedOn, original, today);
  const covered = coveredItemIndexes(original, body.items)
    .map((index) => original.invoice.items[index]!);
  const description = remark(letterOfCreditNote(body.openedOn), original.invoice.description);
  const taxable = { ...original.invoice, description,
    items: covered.map((item) => negatedItem(item)) };
  const zeroRated = { ...original.invoice, description,
    items: covered.map((item) => ({ ...item, tax: 0 })) };
  return [
    { invoice: taxable, amounts: 'amendment', deadline: 'ignored', bodyPath: 'body' },
    { invoice: zeroRated, amounts: 'amendment', deadline: 'ignored', bodyPath: 'body' },
  ];
}

// The documents the request makes from the original, in the order they are issued; throws 400
// INVALID_REQUEST for a body that does not fit the original.
export function planAmendment(
  original: OriginalDocument,
  request: AmendmentRequest,
  today: string,
): PlannedDocument[] {
  switch (request.reason) {
    case 'TERMINATION': return termination(original, request.date);
    case 'SUPPLY_COST_CHANGE': return change(original, request, 'asSent');
    case 'DOUBLE_ISSUANCE': return doubleIssuance(original);
    case 'ENTRY_CORRECTION': return entryCorrection(original, request.invoice);
    case 'RETURNED_GOODS': return change(original, request, 'negated');
    case 'LOCAL_LETTER_OF_CREDIT': return localLetterOfCredit(original, request, today);
    default: {
      const unknown: never = request;
      throw new Error(`unknown amendment ${JSON.stringify(unknown)}`);
    }
  }
}

// ---- Validation ---------------------------------------------------------------------------

function validatePlanned(document: PlannedDocument, context: AmendmentContext) {
  try {
    return validateInvoice(document.invoice, { today: context.today,
      supplier: context.supplier, amounts: document.amounts, deadline: document.deadline });
  } catch (error) {
    if (!(error instanceof ApiError) || document.bodyPath === 'body') throw error;
    throw new ApiError(error.code, error.message.replaceAll('body.', `${document.bodyPath}.`));
  }
}

// An entry correction corrects entries; a wrong tax type is a double issuance, and a corrected
// document equal to the original corrects nothing.
function checkCorrection(original: OriginalDocument, corrected: ValidatedInvoice): void {
  if (corrected.taxType !== original.taxType) {
    throw invalid(`body.invoice.items must keep the tax type of the original (` +
      `${original.taxType}): a tax invoice issued as the wrong type is amended with ` +
      'doubleIssuance, then issued again.');
  }
  if (canonicalize(corrected.invoice) === canonicalize(original.invoice)) {
    throw invalid('body.invoice is the same as the tax invoice it amends: an entry ' +
      'correction must correct something.');
  }
}

// The documents of an amendment request, validated and naming their original, or the error
// that refuses it: 409 for the original's state first, then 400 for the body.
export function draftAmendment(
  original: OriginalDocument,
  existing: readonly ExistingAmendment[],
  request: AmendmentRequest,
  context: AmendmentContext,
): DocumentDraft[] {
  checkAmendable(original, existing, request.reason);
  assert(original.ntsTransactionId !== null, 'a transmitted document has an approval number');
  const validated = planAmendment(original, request, context.today)
    .map((document) => validatePlanned(document, context));
  if (request.reason === 'ENTRY_CORRECTION') checkCorrection(original, validated[1]!);
  checkRemainingAmounts(original, existing, validated.map((document) => document.totals));
  const amendment = { reason: request.reason, originalIssuanceKey: original.issuanceKey,
    originalNtsTransactionId: original.ntsTransactionId };
  return validated.map((document) => ({ validated: document, amendment }));
}
