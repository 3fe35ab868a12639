import { seoulDate } from '../../domain/business-days.ts';
import { deterministicId } from '../../domain/ids.ts';
import type { Tx } from '../../platform/db/connect.ts';
import type { RecordEvents } from '../../platform/events.ts';
import type { IssuedInvoiceChange, RecordIssuedInvoices } from '../../platform/issued-invoices.ts';
import type { PointsService } from '../../platform/points/service.ts';
import { endSteps } from './processing/steps-store.ts';
import type { TaxInvoiceStatus } from './schemas.ts';
import * as store from './store.ts';

// The status changes that end a document, with what goes with them in the same transaction: a
// document that ends without being issued gets its points back, and issuance outcomes are
// webhook events (TAX_INVOICE_ISSUANCE_SUCCESS and _FAILURE, docs/webhooks.md), and a decided
// document leaves the workers' queue. Because the change is conditional (store.transition), a
// retried step or a racing request that loses finds nothing to change, and so refunds and emits
// nothing.

type Cause = { code: string; message: string };

const ISSUANCE_FAILED: Cause = { code: 'ISSUANCE_FAILED',
  message: 'The tax invoice could not be issued.' };

export type LifecycleDeps = {
  points: Pick<PointsService, 'refundCapture' | 'refundCharge'>;
  recordEvents: RecordEvents;
  // The URL clients open for an issued document (its PDF).
  documentUrl(issuanceKey: string): string;
  // The revenue and expense books: a transmitted document is a sale, and a purchase of the
  // accounts connected to its recipient.
  recordIssuedInvoices?: RecordIssuedInvoices;
};

// The books' view of a document that just got its approval number.
function issuedInvoiceChange(row: store.TaxInvoiceRow, ntsTransactionId: string,
  transmittedAt: Date): IssuedInvoiceChange {
  const { supplier, supplied } = row.invoice;
  // By arithmetic (Korea keeps UTC+9 all year): a date formatted with a time zone builds an Intl
  // formatter on every call, which cost more than the rest of the books' entry.
  const issueDate = seoulDate(row.issuedAt ?? transmittedAt);
  return {
    scope: store.scopeOfRow(row), issuanceKey: row.issuanceKey,
    approvalNumber: ntsTransactionId, writeDate: row.writeDate, issueDate,
    supplier: { businessRegistrationNumber: supplier.identificationNumber,
      name: supplier.organizationName },
    recipient: { businessRegistrationNumber: supplied.identificationNumber,
      name: supplied.organizationName },
    broker: row.invoice.broker == null ? null
      : { businessRegistrationNumber: row.invoice.broker.identificationNumber,
        name: row.invoice.broker.organizationName },
    supplyCost: row.supplyCostTotal, tax: row.taxTotal, totalAmount: row.totalAmount,
    taxType: row.taxType,
    amendment: row.amendmentReason === null || row.originalNtsTransactionId === null ? null
      : { reason: row.amendmentReason, originalApprovalNumber: row.originalNtsTransactionId },
    status: 'TRANSMITTED', late: issueDate > row.issueDeadline,
  };
}

// A document is refunded at most once: its refund's ledger entry id is made from its key.
async function refund(deps: LifecycleDeps, tx: Tx, row: store.TaxInvoiceRow) {
  if (row.chargedPoints === 0) return;
  const refund = {
    ...store.scopeOfRow(row),
    points: row.chargedPoints,
    ledgerEntryId: deterministicId('ledgerEntry', 'refund', row.issuanceKey),
    memo: `refund: tax invoice ${row.issuanceKey} ended ${row.status}`,
    documentId: row.issuanceKey,
  };
  // Debited with the request; a document accepted before that was so was captured from a
  // reservation.
  if (row.chargeEntryId !== null) {
    await deps.points.refundCharge({ ...refund, operation: 'taxInvoices.issue' }, tx);
  } else if (row.reservationId !== null) {
    await deps.points.refundCapture({ ...refund, reservationId: row.reservationId }, tx);
  }
}

// Ends a document without issuance: FAILED (with its cause, emitted as an event), CANCELED,
// REFUSED or REQUEST_CANCELED. Null when the document is not in one of `from`.
export async function endWithoutIssuance(
  deps: LifecycleDeps,
  tx: Tx,
  change: Omit<store.Transition, 'to' | 'changes'> & {
    to: Extract<TaxInvoiceStatus, 'FAILED' | 'CANCELED' | 'REFUSED' | 'REQUEST_CANCELED'>;
    cause?: Cause;
  },
): Promise<store.TaxInvoiceRow | null> {
  // A failed document always keeps why (the index of failures depends on it, tables.ts).
  const cause = change.cause ?? (change.to === 'FAILED' ? ISSUANCE_FAILED : undefined);
  const changes = cause ? { failureCode: cause.code, failureMessage: cause.message } : {};
  const row = await store.transition(tx, { ...change, changes,
    message: change.message ?? change.cause?.message ?? null });
  if (row === null) return null;
  await endSteps(tx, [row.issuanceKey]);
  await refund(deps, tx, row);
  if (change.to === 'FAILED') {
    await deps.recordEvents(tx, [{ scope: store.scopeOfRow(row), event: {
      type: 'TAX_INVOICE_ISSUANCE_FAILURE',
      data: { issuanceKey: row.issuanceKey, cause: cause ?? ISSUANCE_FAILED },
    } }]);
  }
  return row;
}

type Approval = { row: store.TaxInvoiceRow; ntsTransactionId: string; transmittedAt: Date };

// Records the tax authority's approval numbers: TRANSMITTING → TRANSMITTED, a success event
// for each document moved and what `alongside` writes with them (the recipients' mail), then
// their entries in the books last: the books' counter of an account stays locked from then to the
// commit, and another batch transmitting for the same account waits on it, so no other statement
// comes after it. Returns the keys of the documents moved.
export async function recordTransmitted(
  deps: LifecycleDeps,
  tx: Tx,
  approvals: Approval[],
  alongside?: (transmitted: Approval[]) => Promise<void>,
): Promise<Set<string>> {
  const moved = new Set(await store.transitionMany(tx, {
    from: ['TRANSMITTING'], to: 'TRANSMITTED', actor: 'JOB',
    items: approvals.map(({ row, ntsTransactionId, transmittedAt }) => ({
      issuanceKey: row.issuanceKey,
      message: `Approval number ${ntsTransactionId}.`,
      changes: { ntsTransactionId, transmittedAt },
    })),
  }));
  await endSteps(tx, [...moved]);
  const transmitted = approvals.filter(({ row }) => moved.has(row.issuanceKey));
  await deps.recordEvents(tx, transmitted
    .map(({ row }) => ({ scope: store.scopeOfRow(row), event: {
      type: 'TAX_INVOICE_ISSUANCE_SUCCESS',
      data: { issuanceKey: row.issuanceKey, taxInvoiceUrl: deps.documentUrl(row.issuanceKey) },
    } })));
  await alongside?.(transmitted);
  await deps.recordIssuedInvoices?.(tx, transmitted.map(({ row, ntsTransactionId,
    transmittedAt }) => issuedInvoiceChange(row, ntsTransactionId, transmittedAt)));
  return moved;
}
