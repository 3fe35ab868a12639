import type { ValidatedInvoice } from '../acceptance/validation.ts';
import type { Item, Payment } from '../schemas.ts';
import {
  checkItemTaxType, checkNotBeforeOriginal, originalDateNote, remark, validateDocuments,
  withPayment, type AmendmentItem, type AmendmentContext, type AmendmentRule, type OriginalDocument,
} from './reason-rule.ts';

// Supply cost change (공급가액 변동, reason code 2; docs/tax-invoice-amendments.md): the price
// changed after the supply. One document holding only the difference, the items as sent
// (positive for an increase, negative for a decrease), written on the date of the change, with
// the original's write date first in the remark. Changes and returns may follow one another as
// long as what remains of the original stays at 0 or above (draft.ts). Its payment breakdown is
// that of the difference, as the request gives it, never the original's.

export type SupplyCostChangeRequest = { reason: 'SUPPLY_COST_CHANGE'; date: string;
  items: AmendmentItem[]; description?: string | null | undefined;
  payment?: Payment | null | undefined };

// The documents of this reason, validated, in the order they are issued.
function supplyCostChangeDocuments(
  original: OriginalDocument,
  request: SupplyCostChangeRequest,
  context: AmendmentContext,
): ValidatedInvoice[] {
  checkNotBeforeOriginal(request.date, 'body.date', original);
  checkItemTaxType(request.items, original);
  const items = request.items.map((item): Item => ({ ...item, date: item.date ?? request.date }));
  const invoice = { ...withPayment(original.invoice, request.payment), date: request.date, items,
    description: remark(originalDateNote(original.writeDate), request.description) };
  return validateDocuments([{ invoice, amounts: 'amendment', amountsFrom: 'request',
    deadline: 'enforced', bodyPath: 'body' }], context);
}

export const supplyCostChange: AmendmentRule<SupplyCostChangeRequest> = {
  reversesOriginal: false,
  replacesOriginal: false,
  checkOriginal() {},
  checkAmendmentsInEffect() {},
  documents: supplyCostChangeDocuments,
};
