import { createBatcher } from '../../platform/batcher.ts';
import type { Db, Tx } from '../../platform/db/connect.ts';
import { recordTogetherOrAlone } from '../../platform/db/together-or-alone.ts';
import { claimReplayable } from '../../platform/idempotency/claims.ts';
import * as store from './store.ts';

// Recording accepted issuance requests: one transaction claims their reference ids (each with
// the 202 it answers) and inserts their receipts, due for approval (processing/steps.ts), each
// in one statement. Issuance requests accepted at the same moment are recorded together
// (platform/batcher.ts says how a batch forms): under load the round trips and the commit are
// paid once per batch instead of once per request. Cancellations lock their original and are
// recorded alone (service.ts).
//
// What each request gets is exactly what it would get alone: its issuance key, or TAKEN when
// its reference id was claimed first (by a committed request, which the claim waits for, or by
// an earlier request of the same batch); the request then replays or conflicts as the claim
// says (service.ts). A failing statement rolls back the whole batch, so the batch is then
// recorded again one request at a time, in order, and only the request that fails alone fails.

const BATCHES_IN_FLIGHT_MAX = 2;
const REQUESTS_PER_BATCH_MAX = 100;

export type IssuanceRecording = {
  apiKeyId: string;
  referenceId: string;
  fingerprint: string;
  row: store.NewCashReceiptRow;
};

export const TAKEN = 'TAKEN';
export type RecordedIssuance = { issuanceKey: string } | typeof TAKEN;

type RecordingDeps = { db: Db };

async function recordInTransaction(tx: Tx,
  items: readonly IssuanceRecording[]): Promise<RecordedIssuance[]> {
  const claimed = await claimReplayable(tx, items.map((item) => ({ apiKeyId: item.apiKeyId,
    namespace: 'cashReceipt' as const, referenceId: item.referenceId,
    fingerprint: item.fingerprint,
    response: { status: 202, body: { issuanceKey: item.row.issuanceKey } } })));
  const rows = items.filter((_, index) => claimed[index]).map((item) => item.row);
  await store.insertReceipts(tx, rows);
  return items.map((item, index) => (claimed[index]
    ? { issuanceKey: item.row.issuanceKey } : TAKEN));
}

export function createIssuanceBatches(deps: RecordingDeps) {
  return createBatcher<IssuanceRecording, RecordedIssuance>({
    inFlightMax: BATCHES_IN_FLIGHT_MAX,
    itemsPerBatchMax: REQUESTS_PER_BATCH_MAX,
    // An answer that is an Error rejects its own request only.
    run: (items) => recordTogetherOrAlone(deps.db, items,
      (tx, batch) => recordInTransaction(tx, batch)) as Promise<RecordedIssuance[]>,
  });
}

export type RecordIssuance = ReturnType<typeof createIssuanceBatches>;
