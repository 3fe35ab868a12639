import type { RegistrationStatusOf } from '../../tax-invoices/index.ts';
import { newId } from '../../../domain/ids.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import {
  findReplay,
  requestFingerprint,
  runIdempotent,
  type IdempotentResult,
} from '../../../platform/idempotency/claims.ts';
import type { StageJob } from '../../../platform/jobs.ts';
import type { PriceRow } from '../../../platform/operations.ts';
import type { PriceTable } from '../../../platform/points/prices.ts';
import type { PointsService, Reservation } from '../../../platform/points/service.ts';
import type { Caller, Scope } from '../../../platform/scope.ts';
import type { IssuersService } from '../../issuers/index.ts';
import type { OwnerBusinesses } from '../owner-business.ts';
import { DOCUMENT_QUEUE } from '../processing/issuance-job.ts';
import type { DocumentType, IssueDocumentBody } from '../schemas.ts';
import * as store from '../store.ts';
import {
  checkForOwner,
  isCorporateBusinessNumber,
  validateDocumentRequest,
  type ValidatedRequest,
} from './validation.ts';

// Accepting a document request (docs/documents.md § Accepting a request):
//   1. a reference id this key used before answers at once: the earlier request (202, nothing
//      charged again) for the same body, 409 IDEMPOTENCY_CONFLICT for another;
//   2. the body is checked by its type's rules;
//   3. a tax-authority document needs the owner business with a valid joint certificate;
//   4. the document's price is reserved (402 / 409 when the balance cannot hold it);
//   5. one transaction claims the reference id, records the request, keeps the reservation open
//      until the job settles it, and stages the job. A concurrent request with the same
//      reference id waits on the claim, then answers as in 1 and releases its reservation.
// A failure in 2–5 leaves nothing behind: no request, no claim, no job, no reservation.

const ISSUE_ROUTE = '/v1/documents/issue';

// How long a document's reservation stays open for its job: longer than any officer's check
// and every retry of an unavailable upstream service. A job that never ends (its retries ran
// out) has its points given back when the hold ends.
const RESERVATION_HOLD_MS = 7 * 24 * 3_600_000;

export type DocumentPriceRow = Extract<PriceRow, 'documents.taxAuthority.issue'
  | 'documents.registry.viewCopy' | 'documents.registry.submissionCopy'>;

export function priceRowOf(type: DocumentType): DocumentPriceRow {
  if (type === 'CORPORATE_REGISTRY_VIEW') return 'documents.registry.viewCopy';
  if (type === 'CORPORATE_REGISTRY_SUBMISSION') return 'documents.registry.submissionCopy';
  return 'documents.taxAuthority.issue';
}

type AcceptanceDeps = {
  db: Db;
  stage: StageJob;
  points: Pick<PointsService, 'reserve' | 'release' | 'extendReservation' | 'requireAvailable'>;
  prices: PriceTable;
  issuers: IssuersService;
  owners: OwnerBusinesses;
  registrationStatusOf: RegistrationStatusOf;
  // False when documents of this kind cannot be issued in this environment (no live gateway).
  upstreamAvailable(environment: Scope['environment'], kind: ValidatedRequest['kind']): boolean;
  now: () => Date;
};

// Thrown inside the first look at the claim to roll it back once it is known to be new.
class ClaimIsNew extends Error {}

type Claim = Parameters<typeof runIdempotent>[1];

// The answer of an earlier request with this reference id, or null when there is none: the
// claim is tried and, when it is new, rolled back.
async function earlierAnswer(db: Db, claim: Claim): Promise<IdempotentResult | null> {
  try {
    return await db.transaction((tx) => runIdempotent(tx, claim, () => {
      throw new ClaimIsNew();
    }));
  } catch (error) {
    if (error instanceof ClaimIsNew) return null;
    throw error;
  }
}

