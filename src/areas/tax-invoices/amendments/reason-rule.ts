import assert from 'node:assert/strict';
import { ApiError } from '../../../platform/errors.ts';
import { expectedTax, isItemTaxAtRate } from '../../../domain/tax-amounts.ts';
import {
  validateInvoice,
  type AmountRule,
  type ValidatedInvoice,
  type ValidationContext,
} from '../acceptance/validation.ts';
import {
  amendmentReasonOfCode,
  type AmendmentReason,
  type Invoice,
  type Item,
  type Payment,
} from '../schemas.ts';
import type { TaxInvoiceRow } from '../store.ts';

// What the rule of one amendment reason is made of, and the pieces the six rules share. Each
// reason has its rule in a file named after it (termination.ts, supply-cost-change.ts, …);
// draft.ts runs every rule through the same steps, in the same order.

export type OriginalDocument = Pick<TaxInvoiceRow, 'issuanceKey' | 'status' | 'invoice' |
  'writeDate' | 'taxType' | 'ntsTransactionId' | 'amendmentReason' | 'originalIssuanceKey' |
  'supplyCostTotal' | 'taxTotal'>;
export type ExistingAmendment = Pick<TaxInvoiceRow, 'issuanceKey' | 'status' |
  'amendmentReason' | 'supplyCostTotal' | 'taxTotal'>;
// An amendment of the original that took effect (or is on its way), with its reason.
type AmendmentInEffect = ExistingAmendment & { reason: AmendmentReason };

// An item of a supply cost change or a return; its date defaults to the amendment's date.
export type AmendmentItem = Omit<Item, 'date'> & { date?: string | undefined };

export type AmendmentContext = {
  today: string; // YYYY-MM-DD in Asia/Seoul
  supplier: ValidationContext['supplier'];
  holidays: ValidationContext['holidays'];
  supplierPeriods: ValidationContext['supplierPeriods'];
};

// One document an amendment makes, before validation.
type PlannedDocument = {
  invoice: Invoice;
  amounts: AmountRule;
  // 'original' where the items are the original's, negated or copied, so that a reversal is never
  // refused for the VAT rate or quantity × unit price of an original issued before they were
  // checked; 'request' where the client gives the items.
  amountsFrom: NonNullable<ValidationContext['amountsFrom']>;
  // 'enforced' where the issue deadline runs from the amendment's own write date; 'ignored'
  // where the document keeps the original's write date.
  deadline: ValidationContext['deadline'];
  // Where the request body holds this document, so that validation messages name the field
  // the client sent.
  bodyPath: 'body' | 'body.invoice';
};

// The rule of one reason: what it asks of the original and of its amendments so far, and the
// documents it makes from the request.
export type AmendmentRule<Request> = {
  // Its documents reverse the whole original, which can then no longer be amended.
  reversesOriginal: boolean;
  // Its positive document replaces the original, and is amended in the original's place.
  replacesOriginal: boolean;
  // Refuses an original that this reason cannot amend, after the checks every reason makes:
  // 409 TAX_INVOICE_NOT_AMENDABLE.
  checkOriginal(original: OriginalDocument): void;
  // Refuses because of the original's amendments in effect, after the check every reason makes:
  // 409 TAX_INVOICE_ALREADY_AMENDED.
  checkAmendmentsInEffect(original: OriginalDocument, inEffect: readonly AmendmentInEffect[]):
    void;
  // The documents made from the original, validated, in the order they are issued; 400
  // INVALID_REQUEST for a request that does not fit the original.
  documents(original: OriginalDocument, request: Request, context: AmendmentContext):
    ValidatedInvoice[];
};

export const REASON_LABELS: Record<AmendmentReason, string> = {
  ENTRY_CORRECTION: 'entry correction (기재사항 착오정정)',
  SUPPLY_COST_CHANGE: 'supply cost change (공급가액 변동)',
  RETURNED_GOODS: 'returned goods (환입)',
  TERMINATION: 'termination (계약의 해제)',
  LOCAL_LETTER_OF_CREDIT: 'local letter of credit (내국신용장 사후개설)',
  DOUBLE_ISSUANCE: 'double issuance (착오에 의한 이중발급)',
};

export function reasonOf(code: number): AmendmentReason {
  const reason = amendmentReasonOfCode(code);
  assert(reason !== undefined, `unknown amendment reason code ${code}`);
  return reason;
}

// The remark (비고) holds at most this many characters (../schemas.ts).
export const REMARK_LENGTH_MAX = 200;
// The note a supply cost change or return puts first in the remark; the client's own remark
// follows after a space, so it may be this much shorter than a remark.
export const originalDateNote = (writeDate: string) => `당초 작성일자 ${writeDate}`;
export const AMENDMENT_DESCRIPTION_LENGTH_MAX =
  REMARK_LENGTH_MAX - originalDateNote('2026-01-01').length - 1;

