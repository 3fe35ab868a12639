import assert from 'node:assert/strict';
import { newId } from '../../../domain/ids.ts';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import {
  isReferenceIdClaimed,
  REFERENCE_ID_REUSED_MESSAGE,
  requestFingerprint,
} from '../../../platform/idempotency/claims.ts';
import type { PointsService } from '../../../platform/points/service.ts';
import { currentRequestId } from '../../../platform/request-context.ts';
import type { Caller } from '../../../platform/scope.ts';
import type { IssuersService } from '../../issuers/index.ts';
import { AMENDMENT_REASONS, type AmendmentReason, type TaxInvoiceStatus } from '../schemas.ts';
import type * as store from '../store.ts';
import { createAcceptanceBatches, recordAlone, type Recording } from './batches.ts';
import {
  lateIssuancePenaltyOf,
  supplierPeriodsOf,
  type SupplierPeriods,
} from './late-issuance.ts';
import type { SupplierEligibility } from './supplier-eligibility.ts';
import type { ValidatedInvoice } from './validation.ts';

// Accepting a tax-invoice request, the same way for issuance, amendments and reverse issuance
// requests (docs/tax-invoices.md § Accepting a request):
//   1. the Supplier-Key names an active issuer of the caller's scope, with a valid certificate
//      when the request will be signed (issuers area, requireIssuerCertificate);
//   2. the supplier's registration status is learned (./supplier-eligibility.ts), the documents
//      are built and validated (the caller's `draft`, with the supplier's periods, which decide
//      the late-issuance limit: ./late-issuance.ts), so bad input costs nothing, and then the
//      status must allow them;
//   3. one transaction claims the reference id (never reusable), debits the points for every
//      document (402 or 409 when the points available do not cover them), inserts the
//      documents with their first status and adds their processing steps.
// A failure leaves nothing behind: no document, no claim, no step, no charge.

// The issuer the Supplier-Key names, as the issuers area gives it.
export type SupplierIssuer =
  Awaited<ReturnType<IssuersService['requireIssuerCertificate']>>['issuer'];

export type DocumentDraft = {
  validated: ValidatedInvoice;
  amendment: {
    reason: AmendmentReason;
    originalIssuanceKey: string;
    originalNtsTransactionId: string;
  } | null;
};

// A drafted document as a preview shows it.
export function draftPreview(draft: DocumentDraft) {
  const { validated } = draft;
  return { invoice: validated.invoice, taxType: validated.taxType, totals: validated.totals,
    issueDeadline: validated.issueDeadline, lateIssuance: validated.lateIssuance,
    amendment: draft.amendment === null ? null : { reason: draft.amendment.reason,
      originalIssuanceKey: draft.amendment.originalIssuanceKey } };
}

export type DocumentPreview = ReturnType<typeof draftPreview>;

// A drafted document as a validation answers it (POST /v1/taxInvoices:validate and the
// validations of amendments and reverse issuance requests): with the penalty rates a late
// issuance would carry.
export function validatedDocument({ validated }: DocumentDraft) {
  return { invoice: validated.invoice, taxType: validated.taxType, totals: validated.totals,
    issueDeadline: validated.issueDeadline, lateIssuance: validated.lateIssuance,
    lateIssuancePenalty: validated.lateIssuance ? lateIssuancePenaltyOf(validated.taxType)
      : null };
}

type AcceptRequest = {
  caller: Caller;
  supplierKey: string;
  referenceId: string | undefined;
  // The request type and body, for the reference id's fingerprint.
  route: string;
  body: unknown;
  issuanceType: 'STANDARD' | 'REVERSE';
  // The supplier a trustee issues for (위탁자), when the issuer named by Supplier-Key issues the
  // documents as a trustee (위수탁): its number, from the body or the original amended. Its
  // registration status, not the trustee's, decides what it may supply and its late window.
  consignor?(issuer: SupplierIssuer): string | null | Promise<string | null>;
  // Builds the documents once the issuer and its periods are known; throws ApiError for bad
  // input.
  draft(issuer: SupplierIssuer, supplierPeriods: SupplierPeriods):
    DocumentDraft[] | Promise<DocumentDraft[]>;
  // Runs in the transaction that records the documents, just before they are inserted, to
  // check again what a concurrent request may have changed since `draft` (an amendment locks
  // its original and counts its amendments again). Throws ApiError to refuse; nothing is kept.
  guard?(tx: Tx): Promise<void>;
  // Work that must commit with the documents (the approval mail of a reverse issuance
  // request); runs in the transaction that inserts them, with the rows as recorded.
  onRecorded?(tx: Tx, rows: store.NewTaxInvoiceRow[]): Promise<void>;
};

