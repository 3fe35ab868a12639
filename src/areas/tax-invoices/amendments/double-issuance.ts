import type { ValidatedInvoice } from '../acceptance/validation.ts';
import type { Invoice } from '../schemas.ts';
import {
  checkNoAmendmentInEffect,
  negatedItem,
  validateDocuments,
  type AmendmentContext,
  type AmendmentRule,
  type OriginalDocument,
} from './reason-rule.ts';

// Double issuance (착오에 의한 이중발급, reason code 6; docs/tax-invoice-amendments.md): the
// original is a duplicate issued by mistake, or was issued as the wrong type (taxable or
// tax-exempt). One document reverses it: every amount and quantity negated, with the original's
// write date, so the original's issue deadline does not apply to it.

export type DoubleIssuanceRequest = { reason: 'DOUBLE_ISSUANCE' };

// The original with every amount and quantity negated, on its own dates; an entry correction
// starts with the same document.
export function negatedCopy(original: OriginalDocument): Invoice {
  return { ...original.invoice, items: original.invoice.items.map((item) => negatedItem(item)) };
}

// The documents of this reason, validated, in the order they are issued.
function doubleIssuanceDocuments(original: OriginalDocument, _request: DoubleIssuanceRequest,
  context: AmendmentContext): ValidatedInvoice[] {
  return validateDocuments([{ invoice: negatedCopy(original), amounts: 'amendment',
    amountsFrom: 'original', deadline: 'ignored', bodyPath: 'body' }], context);
}

export const doubleIssuance: AmendmentRule<DoubleIssuanceRequest> = {
  reversesOriginal: true,
  replacesOriginal: false,
  checkOriginal() {},
  checkAmendmentsInEffect(original, inEffect) {
    checkNoAmendmentInEffect(original, inEffect, 'DOUBLE_ISSUANCE');
  },
  documents: doubleIssuanceDocuments,
};
