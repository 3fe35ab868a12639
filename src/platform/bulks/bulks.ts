import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../../domain/ids.ts';
import type { Db, Executor } from '../db/connect.ts';
import type { DueWorkDefinition } from '../due-work.ts';
import { ApiError } from '../errors.ts';
import type { EventInput } from '../event-catalogue.ts';
import type { RecordEvents } from '../events.ts';
import { requestFingerprint } from '../idempotency/claims.ts';
import type { Caller, Scope } from '../scope.ts';
import * as store from './store.ts';
import type { BulkItemError, BulkItemOutcome, BulkKind } from './tables.ts';

// Bulk issuance (docs/bulk-issuance.md), the mechanism both document areas share: the bulk's
// reference id, the lease of the process accepting it, each item's outcome and the bulk's
// completion. What an item is and how it is accepted is the area's: each item goes through the
// area's single-document acceptance (`issueOne`), so an item gets exactly what its own request
// would get, and one item's refusal never touches another.
//
// Accepting a bulk:
//   1. its row is inserted with the bulk's reference id (unique per key and kind), ACCEPTING
//      and leased to this process; a request whose reference id is taken answers that bulk
//      (409 IDEMPOTENCY_CONFLICT for another body), after waiting while it is still being
//      accepted, or takes it over when its process let the lease run out;
//   2. every item is accepted as its single request would be, concurrently: the area's
//      acceptance records the documents of requests accepted at the same moment together;
//   3. the outcomes are recorded on the row, which moves to PROCESSING.
// An unexpected failure of an item (not an ApiError: the database went away) fails the request
// and leaves the bulk ACCEPTING with its lease given back, so a retry with the same reference id
// takes it over at once. A take-over accepts every item again with `resumeSince` set: an item
// with a reference id of its own is found by it (an area answers an item accepted before with
// the document it made then), and one without is found by its position, linked to its document
// in the transaction that recorded it (`bulk_item_documents`).

// How long a process holds a bulk it accepts: far longer than 100 acceptances take, so only a
// process that died loses it.
const BULK_ACCEPTANCE_LEASE_MS = 30_000;
// How often a request for a bulk another process is accepting looks again.
const BULK_WAIT_POLL_MS = 50;
export const BULK_ITEMS_MAX = 100;
// The body of a bulk: 100 documents of up to 40 KiB each (a tax invoice with its 99 lines and
// long names), well above what real documents weigh; the server's own limit stays for the rest.
export const BULK_BODY_BYTES_MAX = 4 * 1024 * 1024;

// An item's own reference id, when it has one (optional where its single request's is).
export type BulkItem = { clientReferenceId?: string | undefined };

export type BulkAcceptanceDeps = { db: Db; now: () => Date; kind: BulkKind };

// Where an item is accepted: its bulk, its position, and the bulk's start when the bulk is
// being taken over (null otherwise).
export type ItemPlace = { bulkId: string; index: number; resumeSince: Date | null };

type AcceptBulkInput<T extends BulkItem> = {
  caller: Caller;
  referenceId: string;
  // The request type, for the fingerprint of the bulk's reference id.
  route: string;
  items: readonly T[];
  // Accepts one item exactly as its single endpoint would. When the bulk is being taken over
  // (`place.resumeSince`), an item accepted then answers its document again.
  issueOne(item: T, place: ItemPlace): Promise<{ issuanceKey: string }>;
  // Called once when the reference id turns out to be taken by a bulk another request made
  // (one sent at the same moment), which this request answers instead of making its own.
  onTaken?(): Promise<void>;
};

const DUPLICATE_ITEM_REFERENCE_MESSAGE = 'clientReferenceId repeats that of an earlier ' +
  'item of this bulk; every document of a bulk has its own.';

// The message as kept in the bulk's JSON, which cannot hold a NUL character.
function itemError(error: ApiError): BulkItemError {
  return { status: error.status, code: error.code,
    message: error.message.replaceAll('\u0000', '\uFFFD') };
}

// Every item's outcome, in order; rejects with the first unexpected failure, after every item
// settled.
async function acceptItems<T extends BulkItem>(input: AcceptBulkInput<T>, bulkId: string,
  resumeSince: Date | null): Promise<BulkItemOutcome[]> {
  const firstIndex = new Map<string, number>();
  const outcomes = await Promise.allSettled(input.items.map(async (item, index) => {
    const reference = item.clientReferenceId;
    const earlier = reference === undefined ? undefined : firstIndex.get(reference);
    if (reference !== undefined && earlier === undefined) firstIndex.set(reference, index);
    if (earlier !== undefined) {
      throw new ApiError('INVALID_REQUEST', `items[${index}].${DUPLICATE_ITEM_REFERENCE_MESSAGE}`);
    }
    return input.issueOne(item, { bulkId, index, resumeSince });
  }));
  const unexpected = outcomes.find((outcome): outcome is PromiseRejectedResult =>
    outcome.status === 'rejected' && !(outcome.reason instanceof ApiError));
  if (unexpected) throw unexpected.reason;
  return outcomes.map((outcome, index) => ({
    index, clientReferenceId: input.items[index]!.clientReferenceId ?? null,
    issuanceKey: outcome.status === 'fulfilled' ? outcome.value.issuanceKey : null,
    error: outcome.status === 'rejected' ? itemError(outcome.reason as ApiError) : null,
  }));
}

