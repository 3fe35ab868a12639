import type { ValidatedInvoice } from '../acceptance/validation.ts';
import type { Payment } from '../schemas.ts';
import {
  checkItemTaxType, checkNotBeforeOriginal, negatedItem, originalDateNote, remark,
  validateDocuments, withPayment, type AmendmentItem, type AmendmentContext, type AmendmentRule,
  type OriginalDocument,
} from './reason-rule.ts';

// Returned goods (환입, reason code 3; docs/tax-invoice-amendments.md): goods of the original came
// back. The request lists them in positive amounts; the one document carries them negated
// (amounts and quantities), written on the return date, with the original's write date first in
// the remark. Returns and supply cost changes may follow one another as long as what remains of
// the original stays at 0 or above (draft.ts). Its payment breakdown is that of the return (what
// is refunded or no longer owed), as the request gives it, never the original's.

export type ReturnedGoodsRequest = { reason: 'RETURNED_GOODS'; date: string;
  items: AmendmentItem[]; description?: string | null | undefined;
  payment?: Payment | null | undefined };

// The documents of this reason, validated, in the order they are issued.
function returnedGoodsDocuments(original: OriginalDocument, request: ReturnedGoodsRequest,
  context: AmendmentContext): ValidatedInvoice[] {
  checkNotBeforeOriginal(request.date, 'body.date', original);
  checkItemTaxType(request.items, original);
  const items = request.items.map((item) =>
    negatedItem({ ...item, date: item.date ?? request.date }));
  const invoice = { ...withPayment(original.invoice, request.payment), date: request.date, items,
    description: remark(originalDateNote(original.writeDate), request.description) };
  return validateDocuments([{ invoice, amounts: 'amendment', amountsFrom: 'request',
    deadline: 'enforced', bodyPath: 'body' }], context);
}

export const returnedGoods: AmendmentRule<ReturnedGoodsRequest> = {
  reversesOriginal: false,
  replacesOriginal: false,
  checkOriginal() {},
  checkAmendmentsInEffect() {},
  documents: returnedGoodsDocuments,
};
