import { checkPayment, type ValidatedInvoice } from '../acceptance/validation.ts';
import type { Payment } from '../schemas.ts';
import {
  addDays,
  nextBusinessDayOnOrAfter,
  type AddedHolidays,
} from '../../../domain/business-days.ts';
import {
  alreadyAmended,
  checkNotBeforeOriginal,
  invalid,
  negatedItem,
  notAmendable,
  remark,
  validateDocuments,
  withPayment,
  type AmendmentContext,
  type AmendmentRule,
  type OriginalDocument,
} from './reason-rule.ts';

// Local letter of credit (내국신용장 사후개설, reason code 5; docs/tax-invoice-amendments.md): a
// local letter of credit or purchase confirmation opened after the supply makes it zero-rated.
// Two documents with the original's write date and the opening date in the remark: the covered
// items negated, then the same items zero-rated (tax 0), which replace the original from then
// on. Once per original, and only for a taxable one with a taxed item. The negative half keeps
// the original's payment breakdown only when it takes back the whole original (it covers every
// item); the zero-rated half carries the breakdown the request gives, or none.

export type LocalLetterOfCreditRequest = { reason: 'LOCAL_LETTER_OF_CREDIT'; openedOn: string;
  items?: number[] | undefined; payment?: Payment | null | undefined };

// A local letter of credit opened after the supply makes it zero-rated when it is opened within
// 25 days after the end of the VAT period of the supply, the 25th day moved to the next business
// day when it is a Saturday or a public holiday (부가가치세법 시행령 §70①5 and §31②1: 과세기간
// 종료 후 25일(그 날이 공휴일 또는 토요일인 경우에는 바로 다음 영업일을 말한다) 이내).
const LETTER_OF_CREDIT_DAYS_AFTER_PERIOD = 25;

const letterOfCreditNote = (openedOn: string) => `내국신용장 개설일 ${openedOn}`;

// The last day a local letter of credit may be opened for a supply written on `writeDate`: 25
// days after the end of its VAT period (January–June or July–December, 부가가치세법 §5), or the
// next business day (the holiday table and the operator's days).
export function letterOfCreditDeadline(writeDate: string,
  holidays: AddedHolidays | undefined = undefined): string {
  const year = writeDate.slice(0, 4);
  const periodEnd = writeDate.slice(5, 7) <= '06' ? `${year}-06-30` : `${year}-12-31`;
  return nextBusinessDayOnOrAfter(addDays(periodEnd, LETTER_OF_CREDIT_DAYS_AFTER_PERIOD),
    holidays);
}

function checkOpenedOn(openedOn: string, original: OriginalDocument,
  context: Pick<AmendmentContext, 'today' | 'holidays'>): void {
  const { today } = context;
  if (openedOn > today) {
    throw invalid(`body.openedOn must not be after today (${today} in Korea).`);
  }
  checkNotBeforeOriginal(openedOn, 'body.openedOn', original);
  const deadline = letterOfCreditDeadline(original.writeDate, context.holidays);
  if (openedOn > deadline) {
    throw invalid(`body.openedOn must be on or before ${deadline}: a local letter of credit ` +
      'makes a supply zero-rated only when it is opened within 25 days after the end of the ' +
      'VAT period of the original\'s write date (the next business day when the 25th is not ' +
      'one).');
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

// The documents of this reason, validated, in the order they are issued.
function localLetterOfCreditDocuments(
  original: OriginalDocument,
  request: LocalLetterOfCreditRequest,
  context: AmendmentContext,
): ValidatedInvoice[] {
  checkOpenedOn(request.openedOn, original, context);
  const covered = coveredItemIndexes(original, request.items)
    .map((index) => original.invoice.items[index]!);
  const description = remark(letterOfCreditNote(request.openedOn),
    original.invoice.description);
  const wholeOriginal = covered.length === original.invoice.items.length;
  const takenBack = wholeOriginal ? original.invoice.payment : null;
  const taxable = { ...withPayment(original.invoice, takenBack), description,
    items: covered.map((item) => negatedItem(item)) };
  const zeroRated = { ...withPayment(original.invoice, request.payment), description,
    items: covered.map((item) => ({ ...item, tax: 0 })) };
  const documents = validateDocuments([
    { invoice: taxable, amounts: 'amendment', amountsFrom: 'original', deadline: 'ignored',
      bodyPath: 'body' },
    { invoice: zeroRated, amounts: 'amendment', amountsFrom: 'original', deadline: 'ignored',
      bodyPath: 'body' },
  ], context);
  // The zero-rated half's amounts are the original's, so validation leaves its payment alone;
  // the breakdown is the request's, and must fit within that half's total.
  checkPayment(documents[1]!.invoice.payment, documents[1]!.totals);
  return documents;
}

export const localLetterOfCredit: AmendmentRule<LocalLetterOfCreditRequest> = {
  reversesOriginal: false,
  replacesOriginal: true,
  checkOriginal(original) {
    if (original.taxType === 'TAX_FREE') {
      throw notAmendable('The tax invoice is tax-exempt (계산서); only a taxable tax invoice ' +
        'becomes zero-rated under a local letter of credit.');
    }
    if (!original.invoice.items.some((item) => (item.tax ?? 0) !== 0)) {
      throw notAmendable('Every item of the tax invoice is already zero-rated (tax 0).');
    }
  },
  checkAmendmentsInEffect(original, inEffect) {
    const earlier = inEffect.find((amendment) => amendment.reason === 'LOCAL_LETTER_OF_CREDIT');
    if (earlier !== undefined) {
      throw alreadyAmended(`The tax invoice ${original.issuanceKey} was already amended for a ` +
        `local letter of credit by ${earlier.issuanceKey}.`);
    }
  },
  documents: localLetterOfCreditDocuments,
};
