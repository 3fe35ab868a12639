import { createBatcher } from '../../../platform/batcher.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { recordTogetherOrAlone } from '../../../platform/db/together-or-alone.ts';
import { ApiError } from '../../../platform/errors.ts';
import { claimReplayable, releaseClaims } from '../../../platform/idempotency/claims.ts';
import type { PointsService } from '../../../platform/points/service.ts';
import { chargeReceipts, type UnchargedReceipt } from './charges.ts';
import * as store from '../store.ts';

// Recording accepted issuance requests: one transaction claims their reference ids (each with
// the 202 it answers), debits their price and inserts their receipts, due for approval
// (processing/steps.ts), each in one statement. Issuance requests accepted at the same moment
// are recorded together (platform/batcher.ts says how a batch forms): under load the round trips
// and the commit are paid once per batch instead of once per request. Cancellations lock their
// original and are recorded alone (service.ts).
//
// What each request gets is exactly what it would get alone: its issuance key; TAKEN when its
// reference id was claimed first (by a committed request, which the claim waits for, or by an
// earlier request of the same batch), and the request then replays or conflicts as the claim
// says (service.ts); or the 402 or 409 of a price the points available no longer cover, its
// claim taken back in the same transaction. A failing statement rolls back the whole batch, so
// the batch is then recorded again one request at a time, in order, and only the request that
// fails alone fails.

const BATCHES_IN_FLIGHT_MAX = 2;
const REQUESTS_PER_BATCH_MAX = 100;

export type IssuanceRecording = {
  apiKeyId: string;
  referenceId: string;
  fingerprint: string;
  // The receipt, without its charge; `priceInPoints` is debited with it (0: free).
  row: UnchargedReceipt;
  priceInPoints: number;
  // The Trace-Id of the request, for its ledger entry: a batch records many requests' receipts.
  requestId: string | null;
};

export const TAKEN = 'TAKEN';
export type RecordedIssuance = { issuanceKey: string } | typeof TAKEN | ApiError;

type RecordingDeps = { db: Db; points: Pick<PointsService, 'debitInTransaction'>;
  now: () => Date };

const claimOf = (item: IssuanceRecording) => ({ apiKeyId: item.apiKeyId,
  namespace: 'cashReceipt' as const, referenceId: item.referenceId,
  fingerprint: item.fingerprint });

async function recordInTransaction(tx: Tx, deps: RecordingDeps,
  items: readonly IssuanceRecording[]): Promise<RecordedIssuance[]> {
  const claimedFlags = await claimReplayable(tx, items.map((item) => ({ ...claimOf(item),
    response: { status: 202, body: { issuanceKey: item.row.issuanceKey } } })));
  const claimed = items.filter((_, index) => claimedFlags[index]);
  const charged = await chargeReceipts(tx, deps.points, claimed.map((item) => ({
    row: item.row, operation: 'cashReceipts.issue' as const,
    priceInPoints: item.priceInPoints, requestId: item.requestId })));
  const outcomes = new Map(claimed.map((item, index) => [item, charged[index]!]));
  await releaseClaims(tx, claimed.filter((item) => outcomes.get(item) instanceof ApiError)
    .map(claimOf));
  await store.insertReceipts(tx, charged.filter((outcome): outcome is
    store.NewCashReceiptRow => !(outcome instanceof ApiError)), deps.now());
  return items.map((item) => {
    const outcome = outcomes.get(item);
    if (outcome === undefined) return TAKEN;
    return outcome instanceof ApiError ? outcome : { issuanceKey: item.row.issuanceKey };
  });
}

export function createIssuanceBatches(deps: RecordingDeps) {
  return createBatcher<IssuanceRecording, RecordedIssuance>({
    inFlightMax: BATCHES_IN_FLIGHT_MAX,
    itemsPerBatchMax: REQUESTS_PER_BATCH_MAX,
    // An answer that is an Error rejects its own request only.
    run: (items) => recordTogetherOrAlone(deps.db, items,
      (tx, batch) => recordInTransaction(tx, deps, batch)) as Promise<RecordedIssuance[]>,
  });
}

