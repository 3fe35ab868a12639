import { issueDeadline, seoulDate } from '../../../domain/business-days.ts';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { IssuersService } from '../../issuers/index.ts';
import type { HolidayCalendar } from '../holidays/calendar.ts';
import type { TaxInvoiceStatus } from '../schemas.ts';
import { endWithoutIssuance, type LifecycleDeps } from '../lifecycle.ts';
import {
  issueTiming,
  supplierPeriodsOf,
  tooLateReason,
  type TimingBasis,
} from '../acceptance/late-issuance.ts';
import type { SupplierEligibility } from '../acceptance/supplier-eligibility.ts';
import { addSteps } from '../processing/steps-store.ts';
import * as store from '../store.ts';

// What can happen to a reverse issuance request, whoever decides (docs/reverse-issuance.md §
// States): the supplier approves it (REQUESTED → APPROVED, and its issuance step is added in
// the same transaction) or refuses it (→ REFUSED), or the requester cancels it
// (→ REQUEST_CANCELED). Each is one conditional status change (store.transition), so of two
// racing decisions exactly one wins; the loser reads the winner's status and gets its 409. An
// error changes nothing: every check runs before the change, or inside its transaction. Each
// decision is a webhook event recorded in its transaction, so only the winner of a race emits.

export type DecisionDeps = LifecycleDeps & {
  db: Db;
  issuers: Pick<IssuersService, 'requireIssuerCertificate'>;
  holidays: Pick<HolidayCalendar, 'added'>;
  now: () => Date;
  eligibility: SupplierEligibility;
};

// Work that must commit with the decision, e.g. using up the approval link it came with.
type WithDecision = (tx: Tx) => Promise<void>;

// What was being attempted, for the messages.
type Attempt = 'approved' | 'refused' | 'canceled' | 'opened for approval';

const CLOSED_WITHOUT_ISSUANCE: readonly TaxInvoiceStatus[] = ['REFUSED', 'REQUEST_CANCELED'];

// The two errors of a finished request: it ended without issuance (canceled by the requester or
// refused by the supplier), or it was approved and is issued or on its way (any later status).
export function closedRequestError(status: TaxInvoiceStatus, attempt: Attempt): ApiError {
  const only = `Only a REQUESTED request can be ${attempt}.`;
  if (CLOSED_WITHOUT_ISSUANCE.includes(status)) {
    const how = status === 'REFUSED' ? 'refused by the supplier' : 'canceled';
    return new ApiError('ISSUE_REQUEST_ALREADY_CANCELED',
      `The reverse issuance request is ${status}: it was ${how}. ${only}`);
  }
  return new ApiError('ISSUE_REQUEST_ALREADY_APPROVED', `The reverse issuance request is ` +
    `${status}: the supplier already approved it. ${only}`);
}

type ApprovalClock = Pick<DecisionDeps, 'holidays' | 'now' | 'issuers' | 'eligibility'>;

// The issue deadline is a date in Seoul; the request can be approved through that whole day. A
// holiday the operator added after the request was recorded moves it later, never earlier.
async function deadlineOf(clock: ApprovalClock, row: store.TaxInvoiceRow): Promise<string> {
  const current = issueDeadline(row.writeDate, await clock.holidays.added());
  return current > row.issueDeadline ? current : row.issueDeadline;
}

// What the late-issuance limit of a request depends on: its tax type, and the supplier's
// periods (its issuer's fiscal year, and whether the tax authority says it is a simplified
// taxpayer), learned only for a request past its issue deadline.
async function timingBasisOf(clock: ApprovalClock, row: store.TaxInvoiceRow): Promise<TimingBasis> {
  const { issuer } = await clock.issuers.requireIssuerCertificate(store.scopeOfRow(row),
    row.supplierKey, 'REVERSE_REQUEST');
  const status = await clock.eligibility.statusOf(row.environment as Environment,
    issuer.identificationNumber);
  return { taxType: row.taxType, supplier: supplierPeriodsOf(issuer, status),
    added: await clock.holidays.added() };
}

// The checks every path to approval makes, in this order: the status, then the deadline. After
// the issue deadline the request can still be approved, as a late issuance (지연발급), until
// its late-issuance limit (../acceptance/late-issuance.ts); the answer says whether it is late.
export async function requireApprovable(clock: ApprovalClock, row: store.TaxInvoiceRow,
  attempt: Attempt): Promise<{ lateIssuance: boolean }> {
  if (row.status !== 'REQUESTED') throw closedRequestError(row.status, attempt);
  const deadline = await deadlineOf(clock, row);
  const today = seoulDate(clock.now());
  if (today <= deadline) return { lateIssuance: false };
  const basis = await timingBasisOf(clock, row);
  const timing = issueTiming(row.writeDate, today, basis);
  if (timing.kind === 'too-late') {
    throw new ApiError('ISSUE_DEADLINE_PASSED', 'The late-issuance limit of this request ' +
      `has passed; it can no longer be approved. ${tooLateReason(row.writeDate, timing, basis)} ` +
      'The requester can cancel it to get its points back.');
  }
  return { lateIssuance: true };
}

