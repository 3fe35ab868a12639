import { and, asc, desc, eq, gt, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/connect.ts';
import type { Scope } from '../scope.ts';
import { bulkItemDocuments, bulks, type BulkItemOutcome, type BulkKind } from './tables.ts';

// SQL of bulk issuance. Every function takes the executor first and never opens a transaction;
// reads for a caller filter by its account and environment.

export type BulkRow = typeof bulks.$inferSelect;
export type NewBulkRow = typeof bulks.$inferInsert;

// The bulk's row, or null when its reference id is taken by this key already (a concurrent
// insert of the same reference id waits for the other transaction, then yields to it).
export async function insertBulk(tx: Executor, row: NewBulkRow): Promise<BulkRow | null> {
  const [inserted] = await tx.insert(bulks).values(row)
    .onConflictDoNothing({ target: [bulks.apiKeyId, bulks.kind, bulks.clientReferenceId] })
    .returning();
  return inserted ?? null;
}

export async function findByReference(tx: Executor, key: { apiKeyId: string; kind: BulkKind;
  clientReferenceId: string }): Promise<BulkRow | null> {
  const [row] = await tx.select().from(bulks).where(and(eq(bulks.apiKeyId, key.apiKeyId),
    eq(bulks.kind, key.kind), eq(bulks.clientReferenceId, key.clientReferenceId))).limit(1);
  return row ?? null;
}

export async function findBulk(tx: Executor, scope: Scope, kind: BulkKind, bulkId: string):
  Promise<BulkRow | null> {
  const [row] = await tx.select().from(bulks).where(and(eq(bulks.accountId, scope.accountId),
    eq(bulks.environment, scope.environment), eq(bulks.kind, kind), eq(bulks.bulkId, bulkId)))
    .limit(1);
  return row ?? null;
}

// A page of an account's bulks of one kind, by sequence: oldest first after a sequence (the API's
// list), or newest first before one (people looking at their bulks in the dashboard).
export async function pageBulks(tx: Executor, scope: Scope, kind: BulkKind,
  page: { order: 'oldest' | 'newest'; from: number | undefined; limit: number }):
  Promise<BulkRow[]> {
  const oldest = page.order === 'oldest';
  const beyondCursor = page.from === undefined ? undefined
    : (oldest ? gt : lt)(bulks.sequence, page.from);
  return tx.select().from(bulks).where(and(eq(bulks.accountId, scope.accountId),
    eq(bulks.environment, scope.environment), eq(bulks.kind, kind), beyondCursor))
    .orderBy((oldest ? asc : desc)(bulks.sequence)).limit(page.limit);
}

// Takes an ACCEPTING bulk whose accepting process let its lease run out; null when another
// process holds it (or took it first) or it is no longer ACCEPTING.
export async function takeOverAcceptance(tx: Executor, bulkId: string, now: Date,
  acceptingUntil: Date): Promise<BulkRow | null> {
  const [row] = await tx.update(bulks).set({ acceptingUntil, updatedAt: now })
    .where(and(eq(bulks.bulkId, bulkId), eq(bulks.status, 'ACCEPTING'),
      sql`${bulks.acceptingUntil} <= ${now.toISOString()}::timestamptz`))
    .returning();
  return row ?? null;
}

// Records every item's outcome once; the bulk then waits for its documents. Null when the bulk
// already left ACCEPTING (a process that took it over finished first): its answer stands.
export async function recordOutcomes(tx: Executor, bulkId: string, items: BulkItemOutcome[],
  now: Date): Promise<BulkRow | null> {
  const accepted = items.filter((item) => item.issuanceKey !== null).length;
  const [row] = await tx.update(bulks).set({ status: 'PROCESSING', items,
    acceptedCount: accepted, refusedCount: items.length - accepted, acceptingUntil: null,
    checkAfter: now, updatedAt: now })
    .where(and(eq(bulks.bulkId, bulkId), eq(bulks.status, 'ACCEPTING')))
    .returning();
  return row ?? null;
}

// Leases up to `limit` PROCESSING bulks of a kind whose check is due, moving their next check
// to `nextCheck`: rows another process is leasing are skipped, so two processes never check the
// same bulk at once.
export async function leaseDueChecks(tx: Executor, kind: BulkKind, now: Date, nextCheck: Date,
  limit: number): Promise<BulkRow[]> {
  const result = await tx.execute(sql`update bulks set check_after = ${nextCheck.toISOString()}
    where bulk_id in (select bulk_id from bulks where kind = ${kind} and status = 'PROCESSING'
      and check_after <= ${now.toISOString()}::timestamptz order by check_after limit ${limit}
      for update skip locked)
    returning bulk_id, account_id, environment, client_reference_id, item_count,
      accepted_count, refused_count, items`);
  return (result.rows as Array<Record<string, unknown>>).map((row) => ({
    bulkId: row.bulk_id as string, accountId: row.account_id as string,
    environment: row.environment as string, clientReferenceId: row.client_reference_id as string,
    itemCount: row.item_count as number, acceptedCount: row.accepted_count as number,
    refusedCount: row.refused_count as number, items: row.items as BulkItemOutcome[],
  })) as BulkRow[];
}

// Marks the bulk COMPLETED once: false when it already was (another process got there first),
// and the caller then records nothing.
export async function markCompleted(tx: Executor, bulkId: string, now: Date): Promise<boolean> {
  const rows = await tx.update(bulks).set({ status: 'COMPLETED', completedAt: now,
    checkAfter: null, updatedAt: now })
    .where(and(eq(bulks.bulkId, bulkId), eq(bulks.status, 'PROCESSING')))
    .returning({ bulkId: bulks.bulkId });
  return rows.length === 1;
}

// Gives the lease back at once (the accepting request failed), so a retry takes the bulk over
// without waiting for the lease to run out.
export async function releaseAcceptance(tx: Executor, bulkId: string, now: Date): Promise<void> {
  await tx.update(bulks).set({ acceptingUntil: now, updatedAt: now })
    .where(and(eq(bulks.bulkId, bulkId), eq(bulks.status, 'ACCEPTING')));
}

// Links an item without a reference id of its own to the document it made, in the transaction
// that records the document.
export async function recordItemDocument(tx: Executor, link: { bulkId: string;
  itemIndex: number; issuanceKey: string }): Promise<void> {
  await tx.insert(bulkItemDocuments).values(link).onConflictDoNothing();
}

// The document an item made before, by its position in the bulk; null when it made none.
export async function findItemDocument(tx: Executor, bulkId: string, itemIndex: number):
  Promise<string | null> {
  const [row] = await tx.select({ issuanceKey: bulkItemDocuments.issuanceKey })
    .from(bulkItemDocuments).where(and(eq(bulkItemDocuments.bulkId, bulkId),
      eq(bulkItemDocuments.itemIndex, itemIndex))).limit(1);
  return row?.issuanceKey ?? null;
}
