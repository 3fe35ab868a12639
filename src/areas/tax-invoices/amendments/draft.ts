import assert from 'node:assert/strict';
import type { DocumentDraft } from '../acceptance/accept.ts';
import type { ValidatedInvoice } from '../acceptance/validation.ts';
import type { AmendmentReason, TaxInvoiceStatus } from '../schemas.ts';
import { doubleIssuance, type DoubleIssuanceRequest } from './double-issuance.ts';
import { entryCorrection, type EntryCorrectionRequest } from './entry-correction.ts';
import {
  localLetterOfCredit,
  type LocalLetterOfCreditRequest,
} from './local-letter-of-credit.ts';
import {
  alreadyAmended,
  invalid,
  notAmendable,
  REASON_LABELS,
  reasonOf,
  type AmendmentContext,
  type AmendmentRule,
  type ExistingAmendment,
  type OriginalDocument,
} from './reason-rule.ts';
import { returnedGoods, type ReturnedGoodsRequest } from './returned-goods.ts';
import { supplyCostChange, type SupplyCostChangeRequest } from './supply-cost-change.ts';
import { termination, type TerminationRequest } from './termination.ts';

// Drafting an amendment (수정발행; docs/tax-invoice-amendments.md): the steps
// every reason goes through, in this order, with the reason's own rule (its file, named after
// it) at each step. Pure functions of the original, its amendments so far and the request;
// service.ts runs them through acceptance, and again under a lock.
//
//   1. The original may be amended: it is TRANSMITTED and is not itself a correcting document
//      (only the positive replacement of an entry correction or of a local letter of credit
//      stands in for an original), then what the reason asks of it (409 NOT_AMENDABLE).
//   2. Its amendments in effect allow it: none reverses the whole original, then what the
//      reason asks of them (409 ALREADY_AMENDED). Termination, double issuance and entry
//      correction need an original without amendments; supply cost changes and returns may
//      follow one another; a local letter of credit is applied once.
//   3. The reason's documents, validated (400 INVALID_REQUEST).
//   4. What remains of the original stays at 0 or above (400 INVALID_REQUEST).

export type AmendmentRequest =
  | TerminationRequest
  | SupplyCostChangeRequest
  | DoubleIssuanceRequest
  | EntryCorrectionRequest
  | ReturnedGoodsRequest
  | LocalLetterOfCreditRequest;

type RequestOf<Reason extends AmendmentReason> = Extract<AmendmentRequest, { reason: Reason }>;

const RULES: { [Reason in AmendmentReason]: AmendmentRule<RequestOf<Reason>> } = {
  TERMINATION: termination,
  SUPPLY_COST_CHANGE: supplyCostChange,
  DOUBLE_ISSUANCE: doubleIssuance,
  ENTRY_CORRECTION: entryCorrection,
  RETURNED_GOODS: returnedGoods,
  LOCAL_LETTER_OF_CREDIT: localLetterOfCredit,
};

type Totals = ValidatedInvoice['totals'];

// Statuses in which a document never took effect; such an amendment does not count.
const ENDED_WITHOUT_ISSUANCE: ReadonlySet<TaxInvoiceStatus> =
  new Set(['FAILED', 'CANCELED', 'REFUSED', 'REQUEST_CANCELED']);

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
function isReplacement(document: OriginalDocument): boolean {
  if (document.amendmentReason === null) return false;
  return RULES[reasonOf(document.amendmentReason)].replacesOriginal &&
    document.supplyCostTotal > 0;
}

function checkOriginal(original: OriginalDocument, reason: AmendmentReason): void {
  if (original.status !== 'TRANSMITTED') {
    throw notAmendable(`The tax invoice is ${original.status}; only a TRANSMITTED tax invoice ` +
      `can be amended. ${NOT_TRANSMITTED_HINTS[original.status]}`);
  }
  if (original.amendmentReason !== null && !isReplacement(original)) {
    throw notAmendable('The tax invoice is itself an amendment (' +
      `${REASON_LABELS[reasonOf(original.amendmentReason)]}) of ` +
      `${original.originalIssuanceKey}; amend that tax invoice instead.`);
  }
  RULES[reason].checkOriginal(original);
}