async function lostRace(tx: Tx, issuanceKey: string, attempt: Attempt): Promise<never> {
  const current = await store.findInvoiceByKey(tx, issuanceKey);
  throw closedRequestError(current!.status, attempt);
}

// REQUESTED → APPROVED, with the issuance step that signs it under the supplier's certificate.
export async function approveRequest(
  deps: DecisionDeps,
  row: store.TaxInvoiceRow,
  input: { actor: store.Actor; withDecision?: WithDecision },
): Promise<store.TaxInvoiceRow> {
  const { lateIssuance } = await requireApprovable(deps, row, 'approved');
  // The supplier's status may have changed since the request was made (closed since, say).
  await deps.eligibility.check(row.environment as Environment,
    row.invoice.supplier.identificationNumber, [row.taxType]);
  // Refused now rather than failed later by the job: the supplier can register and try again.
  await deps.issuers.requireIssuerCertificate(store.scopeOfRow(row), row.supplierKey,
    'REVERSE_APPROVAL');
  return deps.db.transaction(async (tx) => {
    await input.withDecision?.(tx);
    const approved = await store.transition(tx, {
      issuanceKey: row.issuanceKey, from: ['REQUESTED'], to: 'APPROVED', actor: input.actor,
      message: 'Approved by the supplier.',
    });
    if (approved === null) return lostRace(tx, row.issuanceKey, 'approved');
    if (lateIssuance) await store.markLateIssuance(tx, row.issuanceKey);
    await addSteps(tx, 'ISSUANCE', [row.issuanceKey], deps.now());
    await deps.recordEvents(tx, [{ scope: store.scopeOfRow(approved), event: {
      type: 'TAX_INVOICE_REVERSE_ISSUANCE_APPROVED', data: { issuanceKey: approved.issuanceKey },
    } }]);
    return lateIssuance ? { ...approved, lateIssuance: true } : approved;
  });
}

// REQUESTED → REFUSED; the points are refunded. A refusal needs no certificate and may come
// after the deadline.
export async function refuseRequest(
  deps: DecisionDeps,
  row: store.TaxInvoiceRow,
  input: { actor: store.Actor; reason: string | null; withDecision?: WithDecision },
): Promise<store.TaxInvoiceRow> {
  if (row.status !== 'REQUESTED') throw closedRequestError(row.status, 'refused');
  const message = input.reason ?? 'Refused by the supplier.';
  return deps.db.transaction(async (tx) => {
    await input.withDecision?.(tx);
    const refused = await endWithoutIssuance(deps, tx, {
      issuanceKey: row.issuanceKey, from: ['REQUESTED'], to: 'REFUSED', actor: input.actor,
      message, cause: { code: 'ISSUE_REQUEST_REFUSED', message },
    });
    if (refused === null) return lostRace(tx, row.issuanceKey, 'refused');
    await deps.recordEvents(tx, [{ scope: store.scopeOfRow(refused), event: {
      type: 'TAX_INVOICE_REVERSE_ISSUANCE_REFUSED',
      data: { issuanceKey: refused.issuanceKey, reason: input.reason },
    } }]);
    return refused;
  });
}

// REQUESTED → REQUEST_CANCELED by the requester; the points are refunded. Allowed after the
// deadline too, so a request nobody approved in time can still be closed.
export async function cancelRequest(
  deps: DecisionDeps,
  issuanceKey: string,
  actor: store.Actor = 'API',
): Promise<store.TaxInvoiceRow> {
  return deps.db.transaction(async (tx) => {
    const canceled = await endWithoutIssuance(deps, tx, {
      issuanceKey, from: ['REQUESTED'], to: 'REQUEST_CANCELED', actor,
      message: 'Canceled by the requester.',
    });
    if (canceled === null) return lostRace(tx, issuanceKey, 'canceled');
    await deps.recordEvents(tx, [{ scope: store.scopeOfRow(canceled), event: {
      type: 'TAX_INVOICE_REVERSE_ISSUANCE_CANCELED', data: { issuanceKey },
    } }]);
    return canceled;
  });
}
