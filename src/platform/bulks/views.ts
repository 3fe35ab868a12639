import { sequenceCursors, type PageCursors } from '../cursor.ts';
import type { Db, Executor } from '../db/connect.ts';
import { ApiError } from '../errors.ts';
import type { Scope } from '../scope.ts';
import { countStates } from './bulks.ts';
import * as store from './store.ts';
import type { BulkItemOutcome, BulkKind } from './tables.ts';

// What a bulk's operations answer: the acceptance (each item's outcome, the same on every
// retry), a bulk with its documents' states now, and the list of a scope's bulks.

export function acceptedView(row: store.BulkRow) {
  return {
    bulkId: row.bulkId, clientReferenceId: row.clientReferenceId, itemCount: row.itemCount,
    acceptedCount: row.acceptedCount, refusedCount: row.refusedCount,
    createdAt: row.createdAt.toISOString(), items: row.items ?? [],
  };
}

function summaryView(row: store.BulkRow) {
  return {
    bulkId: row.bulkId, clientReferenceId: row.clientReferenceId, status: row.status,
    itemCount: row.itemCount, acceptedCount: row.acceptedCount,
    refusedCount: row.refusedCount, createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

type RetrievalDeps = {
  db: Db;
  kind: BulkKind;
  cursors: PageCursors;
  // The cursor list's name, so a cursor opens only in its own list.
  list: string;
  states: readonly string[];
  statusesOf(executor: Executor, scope: Scope, issuanceKeys: string[]):
    Promise<Map<string, string>>;
};

const NO_SUCH_BULK = 'No bulk has this bulkId.';

const issuanceKeysOf = (items: readonly BulkItemOutcome[]) =>
  items.flatMap((item) => (item.issuanceKey === null ? [] : [item.issuanceKey]));

export function createBulkRetrieval(deps: RetrievalDeps) {
  const { db, kind } = deps;
  const cursors = sequenceCursors(deps.cursors, deps.list);
  // The newest-first list's cursors open only there, not in the API's oldest-first list.
  const browseCursors = sequenceCursors(deps.cursors, `${deps.list}.browse`);

  // A bulk of another account or environment is 404, as any document is.
  async function get(input: { scope: Scope; bulkId: string }) {
    const row = await store.findBulk(db, input.scope, kind, input.bulkId);
    if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_BULK);
    const items = row.items ?? [];
    const statuses = await deps.statusesOf(db, input.scope, issuanceKeysOf(items));
    return {
      ...summaryView(row),
      counts: countStates(deps.states, statuses, items),
      items: items.map((item) => ({ ...item,
        status: (item.issuanceKey === null ? null : statuses.get(item.issuanceKey) ?? null) as
          never })),
    };
  }

  async function list(input: { scope: Scope; limit: number; cursor?: string | undefined }) {
    const rows = await store.pageBulks(db, input.scope, kind, { order: 'oldest',
      from: cursors.decode(input.scope, input.cursor), limit: input.limit + 1 });
    const { page, nextCursor } = cursors.pageOf(input.scope, rows, input.limit);
    return { bulks: page.map(summaryView), nextCursor };
  }

  // Newest first with each bulk's counts per state, for people looking at their bulks (the
  // dashboard): one lookup of the states of every document of the page.
  async function browse(input: { scope: Scope; limit: number; cursor?: string | undefined }) {
    const rows = await store.pageBulks(db, input.scope, kind, { order: 'newest',
      from: browseCursors.decode(input.scope, input.cursor), limit: input.limit + 1 });
    const { page, nextCursor } = browseCursors.pageOf(input.scope, rows, input.limit);
    const statuses = await deps.statusesOf(db, input.scope,
      page.flatMap((row) => issuanceKeysOf(row.items ?? [])));
    return {
      bulks: page.map((row) => ({ ...summaryView(row),
        counts: countStates(deps.states, statuses, row.items ?? []) })),
      nextCursor,
    };
  }

  return { get, list, browse };
}
