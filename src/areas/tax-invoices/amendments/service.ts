import assert from 'node:assert/strict';
import { seoulDate } from '../../../domain/business-days.ts';
import type { Db } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { RecordEvents } from '../../../platform/events.ts';
import type { Caller, Scope } from '../../../platform/scope.ts';
import type { HolidayCalendar } from '../holidays/calendar.ts';
import {
  draftPreview,
  validatedDocument,
  type Accept,
  type SupplierIssuer,
} from '../acceptance/accept.ts';
import type { ValidatedInvoice } from '../acceptance/validation.ts';
import type { AmendmentReason } from '../schemas.ts';
import * as store from '../store.ts';
import { checkStillAmendable, draftAmendment, type AmendmentRequest } from './draft.ts';

// Amending a transmitted tax invoice (docs/tax-invoice-amendments.md): the original is found
// among the documents of the supplier that Supplier-Key names, draft.ts makes the documents by
// the reason's rule (termination.ts, returned-goods.ts, …), and acceptance records them like any
// issuance: the same reference id claim, one charge per document and the same jobs.
//
// Two requests for the same original may race: each checks the original's amendments when it
// drafts (so most refusals cost nothing), and checks them again in the transaction that records
// its documents, after locking the original's row. The second one waits for the lock until the
// first commits and then, under READ COMMITTED, reads its documents; so of two terminations
// exactly one makes a document. The TAX_INVOICE_AMENDMENT_ISSUED event is recorded in the
// transaction that records the documents, so a refused amendment emits nothing.

type AmendmentDeps = {
  db: Db;
  accept: Accept;
  // Points per document (the price table's taxInvoices.issue).
  unitPoints: number;
  recordEvents: RecordEvents;
  holidays: Pick<HolidayCalendar, 'added'>;
  now: () => Date;
};

export type AmendInput = {
  caller: Caller;
  supplierKey: string;
  referenceId: string | undefined;
  issuanceKey: string;
  request: AmendmentRequest;
};

// The reasons that make two documents; the others make one.
const PAIR_REASONS: ReadonlySet<AmendmentReason> =
  new Set(['ENTRY_CORRECTION', 'LOCAL_LETTER_OF_CREDIT']);
type PairReason = 'ENTRY_CORRECTION' | 'LOCAL_LETTER_OF_CREDIT';

// The answer: the new document's key, and for two documents both keys in order.
type AmendmentAccepted<Reason extends AmendmentReason = AmendmentReason> =
  Reason extends PairReason ? { issuanceKey: string; issuanceKeys: string[] }
    : { issuanceKey: string };

// The last path segment of each reason's route.
const AMENDMENT_PATH_SEGMENTS: Record<AmendmentReason, string> = {
  ENTRY_CORRECTION: 'entryCorrection',
  SUPPLY_COST_CHANGE: 'changeSupplyCost',
  RETURNED_GOODS: 'returnedGoods',
  TERMINATION: 'termination',
  LOCAL_LETTER_OF_CREDIT: 'localLetterOfCredit',
  DOUBLE_ISSUANCE: 'doubleIssuance',
};

// A document of another account, environment or supplier is answered as one that does not
// exist, so a Supplier-Key cannot be used to learn about other suppliers' documents.
const NO_SUCH_ORIGINAL = 'No tax invoice of the supplier that Supplier-Key names has this ' +
  'issuance key.';

function amendmentRoute(input: AmendInput): string {
  return `/v1/taxInvoices/${input.issuanceKey}/amend/` +
    AMENDMENT_PATH_SEGMENTS[input.request.reason];
}

function acceptedResponse(reason: AmendmentReason, issuanceKeys: string[]): AmendmentAccepted {
  const pair = PAIR_REASONS.has(reason);
  assert.equal(issuanceKeys.length, pair ? 2 : 1);
  const issuanceKey = issuanceKeys[0]!;
  return pair ? { issuanceKey, issuanceKeys } : { issuanceKey };
}

