import assert from 'node:assert/strict';
import { createBatcher } from '../../../platform/batcher.ts';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { recordTogetherOrAlone } from '../../../platform/db/together-or-alone.ts';
import { ApiError } from '../../../platform/errors.ts';
import {
  claimNeverReusable,
  REFERENCE_ID_REUSED_MESSAGE,
  releaseClaims,
} from '../../../platform/idempotency/claims.ts';
import type { PointsService } from '../../../platform/points/service.ts';
import { issuanceStepsOfInserted } from '../processing/steps-store.ts';
import * as store from '../store.ts';

// Recording accepted requests: one transaction claims their reference ids (one statement),
// debits their price (one), and inserts their documents with their history rows and issuance
// steps (one). The price is debited here rather than reserved before and captured after
// (docs/points.md § Debited with the work): the charge commits exactly when the documents do,
// and a request costs one ledger write instead of a reservation, a capture and their round
// trips. Plain
// issuance requests accepted at the same moment are recorded together (platform/batcher.ts says
// how a batch forms): under load the round trips and the commit are paid once per batch instead
// of once per request, which is what bounds how many invoices a process accepts per second. The
// other requests (amendments, reverse issuance requests) are recorded alone, through the same
// function with one item.
//
// What each request gets is exactly what it would get alone: its documents; 400 INVALID_REQUEST
// when its reference id was used before (by a committed request, or by a request earlier in the
// same batch); 402 or 409 when the points available no longer cover its price (its claim taken
// back in the same transaction, so the reference id stays unused); or the error of its own
// failure. A failing statement rolls back the whole batch,
// so the batch is then recorded again one request at a time, in order, and only the request
// that fails alone fails. That costs a transaction per request, but only after a failure, which
// validated requests do not cause; the batch without failures stays one transaction.

const BATCHES_IN_FLIGHT_MAX = 2;
const REQUESTS_PER_BATCH_MAX = 100;

export type Recording = {
  // The documents, without their charge entry (set here once debited).
  rows: store.NewTaxInvoiceRow[];
  claim: { apiKeyId: string; referenceId: string; fingerprint: string } | null;
  // The request's price, debited with its documents; null when the operation is free.
  charge: { points: number; requestId: string | null } | null;
  // Runs in the transaction just before the documents are inserted; throws to refuse.
  guard?(tx: Tx): Promise<void>;
  // Runs in the transaction just after they are inserted, with the rows as recorded.
  onRecorded?(tx: Tx, rows: store.NewTaxInvoiceRow[]): Promise<void>;
};

type RecordedDocuments = { issuanceKeys: string[] };

type RecordingDeps = { db: Db; now: () => Date;
  points: Pick<PointsService, 'debitInTransaction'> };

// Thrown to record a batch again one request at a time (together-or-alone.ts): a request whose
// debit was refused gave its reference id back, which a later request of the batch was refused
// for, and alone that later request would have got it.
class ReferenceIdGivenBack extends Error {}

const claimKey = (claim: NonNullable<Recording['claim']>) =>
  JSON.stringify([claim.apiKeyId, claim.referenceId]);

// The positions of the items whose reference id was used before.
async function claimReferenceIds(tx: Tx, items: readonly Recording[]): Promise<Set<number>> {
  const withClaims = items.flatMap((item, index) => (item.claim ? [{ item, index }] : []));
  const claimed = await claimNeverReusable(tx, withClaims.map(({ item }) =>
    ({ ...item.claim!, namespace: 'taxInvoice' as const })));
  return new Set(withClaims.filter((_, position) => !claimed[position])
    .map(({ index }) => index));
}

