import { deterministicId } from '../../domain/ids.ts';
import type { Tx } from '../../platform/db/connect.ts';
import type { RecordEvents } from '../../platform/events.ts';
import type { EventInput } from '../../platform/event-catalogue.ts';
import type { QueueMails } from '../../platform/mail/outbox.ts';
import type { PointsService } from '../../platform/points/service.ts';
import { customerMail } from './mail/customer-mail.ts';
import * as store from './store.ts';

// The status changes that decide a receipt, with what goes with them in the same transaction:
// an approved receipt is announced (CASH_RECEIPT_ISSUED or _CANCELED) and mailed to its
// customer; a receipt the authority does not approve gets its points back, gives a
// cancellation's amounts back to its original, and is announced (CASH_RECEIPT_FAILED). Every
// change is conditional (store.transition), so a step taken again (its worker died after the
// authority answered) finds nothing to change, and so refunds, mails and announces nothing.

export type LifecycleDeps = {
  points: Pick<PointsService, 'refundCapture' | 'refundCharge'>;
  recordEvents: RecordEvents;
  queueMails: QueueMails;
};

type Cause = { code: string; message: string };

// Approved receipts, many at once (the approvals of one worker's batch): moved to ISSUED with their
// approval numbers, announced and mailed in the caller's transaction, with one statement per
// table. Returns the receipts moved, with their new status, approval number and times (built
// from the rows given, not read back); a receipt already moved is left out, with nothing sent.
export async function recordApproved(deps: LifecycleDeps, tx: Tx,
  approvals: ReadonlyArray<{ row: store.CashReceiptRow; approvalNumber: string;
    transmissionDueAt: Date }>, issuedAt: Date): Promise<store.CashReceiptRow[]> {
  const moved = await store.approveMany(tx, approvals.map((approval) => ({
    issuanceKey: approval.row.issuanceKey, approvalNumber: approval.approvalNumber,
    transmissionDueAt: approval.transmissionDueAt })), issuedAt);
  const rows = approvals.filter((approval) => moved.has(approval.row.issuanceKey))
    .map((approval): store.CashReceiptRow => ({ ...approval.row, status: 'ISSUED',
      approvalNumber: approval.approvalNumber, issuedAt, updatedAt: issuedAt }));
  if (rows.length === 0) return rows;
  const originals = new Map((await store.findReceiptsByKeys(tx, rows
    .filter((row) => row.kind === 'CANCELLATION').map((row) => row.originalIssuanceKey!)))
    .map((original) => [original.issuanceKey, original]));
  await deps.recordEvents(tx, rows.map((row) => ({ scope: store.scopeOfRow(row),
    event: approvedEvent(row, originals.get(row.originalIssuanceKey ?? '')) })));
  const mails = rows.flatMap((row) => {
    const mail = customerMail(row);
    return mail === null ? [] : [{ ...mail, scope: store.scopeOfRow(row) }];
  });
  await deps.queueMails(tx, mails);
  return rows;
}

function approvedEvent(row: store.CashReceiptRow, original: store.CashReceiptRow | undefined):
  EventInput {
  const approvalNumber = row.approvalNumber!;
  if (row.kind === 'ISSUANCE') {
    return { type: 'CASH_RECEIPT_ISSUED', data: { issuanceKey: row.issuanceKey,
      clientReferenceId: row.clientReferenceId, approvalNumber, tradeDate: row.tradeDate,
      totalAmount: row.totalAmount } };
  }
  return { type: 'CASH_RECEIPT_CANCELED', data: { issuanceKey: row.issuanceKey,
    clientReferenceId: row.clientReferenceId, originalIssuanceKey: row.originalIssuanceKey!,
    approvalNumber, canceledAmount: row.totalAmount,
    remainingAmount: original === undefined ? 0 : original.totalAmount - original.canceledAmount,
  } };
}

export async function recordFailed(deps: LifecycleDeps, tx: Tx, issuanceKey: string,
  cause: Cause): Promise<boolean> {
  const row = await store.transition(tx, { issuanceKey, from: 'ACCEPTED', to: 'FAILED',
    changes: { failureCode: cause.code, failureMessage: cause.message } });
  if (row === null) return false;
  await store.endSteps(tx, [issuanceKey]);
  const scope = store.scopeOfRow(row);
  if (row.kind === 'CANCELLATION') {
    await store.addCanceled(tx, row.originalIssuanceKey!, row, -1);
  }
  if (row.chargedPoints > 0) {
    const refund = { ...scope, points: row.chargedPoints,
      ledgerEntryId: deterministicId('ledgerEntry', 'refund', row.issuanceKey),
      memo: `refund: cash receipt ${row.issuanceKey} was not approved`,
      documentId: row.issuanceKey };
    // Debited with the receipt; a receipt accepted before that was so was captured from a
    // reservation.
    if (row.chargeEntryId !== null) {
      const operation = row.kind === 'CANCELLATION' ? 'cashReceipts.cancel' : 'cashReceipts.issue';
      await deps.points.refundCharge({ ...refund, operation }, tx);
    }
    else if (row.reservationId !== null) {
      await deps.points.refundCapture({ ...refund, reservationId: row.reservationId }, tx);
    }
  }
  await deps.recordEvents(tx, [{ scope, event: { type: 'CASH_RECEIPT_FAILED', data: {
    issuanceKey, clientReferenceId: row.clientReferenceId, kind: row.kind, cause } } }]);
  return true;
}

// Transmitted receipts, many at once: moved to TRANSMITTED and announced in the caller's
// transaction. Returns the receipts moved, with their new status and times (built from the rows
// given, not read back).
export async function recordTransmitted(deps: Pick<LifecycleDeps, 'recordEvents'>, tx: Tx,
  receipts: readonly store.CashReceiptRow[], transmittedAt: Date):
  Promise<store.CashReceiptRow[]> {
  const moved = await store.transmitMany(tx, receipts.map((row) => row.issuanceKey),
    transmittedAt);
  const rows = receipts.filter((row) => moved.has(row.issuanceKey))
    .map((row): store.CashReceiptRow => ({ ...row, status: 'TRANSMITTED', transmittedAt,
      updatedAt: transmittedAt }));
  if (rows.length === 0) return rows;
  await deps.recordEvents(tx, rows.map((row) => ({ scope: store.scopeOfRow(row), event: {
    type: 'CASH_RECEIPT_TRANSMITTED' as const,
    data: { issuanceKey: row.issuanceKey, approvalNumber: row.approvalNumber! } } })));
  return rows;
}