type Accepted = { issuanceKeys: string[] };

type AcceptanceDeps = {
  db: Db;
  now: () => Date;
  // debitInTransaction takes the price with the documents; requireAvailable answers the 402 or
  // 409 that debit would, for a validation that charges nothing.
  points: Pick<PointsService, 'debitInTransaction' | 'requireAvailable'>;
  issuers: Pick<IssuersService, 'requireIssuerCertificate'>;
  // False when documents of this environment cannot be transmitted (no live gateway).
  transmissionAvailable(environment: Environment): boolean;
  // Whether the supplier's registration status lets it issue these documents.
  eligibility: SupplierEligibility;
};

// A request makes at most this many documents (an entry correction makes two).
const DOCUMENTS_PER_REQUEST_MAX = 2;

function firstStatus(issuanceType: AcceptRequest['issuanceType']): TaxInvoiceStatus {
  return issuanceType === 'STANDARD' ? 'PENDING' : 'REQUESTED';
}

function documentRow(
  request: AcceptRequest,
  issuer: SupplierIssuer,
  draft: DocumentDraft,
  group: { id: string | null; unitPoints: number },
): store.NewTaxInvoiceRow {
  const { validated, amendment } = draft;
  return {
    issuanceKey: newId('issuanceKey'),
    accountId: request.caller.accountId,
    environment: request.caller.environment,
    apiKeyId: request.caller.apiKeyId,
    clientReferenceId: request.referenceId ?? null,
    issuerId: issuer.id,
    supplierKey: issuer.supplierKey,
    issuanceType: request.issuanceType,
    status: firstStatus(request.issuanceType),
    invoice: validated.invoice,
    writeDate: validated.invoice.date,
    issueDeadline: validated.issueDeadline,
    lateIssuance: validated.lateIssuance,
    counterpartNumber: validated.counterpartNumber,
    taxType: validated.taxType,
    supplyCostTotal: validated.totals.supplyCost,
    taxTotal: validated.totals.tax,
    totalAmount: validated.totals.total,
    chargedPoints: group.unitPoints,
    chargeEntryId: null,
    reservationId: null,
    amendmentReason: amendment === null ? null : AMENDMENT_REASONS[amendment.reason],
    originalIssuanceKey: amendment?.originalIssuanceKey ?? null,
    originalNtsTransactionId: amendment?.originalNtsTransactionId ?? null,
    requestGroup: group.id,
  };
}

function claimOf(request: AcceptRequest): Recording['claim'] {
  if (request.referenceId === undefined) return null;
  return {
    apiKeyId: request.caller.apiKeyId,
    referenceId: request.referenceId,
    fingerprint: requestFingerprint({ method: 'POST', route: request.route,
      body: request.body }),
  };
}

function recordingOf(request: AcceptRequest, rows: store.NewTaxInvoiceRow[],
  unitPoints: number): Recording {
  const charge = unitPoints === 0 ? null
    : { points: unitPoints * rows.length, requestId: currentRequestId() };
  return { rows, claim: claimOf(request), charge, guard: request.guard,
    onRecorded: request.onRecorded };
}