export function createBulkAcceptance(deps: BulkAcceptanceDeps) {
  const { db, kind } = deps;
  const leaseEnd = () => new Date(deps.now().getTime() + BULK_ACCEPTANCE_LEASE_MS);

  async function run<T extends BulkItem>(row: store.BulkRow, input: AcceptBulkInput<T>,
    resumeSince: Date | null): Promise<store.BulkRow> {
    let items: BulkItemOutcome[];
    try {
      items = await acceptItems(input, row.bulkId, resumeSince);
    } catch (error) {
      await store.releaseAcceptance(db, row.bulkId, deps.now());
      throw error;
    }
    const recorded = await store.recordOutcomes(db, row.bulkId, items, deps.now());
    if (recorded !== null) return recorded;
    const finished = await store.findByReference(db, { apiKeyId: row.apiKeyId, kind,
      clientReferenceId: row.clientReferenceId });
    assert(finished !== null && finished.status !== 'ACCEPTING');
    return finished;
  }

  // The bulk's row once every item has its outcome (status PROCESSING or COMPLETED).
  async function accept<T extends BulkItem>(input: AcceptBulkInput<T>):
    Promise<store.BulkRow> {
    assert(input.items.length >= 1 && input.items.length <= BULK_ITEMS_MAX);
    const { caller } = input;
    const fingerprint = requestFingerprint({ method: 'POST', route: input.route,
      body: input.items });
    const key = { apiKeyId: caller.apiKeyId, kind, clientReferenceId: input.referenceId };
    const inserted = await store.insertBulk(db, { bulkId: newId('bulk'),
      accountId: caller.accountId, environment: caller.environment, ...key, fingerprint,
      status: 'ACCEPTING', itemCount: input.items.length, acceptingUntil: leaseEnd() });
    if (inserted !== null) return run(inserted, input, null);
    await input.onTaken?.();
    for (;;) {
      const existing = await store.findByReference(db, key);
      assert(existing !== null, 'a taken bulk reference id must be visible once committed');
      if (existing.fingerprint !== fingerprint) {
        throw new ApiError('IDEMPOTENCY_CONFLICT', 'Service-Client-Reference-Id was used ' +
          'for another bulk with other items.');
      }
      if (existing.status !== 'ACCEPTING') return existing;
      if (existing.acceptingUntil !== null && existing.acceptingUntil <= deps.now()) {
        const taken = await store.takeOverAcceptance(db, existing.bulkId, deps.now(),
          leaseEnd());
        if (taken !== null) return run(taken, input, taken.createdAt);
      }
      await sleep(BULK_WAIT_POLL_MS);
    }
  }

  // Whether a bulk of this key already holds the reference id: a request naming it answers
  // that bulk (or is refused for other items), and never makes documents of its own.
  async function isTaken(caller: Caller, referenceId: string): Promise<boolean> {
    return (await store.findByReference(db, { apiKeyId: caller.apiKeyId, kind,
      clientReferenceId: referenceId })) !== null;
  }

  return { accept, isTaken };
}

export type BulkCounts = Record<string, number>;

// How many accepted documents are in each state; every state of the area is present.
export function countStates(states: readonly string[], statuses: ReadonlyMap<string, string>,
  items: readonly BulkItemOutcome[]): BulkCounts {
  const counts: BulkCounts = Object.fromEntries(states.map((state) => [state, 0]));
  for (const item of items) {
    if (item.issuanceKey === null) continue;
    const status = statuses.get(item.issuanceKey);
    if (status !== undefined) counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

type CompletionDeps = {
  db: Db;
  now: () => Date;
  kind: BulkKind;
  name: string;
  recordEvents: RecordEvents;
  // The area's documents' states by issuance key.
  statusesOf(executor: Executor, issuanceKeys: string[]): Promise<Map<string, string>>;
  states: readonly string[];
  // States a document does not leave by processing.
  isFinal(status: string): boolean;
  eventOf(bulk: { bulkId: string; clientReferenceId: string; itemCount: number;
    acceptedCount: number; refusedCount: number; counts: BulkCounts }): EventInput;
};

// Bulks checked per batch, and how long a checked bulk waits before its next check: a check is
// one lookup of at most 100 documents by key.
const BULK_CHECKS_PER_BATCH = 50;
const BULK_RECHECK_MS = 2_000;

// The due work that completes bulks: leases PROCESSING bulks whose check is due, reads their
// documents' states and, for a bulk whose accepted documents are all final, marks it COMPLETED
// and records its event in one transaction. The mark is conditional, so across processes the
// event is recorded once.
export function bulkCompletion(deps: CompletionDeps): DueWorkDefinition {
  async function runBatch(): Promise<number> {
    const now = deps.now();
    const leased = await store.leaseDueChecks(deps.db, deps.kind, now,
      new Date(now.getTime() + BULK_RECHECK_MS), BULK_CHECKS_PER_BATCH);
    if (leased.length === 0) return 0;
    const keysOf = (row: store.BulkRow) => (row.items ?? [])
      .flatMap((item) => (item.issuanceKey === null ? [] : [item.issuanceKey]));
    const statuses = await deps.statusesOf(deps.db, leased.flatMap(keysOf));
    for (const row of leased) {
      const keys = keysOf(row);
      if (!keys.every((key) => deps.isFinal(statuses.get(key) ?? ''))) continue;
      const counts = countStates(deps.states, statuses, row.items ?? []);
      const scope = { accountId: row.accountId, environment: row.environment } as Scope;
      await deps.db.transaction(async (tx) => {
        if (!(await store.markCompleted(tx, row.bulkId, deps.now()))) return;
        await deps.recordEvents(tx, [{ scope, event: deps.eventOf({ bulkId: row.bulkId,
          clientReferenceId: row.clientReferenceId, itemCount: row.itemCount,
          acceptedCount: row.acceptedCount, refusedCount: row.refusedCount, counts }) }]);
      });
    }
    return leased.length;
  }
  return { name: deps.name, runBatch, batchSize: BULK_CHECKS_PER_BATCH, pollIntervalMs: 1_000,
    concurrency: 1 };
}
