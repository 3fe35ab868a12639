import { createHash } from 'node:crypto';
import { and, asc, count, eq, gt, gte, inArray, lte, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import type { Scope } from '../../platform/scope.ts';
import {
  revenueExpenseChangeCounters as counters,
  revenueExpenseCollections as collections,
  revenueExpenseInvoices as invoices,
} from './tables.ts';

export type BookRow = typeof invoices.$inferSelect;
export type CollectionRow = typeof collections.$inferSelect;
export type Direction = 'SALES' | 'PURCHASE';
export type Source = 'ISSUED_HERE' | 'COLLECTED';

// One invoice as the books keep it, before it has a position in the order of change.
export type BookEntry = Omit<BookRow, 'id' | 'accountId' | 'environment' | 'contentHash' |
  'changeSequence' | 'changedAt' | 'createdAt'> & { direction: Direction; source: Source };

export type RecordCounts = { inserted: number; updated: number; unchanged: number };

const inScope = (scope: Scope) =>
  and(eq(invoices.accountId, scope.accountId), eq(invoices.environment, scope.environment));

function contentHash(entry: BookEntry): string {
  const { direction, approvalNumber, ...content } = entry;
  const ordered = Object.keys(content).sort()
    .map((key) => [key, content[key as keyof typeof content]]);
  return createHash('sha256').update(JSON.stringify([direction, approvalNumber, ordered]))
    .digest('hex');
}

// Locks the scope's counter row until the transaction ends and returns its last sequence. Every
// writer of the scope takes this lock before it reads what it changes, so writers of one scope
// run one after another from here to their commit.
async function lockCounter(tx: Executor, scope: Scope): Promise<number> {
  const [row] = await tx.insert(counters)
    .values({ ...scope, lastSequence: 0 })
    .onConflictDoUpdate({ target: [counters.accountId, counters.environment],
      set: { lastSequence: sql`${counters.lastSequence}` } })
    .returning({ lastSequence: counters.lastSequence });
  return row!.lastSequence;
}

const COLUMNS_SET_ON_CHANGE = ['source', 'issuance_key', 'write_date', 'issue_date',
  'counterpart_number', 'counterpart_name', 'supply_cost', 'tax', 'total_amount', 'tax_type',
  'amendment_reason', 'original_approval_number', 'status', 'late', 'content_hash',
  'change_sequence', 'changed_at'];

// Records invoices of one scope in the order of change: a new invoice, or one whose content
// changed, takes the next sequence; one whose content is the same keeps its position. A
// collected invoice never replaces one issued here (the document etax issued is the source of
// truth for it); an invoice issued here replaces a collected copy. Call in a transaction.
export async function recordEntries(tx: Executor, scope: Scope, entries: readonly BookEntry[],
  changedAt: Date): Promise<RecordCounts> {
  const counts: RecordCounts = { inserted: 0, updated: 0, unchanged: 0 };
  if (entries.length === 0) return counts;
  const last = await lockCounter(tx, scope);
  const existing = await tx.select({ direction: invoices.direction,
    approvalNumber: invoices.approvalNumber, contentHash: invoices.contentHash,
    source: invoices.source })
    .from(invoices)
    .where(and(inScope(scope), inArray(invoices.approvalNumber,
      [...new Set(entries.map((entry) => entry.approvalNumber))])));
  const known = new Map(existing.map((row) => [`${row.direction}:${row.approvalNumber}`, row]));
  const rows: Array<typeof invoices.$inferInsert> = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const key = `${entry.direction}:${entry.approvalNumber}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const hash = contentHash(entry);
    const before = known.get(key);
    if (before !== undefined && (before.contentHash === hash ||
      (entry.source === 'COLLECTED' && before.source === 'ISSUED_HERE'))) {
      counts.unchanged += 1;
      continue;
    }
    if (before === undefined) counts.inserted += 1;
    else counts.updated += 1;
    rows.push({ ...entry, ...scope, contentHash: hash,
      changeSequence: last + rows.length + 1, changedAt });
  }
  if (rows.length === 0) return counts;
  await tx.insert(invoices).values(rows)
    .onConflictDoUpdate({
      target: [invoices.accountId, invoices.environment, invoices.direction,
        invoices.approvalNumber],
      set: Object.fromEntries(COLUMNS_SET_ON_CHANGE.map((column) =>
        [camel(column), sql.raw(`excluded.${column}`)])),
    });
  await tx.update(counters).set({ lastSequence: last + rows.length })
    .where(and(eq(counters.accountId, scope.accountId),
      eq(counters.environment, scope.environment)));
  return counts;
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_, letter: string) =>
  letter.toUpperCase());

export type FeedFilter = { direction?: Direction; writeDateFrom?: string; writeDateTo?: string };

// The scope's invoices after position `after`, in the order of change.
export async function readFeed(tx: Executor, scope: Scope, after: number, limit: number,
  filter: FeedFilter): Promise<BookRow[]> {
  return tx.select().from(invoices)
    .where(and(inScope(scope), gt(invoices.changeSequence, after),
      filter.direction === undefined ? undefined : eq(invoices.direction, filter.direction),
      filter.writeDateFrom === undefined ? undefined
        : gte(invoices.writeDate, filter.writeDateFrom),
      filter.writeDateTo === undefined ? undefined : lte(invoices.writeDate, filter.writeDateTo)))
    .orderBy(asc(invoices.changeSequence))
    .limit(limit);
}

// Collections.

export async function insertCollection(tx: Executor, row: typeof collections.$inferInsert) {
  const [inserted] = await tx.insert(collections).values(row).onConflictDoNothing().returning();
  return inserted ?? null;
}

export async function findActiveCollection(tx: Executor, connectionId: string) {
  const [row] = await tx.select().from(collections)
    .where(and(eq(collections.connectionId, connectionId),
      inArray(collections.state, ['QUEUED', 'RUNNING']))).limit(1);
  return row ?? null;
}

export async function findCollection(tx: Executor, scope: Scope, id: string) {
  const [row] = await tx.select().from(collections)
    .where(and(eq(collections.accountId, scope.accountId),
      eq(collections.environment, scope.environment), eq(collections.id, id))).limit(1);
  return row ?? null;
}

export async function findCollectionById(tx: Executor, id: string) {
  const [row] = await tx.select().from(collections).where(eq(collections.id, id)).limit(1);
  return row ?? null;
}

export async function countSucceeded(tx: Executor, connectionId: string) {
  const [row] = await tx.select({ count: count() }).from(collections)
    .where(and(eq(collections.connectionId, connectionId),
      eq(collections.state, 'SUCCEEDED')));
  return row?.count ?? 0;
}

export async function updateCollection(tx: Executor, id: string,
  changes: Partial<typeof collections.$inferInsert>) {
  await tx.update(collections).set(changes).where(eq(collections.id, id));
}
