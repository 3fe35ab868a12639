import type { ValidatedInvoice } from '../acceptance/validation.ts';
import {
  checkNoAmendmentInEffect,
  checkNotBeforeOriginal,
  negatedItem,
  notAmendable,
  originalDateNote,
  remark,
  validateDocuments,
  type AmendmentContext,
  type AmendmentRule,
  type OriginalDocument,
} from './reason-rule.ts';

// Termination (계약의 해제, reason code 4; docs/tax-invoice-amendments.md): the contract was
// undone, so one document reverses the whole original: every amount and quantity negated, written
// on the termination date (also every item's date), whose issue deadline applies, with the
// original's write date first in the remark (부가가치세법 시행령 §70①2: 비고란에 처음 세금계산서
// 작성일을 덧붙여 적은 후).

export type TerminationRequest = { reason: 'TERMINATION'; date: string };

// The documents of this reason, validated, in the order they are issued.
function terminationDocuments(original: OriginalDocument, { date }: TerminationRequest,
  context: AmendmentContext): ValidatedInvoice[] {
  checkNotBeforeOriginal(date, 'body.date', original);
  const invoice = { ...original.invoice, date,
    items: original.invoice.items.map((item) => negatedItem(item, date)),
    description: remark(originalDateNote(original.writeDate), original.invoice.description) };
  return validateDocuments([{ invoice, amounts: 'amendment', amountsFrom: 'original',
    deadline: 'enforced', bodyPath: 'body' }], context);
}

export const termination: AmendmentRule<TerminationRequest> = {
  reversesOriginal: true,
  replacesOriginal: false,
  // The document mirrors every item, and a negated negative item would be an increase.
  checkOriginal(original) {
    if (original.invoice.items.some((item) => item.supplyCost < 0)) {
      throw notAmendable('The tax invoice has an item with a negative supply cost, so a ' +
        'termination cannot mirror it; amend it with changeSupplyCost instead.');
    }
  },
  checkAmendmentsInEffect(original, inEffect) {
    checkNoAmendmentInEffect(original, inEffect, 'TERMINATION');
  },
  documents: terminationDocuments,
};
