import assert from 'node:assert/strict';
import type { Db, Tx } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import {
  claimNeverReusable,
  REFERENCE_ID_REUSED_MESSAGE,
} from '../../platform/idempotency/claims.ts';
import type { StageJobs } from '../../platform/jobs.ts';
import { createBatcher } from '../../platform/batcher.ts';
import { ISSUANCE_QUEUE, type IssuanceJobData } from './queues.ts';
import * as store from './store.ts';

// Issuance requests accepted at the same moment are recorded together: one transaction claims
// their reference ids, inserts their documents and history rows, and stages their jobs, each
// in one statement (platform/points/batcher.ts says how a batch forms). Under load the round
// trips and the commit are paid once per batch instead of once per request, which is what
// bounds how many invoices a process accepts per second. What each request gets is exactly what
// it would get alone: its documents, or 400 INVALID_REQUEST when its reference id was used
// before (by a committed request, or by a request earlier in the same batch).

const BATCHES_IN_FLIGHT_MAX = 2;
const REQUESTS_PER_BATCH_MAX = 100;

// Stages the issuance job of each new document, in one statement of the caller's transaction.
export async function stageIssuanceJobs(
  stageMany: StageJobs,
  tx: Tx,
  issuanceKeys: string[],
): Promise<void> {
  const jobs: Array<{ data: IssuanceJobData }> = issuanceKeys.map((issuanceKey) =>
    ({ data: { issuanceKey } }));
  await stageMany(tx, ISSUANCE_QUEUE, jobs);
}

export type Recording = {
  rows: store.NewTaxInvoiceRow[];
  claim: { apiKeyId: string; referenceId: string; fingerprint: string } | null;
};

export type RecordedDocuments = { issuanceKeys: string[] };

async function recordBatch(
  db: Db,
  stageMany: StageJobs,
  items: readonly Recording[],
): Promise<Array<RecordedDocuments | ApiError>> {
  return db.transaction(async (tx) => {
    const withClaims = items.flatMap((item, index) => (item.claim ? [{ item, index }] : []));
    const claimed = await claimNeverReusable(tx, withClaims.map(({ item }) =>
      ({ ...item.claim!, namespace: 'taxInvoice' as const })));
    const refused = new Set(withClaims.filter((_, position) => !claimed[position])
      .map(({ index }) => index));
    const accepted = items.filter((_, index) => !refused.has(index));
    const rows = accepted.flatMap((item) => item.rows);
    assert.equal(await store.insertInvoicesAsJson(tx, rows, 'API'), rows.length);
    await stageIssuanceJobs(stageMany, tx, rows.map((row) => row.issuanceKey));
    return items.map((item, index) => (refused.has(index)
      ? new ApiError('INVALID_REQUEST', REFERENCE_ID_REUSED_MESSAGE)
      : { issuanceKeys: item.rows.map((row) => row.issuanceKey) }));
  });
}

export function createAcceptanceBatches(deps: { db: Db; stageMany: StageJobs }) {
  return createBatcher<Recording, RecordedDocuments>({
    inFlightMax: BATCHES_IN_FLIGHT_MAX,
    itemsPerBatchMax: REQUESTS_PER_BATCH_MAX,
    // DataLoader rejects the one request whose answer is an Error and answers the others.
    run: (items) => recordBatch(deps.db, deps.stageMany, items) as Promise<RecordedDocuments[]>,
  });
}
