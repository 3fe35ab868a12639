import {
  checkNoAmendmentInEffect,
  checkNotBeforeOriginal,
  negatedItem,
  notAmendable,
  validateDocuments,
  type AmendmentRule,
} from './reason-rule.ts';

// Termination (계약의 해제, reason code 4; docs/tax-invoice-amendments.md): the contract was
// undone, so one document reverses the whole original: every amount and quantity negated, written
// on the termination date (also every item's date), whose issue deadline applies.

export type TerminationRequest = { reason: 'TERMINATION'; date: string };

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
  documents(original, { date }, context) {
    checkNotBeforeOriginal(date, 'body.date', original);
    const invoice = { ...original.invoice, date,
      items: original.invoice.items.map((item) => negatedItem(item, date)) };
    return validateDocuments([{ invoice, amounts: 'amendment', amountsFrom: 'original',
      deadline: 'enforced', bodyPath: 'body' }], context);
  },
};