// The business and certificate a tax-authority document is issued under.
async function ownerSubject(deps: AcceptanceDeps, scope: Scope, showResidentNumber: boolean) {
  const issuerId = await deps.owners.requireIssuerId({ scope });
  const issuer = await deps.issuers.getIssuer({ scope, issuerId });
  await deps.issuers.requireIssuerCertificate(scope, issuer.supplierKey, 'STANDARD');
  const certificate = await deps.issuers.getCertificate({ scope, issuerId });
  return {
    issuerId,
    subject: {
      businessNumber: issuer.identificationNumber,
      name: issuer.organizationName,
      representativeName: issuer.representativeName,
      certificateSerialNumber: certificate.serialNumber,
      certificateNotAfter: certificate.notAfter,
    },
    // A corporation has no resident number to print.
    showResidentNumber: showResidentNumber &&
      !isCorporateBusinessNumber(issuer.identificationNumber),
  };
}

// The state a fact certificate certifies, as the tax authority reports it.
const FACT_STATES: Partial<Record<DocumentType, { status: 'CLOSED' | 'SUSPENDED'; name: string }>> =
  { BUSINESS_CLOSURE_FACT_CERTIFICATE: { status: 'CLOSED', name: '폐업사실증명' },
    BUSINESS_SUSPENSION_FACT_CERTIFICATE: { status: 'SUSPENDED', name: '휴업사실증명' } };

// A fact certificate of a state the business is not in is refused, as the tax portal refuses
// it, before anything is charged. When the authority does not answer, the request goes on and
// the civil-document service decides.
async function checkFactCertificate(deps: AcceptanceDeps, scope: Scope, type: DocumentType,
  businessNumber: string) {
  const fact = FACT_STATES[type];
  if (fact === undefined) return;
  const status = await deps.registrationStatusOf({ environment: scope.environment,
    businessNumber });
  if (status === null || status.status === fact.status) return;
  throw new ApiError('DOCUMENT_NOT_APPLICABLE', `${type} (${fact.name}) certifies a ` +
    `${fact.status} business; the tax authority reports the owner business ${businessNumber} ` +
    `as ${status.status}.`);
}

async function reserve(deps: AcceptanceDeps, scope: Scope, type: DocumentType) {
  const operation = priceRowOf(type);
  const points = deps.prices[operation];
  if (points === 0) return { reservation: null, points };
  return { reservation: await deps.points.reserve({ ...scope, operation, points }), points };
}

// The work of a new claim: the request row, its reservation kept open, its job.
function record(
  deps: AcceptanceDeps,
  row: store.NewDocumentRow,
  reservation: Reservation | null,
) {
  return async (tx: Tx) => {
    await store.insertDocument(tx, row);
    if (reservation !== null) {
      await deps.points.extendReservation({ reservationId: reservation.reservationId,
        expiresAt: new Date(deps.now().getTime() + RESERVATION_HOLD_MS) }, tx);
    }
    await deps.stage(tx, DOCUMENT_QUEUE, { issuanceKey: row.issuanceKey });
    return { status: 202, body: { issuanceKey: row.issuanceKey } };
  };
}

type Owner = Awaited<ReturnType<typeof ownerSubject>>;

function documentRow(
  caller: Caller,
  referenceId: string,
  validated: ValidatedRequest,
  owner: Owner | null,
  charge: { reservation: Reservation | null; points: number },
  acceptedAt: Date,
): store.NewDocumentRow {
  return {
    issuanceKey: newId('documentIssuanceKey'),
    accountId: caller.accountId,
    environment: caller.environment,
    apiKeyId: caller.apiKeyId,
    clientReferenceId: referenceId,
    type: validated.type,
    options: validated.kind === 'taxAuthority'
      ? { ...validated.options, showResidentNumber: owner!.showResidentNumber }
      : validated.options,
    issuerId: owner?.issuerId ?? null,
    corporationNumber: validated.kind === 'registry' ? validated.corporationNumber : null,
    subject: owner?.subject ??
      { corporationKind: validated.kind === 'registry' ? validated.corporationKind : null },
    status: 'ACCEPTED',
    reservationId: charge.reservation?.reservationId ?? null,
    reservedPoints: charge.points,
    acceptedAt,
  };
}

