import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import type { RecordEvent } from '../../platform/events.ts';
import type { PointsService } from '../../platform/points/service.ts';
import type { DocumentIssueResult } from '../../upstream/civil-documents/index.ts';
import * as store from './store.ts';

// The status changes that decide a document request, with what goes with them: an issued
// document keeps its PDF as received, is announced (DOCUMENT_ISSUANCE_SUCCESS) and has its
// reservation captured; a failed one has its reservation released and is announced
// (DOCUMENT_ISSUANCE_FAILURE). Every change is conditional (store.transition), so a job that
// runs twice finds the document already moved and records, charges and announces nothing twice.

export type LifecycleDeps = {
  db: Db;
  points: Pick<PointsService, 'capture' | 'release'>;
  recordEvent: RecordEvent;
  // The URL clients download an issued document from (its PDF).
  documentUrl(issuanceKey: string): string;
  log: Logger;
  now: () => Date;
};

const scopeOf = (row: store.DocumentSummaryRow) =>
  ({ accountId: row.accountId, environment: row.environment as Environment });

// The reservation of an issued document is captured whole; repeated, it captures nothing more.
export async function captureIssued(deps: LifecycleDeps, row: store.DocumentSummaryRow) {
  if (row.reservationId === null) return;
  const outcome = await deps.points.capture({
    reservation: { reservationId: row.reservationId, reservedPoints: row.reservedPoints },
    chargePoints: row.reservedPoints,
  });
  if (outcome.kind === 'alreadySettled') {
    deps.log.debug({ issuanceKey: row.issuanceKey }, 'document reservation already settled');
  }
}

export async function recordIssued(
  deps: LifecycleDeps,
  row: store.DocumentSummaryRow,
  result: Extract<DocumentIssueResult, { kind: 'issued' }>,
) {
  const issued = await deps.db.transaction(async (tx) => {
    const moved = await store.transition(tx, row.issuanceKey, ['PROCESSING'], 'ISSUED', {
      pdf: result.pdf,
      pdfSha256: createHash('sha256').update(result.pdf).digest('hex'),
      issueNumber: result.issueNumber,
      issuedAt: result.issuedAt,
    });
    if (moved === null) return null;
    await deps.recordEvent(tx, scopeOf(moved), { type: 'DOCUMENT_ISSUANCE_SUCCESS', data: {
      issuanceKey: moved.issuanceKey, type: moved.type,
      documentUrl: deps.documentUrl(moved.issuanceKey) } });
    return moved;
  });
  // Another run recorded it first; that run, or this one below, captures.
  await captureIssued(deps, issued ?? row);
}

export async function recordFailed(
  deps: LifecycleDeps,
  row: store.DocumentSummaryRow,
  cause: { code: string; message: string },
) {
  await deps.db.transaction(async (tx) => {
    const moved = await store.transition(tx, row.issuanceKey, ['ACCEPTED', 'PROCESSING'],
      'FAILED', { failureCode: cause.code, failureMessage: cause.message, failedAt: deps.now() });
    if (moved === null) return;
    if (moved.reservationId !== null) {
      await deps.points.release({ reservationId: moved.reservationId,
        reservedPoints: moved.reservedPoints }, tx);
    }
    await deps.recordEvent(tx, scopeOf(moved), { type: 'DOCUMENT_ISSUANCE_FAILURE', data: {
      issuanceKey: moved.issuanceKey, type: moved.type, cause } });
  });
}
