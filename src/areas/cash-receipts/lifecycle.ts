import { deterministicId } from '../../domain/ids.ts';
import type { Tx } from '../../platform/db/connect.ts';
import type { RecordEvents } from '../../platform/events.ts';
import type { QueueMail } from '../../platform/mail/outbox.ts';
import type { PointsService } from '../../platform/points/service.ts';
import { customerMail } from './mail.ts';
import * as store from './store.ts';

// The status changes that decide a receipt, with what goes with them in the same transaction:
// an approved receipt is announced (CASH_RECEIPT_ISSUED or _CANCELED) and mailed to its
// customer; a receipt the authority does not approve gets its points back, gives a
// cancellation's amounts back to its original, and is announced (CASH_RECEIPT_FAILED). Every
// change is conditional (store.transition), so a retried job finds nothing to change, and so
// refunds, mails and announces nothing.

export type LifecycleDeps = {
  points: Pick<PointsService, 'refundCapture'>;
  recordEvents: RecordEvents;
  queueMail: QueueMail;
};

type Cause = { code: string; message: string };

export async function recordApproved(deps: LifecycleDeps, tx: Tx, issuanceKey: string,
  approvalNumber: string, issuedAt: Date): Promise<boolean> {
  const row = await store.transition(tx, { issuanceKey, from: 'ACCEPTED', to: 'ISSUED',
    changes: { approvalNumber, issuedAt } });
  if (row === null) return false;
  const scope = store.scopeOfRow(row);
  if (row.kind === 'ISSUANCE') {
    await deps.recordEvents(tx, [{ scope, event: { type: 'CASH_RECEIPT_ISSUED', data: {
      issuanceKey, clientReferenceId: row.clientReferenceId, approvalNumber,
      tradeDate: row.tradeDate, totalAmount: row.totalAmount } } }]);
  } else {
    const original = await store.findReceipt(tx, scope, row.originalIssuanceKey!);
    await deps.recordEvents(tx, [{ scope, event: { type: 'CASH_RECEIPT_CANCELED', data: {
      issuanceKey, clientReferenceId: row.clientReferenceId,
      originalIssuanceKey: row.originalIssuanceKey!, approvalNumber,
      canceledAmount: row.totalAmount,
      remainingAmount: original === null ? 0 : original.totalAmount - original.canceledAmount,
    } } }]);
  }
  const mail = customerMail(row);
  if (mail !== null) await deps.queueMail(tx, { ...mail, scope });
  return true;
}

export async function recordFailed(deps: LifecycleDeps, tx: Tx, issuanceKey: string,
  cause: Cause): Promise<boolean> {
  const row = await store.transition(tx, { issuanceKey, from: 'ACCEPTED', to: 'FAILED',
    changes: { failureCode: cause.code, failureMessage: cause.message } });
  if (row === null) return false;
  const scope = store.scopeOfRow(row);
  if (row.kind === 'CANCELLATION') {
    await store.addCanceled(tx, row.originalIssuanceKey!, row, -1);
  }
  if (row.chargedPoints > 0 && row.reservationId !== null) {
    await deps.points.refundCapture({ ...scope, reservationId: row.reservationId,
      points: row.chargedPoints,
      ledgerEntryId: deterministicId('ledgerEntry', 'refund', row.issuanceKey),
      memo: `refund: cash receipt ${row.issuanceKey} was not approved` }, tx);
  }
  await deps.recordEvents(tx, [{ scope, event: { type: 'CASH_RECEIPT_FAILED', data: {
    issuanceKey, clientReferenceId: row.clientReferenceId, kind: row.kind, cause } } }]);
  return true;
}

export async function recordTransmitted(deps: Pick<LifecycleDeps, 'recordEvents'>, tx: Tx,
  issuanceKey: string, transmittedAt: Date): Promise<boolean> {
  const row = await store.transition(tx, { issuanceKey, from: 'ISSUED', to: 'TRANSMITTED',
    changes: { transmittedAt } });
  if (row === null) return false;
  await deps.recordEvents(tx, [{ scope: store.scopeOfRow(row), event: {
    type: 'CASH_RECEIPT_TRANSMITTED',
    data: { issuanceKey, approvalNumber: row.approvalNumber! } } }]);
  return true;
}