export function createAcceptance(deps: AcceptanceDeps) {
  const batches = createAcceptanceBatches(deps);
  // Plain issuance, the busy path, is recorded with the requests accepted at the same moment.
  const record = (recording: Recording, issuanceType: AcceptRequest['issuanceType']) =>
    (issuanceType === 'STANDARD' && !recording.guard && !recording.onRecorded
      ? batches(recording) : recordAlone(deps, recording));
  // Steps 1 and 2: the documents as they would be recorded, checked, with nothing kept.
  async function prepare(request: AcceptRequest) {
    const scope = { accountId: request.caller.accountId,
      environment: request.caller.environment };
    const { issuer } = await deps.issuers.requireIssuerCertificate(scope, request.supplierKey,
      request.issuanceType === 'STANDARD' ? 'STANDARD' : 'REVERSE_REQUEST');
    // Learned first, judged after the body: bad input is 400 whatever the status.
    const status = await deps.eligibility.statusOf(scope.environment, issuer.identificationNumber);
    const consignor = (await request.consignor?.(issuer)) ?? null;
    const consignorStatus = consignor === null ? null
      : await deps.eligibility.statusOf(scope.environment, consignor);
    // A consignor is not an issuer of the account: its business year is not known, so a
    // corporation's is taken to end in December (docs/tax-invoices.md § Trustee issuance (위수탁)).
    const periods = consignor === null ? supplierPeriodsOf(issuer, status)
      : supplierPeriodsOf({ identificationNumber: consignor, fiscalYearEndMonth: null },
        consignorStatus);
    const drafts = await request.draft(issuer, periods);
    assert(drafts.length >= 1 && drafts.length <= DOCUMENTS_PER_REQUEST_MAX);
    const taxTypes = drafts.map((draft) => draft.validated.taxType);
    if (consignor === null) {
      deps.eligibility.judge(scope.environment, issuer.identificationNumber, status, taxTypes);
    } else {
      // Every document of the request is the consignor's (the drafts keep its number).
      assert(drafts.every((draft) =>
        draft.validated.invoice.supplier.identificationNumber === consignor &&
        draft.validated.invoice.broker != null));
      deps.eligibility.judge(scope.environment, consignor, consignorStatus, taxTypes);
      deps.eligibility.judgeTrustee(scope.environment, issuer.identificationNumber, status);
    }
    if (!deps.transmissionAvailable(scope.environment)) {
      throw new ApiError('SERVICE_UNAVAILABLE',
        'Tax invoices cannot be issued with live keys: this server has no transmission ' +
        'gateway (TAX_INVOICE_GATEWAY_URL) configured.');
    }
    return { scope, issuer, drafts };
  }

  // `unitPoints`: the price of one document (the `taxInvoices.issue` price), debited per
  // document made.
  async function accept(request: AcceptRequest, unitPoints: number): Promise<Accepted> {
    assert(Number.isSafeInteger(unitPoints) && unitPoints >= 0);
    const { issuer, drafts } = await prepare(request);
    const group = { id: drafts.length > 1 ? newId('requestGroup') : null, unitPoints };
    const rows = drafts.map((draft) => documentRow(request, issuer, draft, group));
    return record(recordingOf(request, rows, unitPoints), request.issuanceType);
  }

  // The documents a request would make, drafted and checked exactly as accept does, for a
  // person to look at before issuing (the dashboard's previews): no charge, claim or document.
  async function preview(request: AcceptRequest): Promise<DocumentDraft[]> {
    return (await prepare(request)).drafts;
  }

  // Everything accept does short of its effect, in its order, for a request that only asks
  // what would happen (POST /v1/taxInvoices:validate): the documents drafted and judged, the
  // points available for them (402 or 409 as the charge answers), and the reference id still
  // unused (400 as the claim answers). Nothing is reserved, claimed or recorded.
  async function validate(request: AcceptRequest, unitPoints: number) {
    const { scope, issuer, drafts } = await prepare(request);
    const points = unitPoints * drafts.length;
    if (points > 0) await deps.points.requireAvailable({ ...scope, points });
    const claim = claimOf(request);
    if (claim !== null && await isReferenceIdClaimed(deps.db,
      { ...claim, namespace: 'taxInvoice' })) {
      throw new ApiError('INVALID_REQUEST', REFERENCE_ID_REUSED_MESSAGE);
    }
    return { issuer, drafts, points };
  }

  return Object.assign(accept, { preview, validate });
}

export type Accept = ReturnType<typeof createAcceptance>;