export function invalid(message: string): ApiError {
  return new ApiError('INVALID_REQUEST', message);
}

export function notAmendable(message: string): ApiError {
  return new ApiError('TAX_INVOICE_NOT_AMENDABLE', message);
}

export function alreadyAmended(message: string): ApiError {
  return new ApiError('TAX_INVOICE_ALREADY_AMENDED', message);
}

// A reason that reverses the whole original alone would leave any other amendment standing.
export function checkNoAmendmentInEffect(
  original: OriginalDocument,
  inEffect: readonly AmendmentInEffect[],
  reason: AmendmentReason,
): void {
  const first = inEffect[0];
  if (first === undefined) return;
  throw alreadyAmended(`The tax invoice ${original.issuanceKey} already has the amendment ` +
    `${first.issuanceKey} (${REASON_LABELS[first.reason]}); a ${REASON_LABELS[reason]} ` +
    'reverses the original alone and would leave that amendment standing. Reduce what remains ' +
    'with changeSupplyCost instead.');
}

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

// The payment breakdown (결제방법별 금액) of an amendment document describes that document's own total,
// never the original's (docs/tax-invoice-amendments.md § What every amendment has in common). Its
// parts are sizes; the XML and the PDF give them the sign of the document's total. A document that
// reverses the whole original (a termination, a double issuance, the cancelling half of an entry
// correction, a local letter of credit's negative half that covers every item) keeps the original's
// breakdown: it takes back what was paid. A document of other amounts (a change, a return, a
// zero-rated replacement) carries the breakdown its request gives, or none.
export function withPayment(invoice: Invoice, payment: Payment | null | undefined): Invoice {
  const rest = { ...invoice };
  delete rest.payment;
  return payment == null ? rest : { ...rest, payment };
}

export function remark(note: string, text: string | null | undefined): string {
  if (text === null || text === undefined) return note;
  return `${note} ${text}`.slice(0, REMARK_LENGTH_MAX);
}

export function checkNotBeforeOriginal(
  date: string,
  field: string,
  original: OriginalDocument,
): void {
  if (date < original.writeDate) {
    throw invalid(`${field} must not be before ${original.writeDate}, the write date of the ` +
      'tax invoice it amends.');
  }
}

// Items of a change or a return carry tax like the original: null for a tax-exempt invoice, 0
// for a zero-rated one, an integer for a taxable one.
export function checkItemTaxType(
  items: readonly AmendmentItem[],
  original: OriginalDocument,
): void {
  if (original.taxType === 'ZERO_RATED') {
    const taxed = items.findIndex((item) => item.tax !== 0);
    if (taxed === -1) return;
    throw invalid(`body.items[${taxed}].tax must be 0: the tax invoice it amends is ` +
      'zero-rated (영세율).');
  }
  const taxFree = original.taxType === 'TAX_FREE';
  const index = items.findIndex((item) => (item.tax === null) !== taxFree);
  if (index === -1) {
    if (original.taxType === 'TAXABLE') checkItemsAtRate(items);
    return;
  }
  throw invalid(taxFree
    ? `body.items[${index}].tax must be null: the tax invoice it amends is tax-exempt (계산서).`
    : `body.items[${index}].tax must be an integer: the tax invoice it amends is taxable.`);
}

// A change of a taxable invoice is taxed at 10% on every item, even when every tax is 0 (which
// would otherwise make the document zero-rated, a type its original is not).
function checkItemsAtRate(items: readonly AmendmentItem[]): void {
  items.forEach((item, index) => {
    const tax = item.tax ?? 0;
    if (isItemTaxAtRate(item.supplyCost, tax)) return;
    throw invalid(`body.items[${index}].tax must be 10% of body.items[${index}].supplyCost: ` +
      `${expectedTax(item.supplyCost)}, give or take 1 won for rounding; got ${tax}.`);
  });
}

function validateDocument(document: PlannedDocument, context: AmendmentContext) {
  try {
    return validateInvoice(document.invoice, { today: context.today,
      supplier: context.supplier, amounts: document.amounts, deadline: document.deadline,
      holidays: context.holidays, supplierPeriods: context.supplierPeriods,
      amountsFrom: document.amountsFrom });
  } catch (error) {
    if (!(error instanceof ApiError) || document.bodyPath === 'body') throw error;
    throw new ApiError(error.code, error.message.replaceAll('body.', `${document.bodyPath}.`));
  }
}

// Each document checked as an issuance is (acceptance/validation.ts), with the rules of its amounts
// and deadline; the first failure wins, with a message naming the field the client sent.
export function validateDocuments(
  documents: readonly PlannedDocument[],
  context: AmendmentContext,
): ValidatedInvoice[] {
  return documents.map((document) => validateDocument(document, context));
}