type AcceptInput = { caller: Caller; referenceId: string; body: IssueDocumentBody };

function claimOf(input: AcceptInput): Claim {
  return { apiKeyId: input.caller.apiKeyId, namespace: 'document',
    referenceId: input.referenceId,
    fingerprint: requestFingerprint({ method: 'POST', route: ISSUE_ROUTE, body: input.body }) };
}

// Steps 2 and 3, and whether the upstream service can be reached: the request as it would be
// recorded, or the ApiError that refuses it. Accepting and validating both run it.
async function check(deps: AcceptanceDeps, scope: Scope, body: IssueDocumentBody) {
  const validated = validateDocumentRequest(body, deps.now());
  const owner = validated.kind === 'taxAuthority'
    ? await ownerSubject(deps, scope, validated.options.showResidentNumber) : null;
  if (owner !== null) {
    checkForOwner(validated, owner.subject.businessNumber, deps.now());
    await checkFactCertificate(deps, scope, validated.type, owner.subject.businessNumber);
  }
  if (!deps.upstreamAvailable(scope.environment, validated.kind)) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'Documents of this kind cannot be issued with ' +
      'live keys: this server has no gateway for them configured.');
  }
  return { validated, owner };
}

const scopeOf = (caller: Caller): Scope =>
  ({ accountId: caller.accountId, environment: caller.environment });

// What accepting would answer, without its effect (POST /v1/documents:validate): step 1 read
// instead of claimed (a replay is reported, other content is 409), steps 2 and 3, and step 4's
// answer read instead of reserved (402 or 409). Nothing is claimed, reserved or recorded.
export function createDocumentValidation(deps: AcceptanceDeps) {
  return async function validate(input: AcceptInput) {
    const scope = scopeOf(input.caller);
    const earlier = await findReplay(deps.db, claimOf(input));
    if (earlier !== null) {
      return { valid: true as const,
        replayOf: (earlier.body as { issuanceKey: string }).issuanceKey, document: null,
        price: { operation: priceRowOf(input.body.type as DocumentType), points: 0 } };
    }
    const { validated, owner } = await check(deps, scope, input.body);
    const operation = priceRowOf(validated.type);
    const points = deps.prices[operation];
    if (points > 0) await deps.points.requireAvailable({ ...scope, points });
    const row = documentRow(input.caller, input.referenceId, validated, owner,
      { reservation: null, points }, deps.now());
    return { valid: true as const, replayOf: null,
      document: { type: validated.type, options: row.options,
        corporationNumber: row.corporationNumber ?? null,
        businessRegistrationNumber: owner?.subject.businessNumber ?? null },
      price: { operation, points } };
  };
}

export function createDocumentAcceptance(deps: AcceptanceDeps) {
  const { db } = deps;
  return async function accept(input: AcceptInput): Promise<{ issuanceKey: string }> {
    const { caller, referenceId } = input;
    const scope = scopeOf(caller);
    const claim = claimOf(input);
    const earlier = await earlierAnswer(db, claim);
    if (earlier !== null) return earlier.body as { issuanceKey: string };
    const { validated, owner } = await check(deps, scope, input.body);
    const charge = await reserve(deps, scope, validated.type);
    const { reservation } = charge;
    const row = documentRow(caller, referenceId, validated, owner, charge, deps.now());
    let result: IdempotentResult;
    try {
      result = await db.transaction((tx) =>
        runIdempotent(tx, claim, record(deps, row, reservation)));
    } catch (error) {
      if (reservation !== null) await deps.points.release(reservation);
      throw error;
    }
    // Another request with the same reference id was recorded first: its answer stands.
    if (result.replayed && reservation !== null) await deps.points.release(reservation);
    return result.body as { issuanceKey: string };
  };
}

export type AcceptDocument = ReturnType<typeof createDocumentAcceptance>;
export type ValidateDocument = ReturnType<typeof createDocumentValidation>;
