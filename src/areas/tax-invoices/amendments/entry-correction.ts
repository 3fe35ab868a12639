import { canonicalJson } from '../../../domain/canonical-json.ts';
import type { ValidatedInvoice } from '../acceptance/validation.ts';
import type { Invoice } from '../schemas.ts';
import { negatedCopy } from './double-issuance.ts';
import {
  checkNoAmendmentInEffect,
  invalid,
  validateDocuments,
  type AmendmentContext,
  type AmendmentRule,
  type OriginalDocument,
} from './reason-rule.ts';

// Entry correction (기재사항 착오정정, reason code 1; docs/tax-invoice-amendments.md): an entry of
// the original was wrong. Two documents: the original negated, with its write date, then the
// corrected tax invoice as the request gives it, which replaces the original from then on.

export type EntryCorrectionRequest = { reason: 'ENTRY_CORRECTION'; invoice: Invoice };

// An entry correction corrects entries; a wrong tax type is a double issuance, and a corrected
// document equal to the original corrects nothing.
function checkCorrection(original: OriginalDocument, corrected: ValidatedInvoice): void {
  if (corrected.taxType !== original.taxType) {
    throw invalid(`body.invoice.items must keep the tax type of the original (` +
      `${original.taxType}): a tax invoice issued as the wrong type is amended with ` +
      'doubleIssuance, then issued again.');
  }
  // The trustee signs in the supplier's name; which business issued for which is what the
  // original said, and a document issued as the wrong kind is amended by doubleIssuance.
  const trustee = original.invoice.broker != null;
  if ((corrected.invoice.broker != null) !== trustee) {
    throw invalid(trustee ? 'body.invoice.broker must be given: the original is a trustee ' +
      'tax invoice (위수탁), and its correction is one too.' : 'body.invoice.broker must be ' +
      'null: the original is not a trustee tax invoice (위수탁); one issued as the wrong kind ' +
      'is amended with doubleIssuance, then issued again.');
  }
  if (trustee && corrected.invoice.supplier.identificationNumber !==
    original.invoice.supplier.identificationNumber) {
    throw invalid('body.invoice.supplier.identificationNumber must stay ' +
      `${original.invoice.supplier.identificationNumber}, the supplier the original was ` +
      'issued for: a trustee tax invoice issued for the wrong business is amended with ' +
      'doubleIssuance, then issued again for the right one.');
  }
  if (canonicalJson(corrected.invoice) === canonicalJson(original.invoice)) {
    throw invalid('body.invoice is the same as the tax invoice it amends: an entry ' +
      'correction must correct something.');
  }
}

// The documents of this reason, validated, in the order they are issued.
function entryCorrectionDocuments(
  original: OriginalDocument,
  { invoice }: EntryCorrectionRequest,
  context: AmendmentContext,
): ValidatedInvoice[] {
  // The corrected document is a whole invoice again, so the rules of issuance hold for its
  // amounts. Its deadline does not: a correction may be made after the original's deadline.
  const [cancellation, corrected] = validateDocuments([
    { invoice: negatedCopy(original), amounts: 'amendment', amountsFrom: 'original',
      deadline: 'ignored', bodyPath: 'body' },
    { invoice, amounts: 'forward', amountsFrom: 'request', deadline: 'ignored',
      bodyPath: 'body.invoice' },
  ], context);
  checkCorrection(original, corrected!);
  return [cancellation!, corrected!];
}

export const entryCorrection: AmendmentRule<EntryCorrectionRequest> = {
  reversesOriginal: true,
  replacesOriginal: true,
  checkOriginal() {},
  checkAmendmentsInEffect(original, inEffect) {
    checkNoAmendmentInEffect(original, inEffect, 'ENTRY_CORRECTION');
  },
  documents: entryCorrectionDocuments,
};