// A validation's answer: the documents the amendment would make, with their reason and
// original, and their price.
function validationAnswer(validated: Awaited<ReturnType<Accept['validate']>>) {
  const { issuer, drafts, points } = validated;
  return {
    valid: true as const,
    supplier: { issuerId: issuer.id, identificationNumber: issuer.identificationNumber },
    documents: drafts.map((draft) => {
      assert(draft.amendment !== null);
      return { ...validatedDocument(draft), amendment: { reason: draft.amendment.reason,
        originalIssuanceKey: draft.amendment.originalIssuanceKey } };
    }),
    price: { operation: 'taxInvoices.issue' as const, points },
  };
}

export function createAmendmentService(deps: AmendmentDeps) {
  async function findOriginal(scope: Scope, issuanceKey: string, issuer: SupplierIssuer) {
    const original = await store.findInvoice(deps.db, scope, issuanceKey);
    if (original === null || original.issuerId !== issuer.id) {
      throw new ApiError('NOT_FOUND', NO_SUCH_ORIGINAL);
    }
    return original;
  }

  function amendmentRequest(input: AmendInput, today: string,
    holidays: Awaited<ReturnType<AmendmentDeps['holidays']['added']>>) {
    const scope = { accountId: input.caller.accountId, environment: input.caller.environment };
    // The totals of the drafted documents, for the check made again under the lock.
    let added: ValidatedInvoice['totals'][] = [];
    const request: Parameters<Accept>[0] = {
      caller: input.caller, supplierKey: input.supplierKey, referenceId: input.referenceId,
      route: amendmentRoute(input), body: input.request, issuanceType: 'STANDARD',
      // An amendment of a trustee document is the trustee's again, for the same supplier.
      async consignor(issuer) {
        const original = await findOriginal(scope, input.issuanceKey, issuer);
        return original.invoice.broker == null ? null
          : original.invoice.supplier.identificationNumber;
      },
      async draft(issuer, supplierPeriods) {
        const original = await findOriginal(scope, input.issuanceKey, issuer);
        const existing = await store.findAmendments(deps.db, original.issuanceKey);
        const drafts = draftAmendment(original, existing, input.request, { today, holidays,
          supplierPeriods,
          supplier: { identificationNumber: issuer.identificationNumber,
            taxRegistrationId: issuer.taxRegistrationId } });
        added = drafts.map((draft) => draft.validated.totals);
        return drafts;
      },
      async guard(tx) {
        const original = await store.lockInvoice(tx, scope, input.issuanceKey);
        // Documents are never deleted, and draft found this one.
        assert(original !== null);
        const existing = await store.findAmendments(tx, original.issuanceKey);
        checkStillAmendable(original, existing, input.request.reason, added);
      },
      async onRecorded(tx, rows) {
        await deps.recordEvents(tx, [{ scope, event: {
          type: 'TAX_INVOICE_AMENDMENT_ISSUED',
          data: { originalIssuanceKey: input.issuanceKey, reason: input.request.reason,
            issuanceKeys: rows.map((row) => row.issuanceKey) },
        } }]);
      },
    };
    return request;
  }

  async function amend<Request extends AmendmentRequest>(
    input: AmendInput & { request: Request },
  ): Promise<AmendmentAccepted<Request['reason']>> {
    const today = seoulDate(deps.now());
    const holidays = await deps.holidays.added();
    const accepted = await deps.accept(amendmentRequest(input, today, holidays), deps.unitPoints);
    return acceptedResponse(input.request.reason, accepted.issuanceKeys) as
      AmendmentAccepted<Request['reason']>;
  }

  // The documents an amendment would make, drafted and checked as amend does them; nothing is
  // kept or charged.
  async function previewAmendment(input: AmendInput) {
    const today = seoulDate(deps.now());
    const holidays = await deps.holidays.added();
    const drafts = await deps.accept.preview(amendmentRequest(input, today, holidays));
    return drafts.map(draftPreview);
  }

  // What amend would answer, without its effect (POST /v1/taxInvoices/{issuanceKey}/
  // amendments/<reason>:validate): the same request through the same steps (acceptance.ts,
  // validate). Nothing is charged, claimed or recorded.
  async function validateAmendment(input: AmendInput) {
    const today = seoulDate(deps.now());
    const holidays = await deps.holidays.added();
    return validationAnswer(await deps.accept.validate(
      amendmentRequest(input, today, holidays), deps.unitPoints));
  }

  return { amend, previewAmendment, validateAmendment };
}

export type AmendmentService = ReturnType<typeof createAmendmentService>;