function checkAmendmentsSoFar(
  original: OriginalDocument,
  existing: readonly ExistingAmendment[],
  reason: AmendmentReason,
): void {
  const inEffect = existing.filter((amendment) => !ENDED_WITHOUT_ISSUANCE.has(amendment.status))
    .map((amendment) => ({ ...amendment, reason: reasonOf(amendment.amendmentReason!) }));
  const reversal = inEffect.find((amendment) => RULES[amendment.reason].reversesOriginal);
  if (reversal !== undefined) {
    // An entry correction's positive document now stands in for the original.
    const replacement = inEffect.find((amendment) => amendment.reason === 'ENTRY_CORRECTION' &&
      amendment.supplyCostTotal > 0);
    throw alreadyAmended(`The tax invoice ${original.issuanceKey} was already reversed by the ` +
      `${REASON_LABELS[reversal.reason]} ${reversal.issuanceKey}` +
      (replacement ? `; amend its corrected tax invoice ${replacement.issuanceKey} instead.`
        : '; it can no longer be amended.'));
  }
  RULES[reason].checkAmendmentsInEffect(original, inEffect);
}

// Steps 1 and 2: refuses an amendment the original's state rules out, 409
// TAX_INVOICE_NOT_AMENDABLE for the original itself, 409 TAX_INVOICE_ALREADY_AMENDED for its
// amendments in effect so far.
export function checkAmendable(
  original: OriginalDocument,
  existing: readonly ExistingAmendment[],
  reason: AmendmentReason,
): void {
  checkOriginal(original, reason);
  checkAmendmentsSoFar(original, existing, reason);
}

// Step 3, by the reason's rule.
function documentsOf(
  original: OriginalDocument,
  request: AmendmentRequest,
  context: AmendmentContext,
): ValidatedInvoice[] {
  switch (request.reason) {
    case 'TERMINATION': return termination.documents(original, request, context);
    case 'SUPPLY_COST_CHANGE': return supplyCostChange.documents(original, request, context);
    case 'DOUBLE_ISSUANCE': return doubleIssuance.documents(original, request, context);
    case 'ENTRY_CORRECTION': return entryCorrection.documents(original, request, context);
    case 'RETURNED_GOODS': return returnedGoods.documents(original, request, context);
    case 'LOCAL_LETTER_OF_CREDIT':
      return localLetterOfCredit.documents(original, request, context);
    default: {
      const unknown: never = request;
      throw new Error(`unknown amendment ${JSON.stringify(unknown)}`);
    }
  }
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

// Step 4: what remains of the original after its amendments in effect and the new documents may
// not fall below 0: a decrease or return cannot take back more than was supplied.
function checkRemainingAmounts(
  original: OriginalDocument,
  existing: readonly ExistingAmendment[],
  added: readonly Totals[],
): void {
  const inEffect = existing.filter((amendment) => !ENDED_WITHOUT_ISSUANCE.has(amendment.status));
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
  const validated = documentsOf(original, request, context);
  checkRemainingAmounts(original, existing, validated.map((document) => document.totals));
  const amendment = { reason: request.reason, originalIssuanceKey: original.issuanceKey,
    originalNtsTransactionId: original.ntsTransactionId };
  return validated.map((document) => ({ validated: document, amendment }));
}

// Steps 1, 2 and 4 again, for documents already drafted: in the transaction that records them,
// with the original locked, a concurrent amendment can no longer slip in between.
export function checkStillAmendable(
  original: OriginalDocument,
  existing: readonly ExistingAmendment[],
  reason: AmendmentReason,
  added: readonly Totals[],
): void {
  checkAmendable(original, existing, reason);
  checkRemainingAmounts(original, existing, added);
}