// Debits the price of each claimed item, in order; answers the 402 or 409 of each refused one.
async function debitPrices(tx: Tx, deps: RecordingDeps, items: readonly Recording[]):
  Promise<Map<Recording, { ledgerEntryId: string } | ApiError>> {
  const paid = items.filter((item) => item.charge !== null);
  const debits = await deps.points.debitInTransaction(tx, paid.map((item) => {
    const [scope] = item.rows;
    return { accountId: scope!.accountId, environment: scope!.environment as Environment,
      operation: 'taxInvoices.issue', points: item.charge!.points,
      requestId: item.charge!.requestId,
      // The one document it pays for, when it pays for one.
      ...(item.rows.length === 1 ? { documentId: scope!.issuanceKey } : {}) };
  }));
  return new Map(paid.map((item, index) => [item, debits[index]!]));
}

// All items in the caller's transaction, which fails as a whole when any statement fails.
async function recordInTransaction(
  tx: Tx,
  deps: RecordingDeps,
  items: readonly Recording[],
): Promise<Array<RecordedDocuments | ApiError>> {
  const refused = await claimReferenceIds(tx, items);
  const claimed = items.filter((_, index) => !refused.has(index));
  const debits = await debitPrices(tx, deps, claimed);
  const unpaid = claimed.filter((item) => debits.get(item) instanceof ApiError);
  const givenBack = new Set(unpaid.flatMap((item) => (item.claim ? [claimKey(item.claim)] : [])));
  if (items.some((item, index) => refused.has(index) && givenBack.has(claimKey(item.claim!)))) {
    throw new ReferenceIdGivenBack('a reference id refused in this batch was given back');
  }
  await releaseClaims(tx, unpaid.flatMap((item) => (item.claim
    ? [{ ...item.claim, namespace: 'taxInvoice' as const }] : [])));
  const accepted = claimed.filter((item) => !unpaid.includes(item));
  for (const item of accepted) await item.guard?.(tx);
  const rowsOf = new Map(accepted.map((item) => {
    const debit = debits.get(item) as { ledgerEntryId: string } | undefined;
    return [item, item.rows.map((row) =>
      ({ ...row, chargeEntryId: debit?.ledgerEntryId ?? null }))];
  }));
  const rows = accepted.flatMap((item) => rowsOf.get(item)!);
  // With their issuance steps; a reverse issuance request's is added when it is approved.
  assert.equal(await store.insertInvoices(tx, rows, 'API', issuanceStepsOfInserted(deps.now())),
    rows.length);
  for (const item of accepted) await item.onRecorded?.(tx, rowsOf.get(item)!);
  return items.map((item, index) => {
    if (refused.has(index)) return new ApiError('INVALID_REQUEST', REFERENCE_ID_REUSED_MESSAGE);
    const debit = debits.get(item);
    if (debit instanceof ApiError) return debit;
    return { issuanceKeys: item.rows.map((row) => row.issuanceKey) };
  });
}

// Every item's answer: its documents or its error. After a failed batch each item is recorded
// again alone, one after another so that the earlier of two requests with the same reference id
// still gets it.
function recordEach(
  deps: RecordingDeps,
  items: readonly Recording[],
): Promise<Array<RecordedDocuments | Error>> {
  return recordTogetherOrAlone(deps.db, items, (tx, batch) =>
    recordInTransaction(tx, deps, batch));
}

// A request with work of its own in the transaction (guard, onRecorded), or with documents that
// wait for approval, alone in its transaction.
export async function recordAlone(
  deps: RecordingDeps,
  item: Recording,
): Promise<RecordedDocuments> {
  const [answer] = await recordEach(deps, [item]);
  if (answer instanceof Error) throw answer;
  return answer!;
}

// A plain issuance request, together with those accepted at the same moment.
export function createAcceptanceBatches(deps: RecordingDeps) {
  return createBatcher<Recording, RecordedDocuments>({
    inFlightMax: BATCHES_IN_FLIGHT_MAX,
    itemsPerBatchMax: REQUESTS_PER_BATCH_MAX,
    // An answer that is an Error rejects its own request only; the others get their documents.
    run: (items) => recordEach(deps, items) as Promise<RecordedDocuments[]>,
  });
}
