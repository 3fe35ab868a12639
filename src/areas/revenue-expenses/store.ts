import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  and, asc, count, desc, eq, getTableColumns, gt, gte, inArray, lt, lte, or, sql,
} from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import { columnList, selectJsonRows } from '../../platform/db/json-rows.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import type { Scope } from '../../platform/scope.ts';
import {
  revenueExpenseChangeCounters as counters,
  revenueExpenseCollections as collections,
  revenueExpenseInvoices as invoices,
  revenueExpenseMonthTotals as monthTotalsTable,
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

// Locks the counter rows of the scopes (in the order given) until the transaction ends and
// returns each one's last sequence. Every writer of a scope takes this lock before it reads what
// it changes, so writers of one scope run one after another from here to their commit. A scope's
// first writer creates its row, in the order given; the rows are then locked by reading them, so
// a counter that exists is not written twice in a batch (here and when it advances).
async function lockCounters(tx: Executor, scopes: readonly Scope[]): Promise<Map<string, number>> {
  await tx.insert(counters)
    .values(scopes.map((scope) => ({ ...scope, lastSequence: 0 })))
    .onConflictDoNothing({ target: [counters.accountId, counters.environment] });
  const { rows } = await executePrepared<{ account_id: string; environment: string;
    last_sequence: string }>(tx, sql`select c.account_id, c.environment,
           c.last_sequence::text as last_sequence
      from unnest(${sql.param(scopes.map((scope) => scope.accountId))}::text[],
                  ${sql.param(scopes.map((scope) => scope.environment))}::text[])
           with ordinality as s(account_id, environment, position)
      join revenue_expense_change_counters c
        on c.account_id = s.account_id and c.environment = s.environment
     order by s.position
       for update of c`);
  assert.equal(rows.length, scopes.length, 'every counter exists once created');
  return new Map(rows.map((row) => [scopeKey({ accountId: row.account_id,
    environment: row.environment }), Number(row.last_sequence)]));
}

const COLUMNS_SET_ON_CHANGE = ['source', 'issuance_key', 'write_date', 'issue_date',
  'counterpart_number', 'counterpart_name', 'supply_cost', 'tax', 'total_amount', 'tax_type',
  'amendment_reason', 'original_approval_number', 'status', 'late', 'content_hash',
  'change_sequence', 'changed_at'];

// The columns an entry is written with (the others, id and created_at, take their defaults),
// and what a changed entry replaces. The rows travel as one JSON parameter
// (platform/db/json-rows.ts): a batch of transmitted invoices books an entry each, and drizzle
// would build each of their twenty columns as a parameter of its own.
const WRITTEN_COLUMNS = Object.entries(getTableColumns(invoices))
  .filter(([, column]) => !column.hasDefault)
  .map(([property, column]) => ({ property, name: column.name }));
const SET_ON_CHANGE = sql.raw(COLUMNS_SET_ON_CHANGE.map((column) => `"${column}" = excluded."${
  column}"`).join(', '));

const scopeKey = (scope: { accountId: string; environment: string }) =>
  `${scope.accountId}\u0000${scope.environment}`;

// An invoice's identity in the books (their identity index): its scope, direction and number.
const entryKey = (scope: { accountId: string; environment: string }, direction: string,
  approvalNumber: string) => `${scopeKey(scope)}:${direction}:${approvalNumber}`;

type Known = Pick<BookRow, 'direction' | 'approvalNumber' | 'contentHash' | 'source'>;

// What the books hold already of the entries' invoices, per scope, direction and number. Each
// entry is looked up by the whole of the identity index (scope, direction, number), one probe
// each: a test of the scopes and the numbers apart read every entry of the batch's scopes, and
// a busy book has many.
async function findKnown(tx: Executor, groups: ReadonlyArray<ScopeEntries>) {
  const keys = [...new Map(groups.flatMap(({ scope, entries }) => entries.map((entry) =>
    [entryKey(scope, entry.direction, entry.approvalNumber),
      { ...scope, direction: entry.direction, approvalNumber: entry.approvalNumber }]))).values()];
  const { rows } = await executePrepared<{ account_id: string; environment: string;
    direction: Direction; approval_number: string; content_hash: string; source: Source }>(tx,
    sql`select i.account_id, i.environment, i.direction, i.approval_number, i.content_hash,
           i.source
      from unnest(${sql.param(keys.map((key) => key.accountId))}::text[],
                  ${sql.param(keys.map((key) => key.environment))}::text[],
                  ${sql.param(keys.map((key) => key.direction))}::text[],
                  ${sql.param(keys.map((key) => key.approvalNumber))}::text[])
           as k(account_id, environment, direction, approval_number)
      join revenue_expense_invoices i
        on i.account_id = k.account_id and i.environment = k.environment
       and i.direction = k.direction and i.approval_number = k.approval_number`);
  return new Map<string, Known>(rows.map((row) => [
    entryKey({ accountId: row.account_id, environment: row.environment }, row.direction,
      row.approval_number),
    { direction: row.direction, approvalNumber: row.approval_number,
      contentHash: row.content_hash, source: row.source }]));
}

export type ScopeEntries = { scope: Scope; entries: readonly BookEntry[] };

// Records invoices of one scope in the order of change: a new invoice, or one whose content
// changed, takes the next sequence; one whose content is the same keeps its position. A
// collected invoice never replaces one issued here (the document etax issued is the source of
// truth for it); an invoice issued here replaces a collected copy. Call in a transaction.
export async function recordEntries(tx: Executor, scope: Scope, entries: readonly BookEntry[],
  changedAt: Date): Promise<RecordCounts> {
  const [counts] = await recordEntriesOfScopes(tx, [{ scope, entries }], changedAt);
  return counts!;
}

// recordEntries for many scopes at once, in one statement per step whatever their number: the
// work of a batch of transmitted invoices, each a sale of its issuer and a purchase of every
// account connected to its recipient. Scopes are locked in key order, so two such batches never
// wait for each other's counters. Answers the counts of each group, in order.
export async function recordEntriesOfScopes(tx: Executor, groups: readonly ScopeEntries[],
  changedAt: Date): Promise<RecordCounts[]> {
  const counts = groups.map(() => ({ inserted: 0, updated: 0, unchanged: 0 }));
  const writing = groups.filter(({ entries }) => entries.length > 0);
  if (writing.length === 0) return counts;
  const scopes = [...new Map(writing.map(({ scope }) => [scopeKey(scope), scope])).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, scope]) => scope);
  const last = await lockCounters(tx, scopes);
  const known = await findKnown(tx, writing);
  const rows: Array<typeof invoices.$inferInsert> = [];
  const seen = new Set<string>();
  groups.forEach(({ scope, entries }, index) => {
    for (const entry of entries) {
      const key = entryKey(scope, entry.direction, entry.approvalNumber);
      if (seen.has(key)) continue;
      seen.add(key);
      const hash = contentHash(entry);
      const before = known.get(key);
      if (before !== undefined && (before.contentHash === hash ||
        (entry.source === 'COLLECTED' && before.source === 'ISSUED_HERE'))) {
        counts[index]!.unchanged += 1;
        continue;
      }
      if (before === undefined) counts[index]!.inserted += 1;
      else counts[index]!.updated += 1;
      const sequence = last.get(scopeKey(scope))! + 1;
      last.set(scopeKey(scope), sequence);
      rows.push({ ...entry, ...scope, contentHash: hash, changeSequence: sequence, changedAt });
    }
  });
  if (rows.length === 0) return counts;
  await executePrepared(tx, sql`insert into revenue_expense_invoices (${columnList(
    WRITTEN_COLUMNS.map(({ name }) => name))})
    ${selectJsonRows(invoices, WRITTEN_COLUMNS.map(({ name }) => name), rows.map((row) =>
    Object.fromEntries(WRITTEN_COLUMNS.map(({ property, name }) =>
      [name, (row as Record<string, unknown>)[property] ?? null]))))}
    on conflict (account_id, environment, direction, approval_number)
    do update set ${SET_ON_CHANGE}`);
  const advanced = sql.join(scopes.map((scope) =>
    sql`(${scope.accountId}, ${scope.environment}, ${last.get(scopeKey(scope))!}::bigint)`),
  sql`, `);
  await tx.execute(sql`update ${counters} c set last_sequence = v.last_sequence
    from (values ${advanced}) as v(account_id, environment, last_sequence)
    where c.account_id = v.account_id and c.environment = v.environment`);
  return counts;
}


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

// The books by month of write date: per month and direction, the count and the sums, for the
// months from `from` to before `toExclusive` (first days). Read from the month totals the
// invoices' triggers keep (tables.ts), a row per month and direction.
export type MonthTotals = { month: string; direction: Direction; count: number;
  supplyCost: number; tax: number; totalAmount: number };

export async function monthTotals(tx: Executor, scope: Scope, from: string, toExclusive: string):
  Promise<MonthTotals[]> {
  const rows = await tx.select().from(monthTotalsTable)
    .where(and(eq(monthTotalsTable.accountId, scope.accountId),
      eq(monthTotalsTable.environment, scope.environment), gte(monthTotalsTable.month, from),
      lt(monthTotalsTable.month, toExclusive)))
    .orderBy(asc(monthTotalsTable.month), asc(monthTotalsTable.direction));
  return rows.map((row) => ({ month: row.month.slice(0, 7), direction: row.direction as Direction,
    count: row.entries, supplyCost: row.supplyCost, tax: row.tax,
    totalAmount: row.totalAmount }));
}

// The entries of a range of write dates and one direction, by write date then id, after the
// position `after` ([writeDate, id]).
export async function entriesByWriteDate(tx: Executor, scope: Scope, filter: { from: string;
  toExclusive: string; direction: Direction; after: readonly [string, number] | null;
  limit: number }): Promise<BookRow[]> {
  const { after } = filter;
  return tx.select().from(invoices)
    .where(and(inScope(scope), eq(invoices.direction, filter.direction),
      gte(invoices.writeDate, filter.from), lt(invoices.writeDate, filter.toExclusive),
      after === null ? undefined : or(gt(invoices.writeDate, after[0]),
        and(eq(invoices.writeDate, after[0]), gt(invoices.id, after[1])))))
    .orderBy(asc(invoices.writeDate), asc(invoices.id))
    .limit(filter.limit);
}

// Collections.

export async function listCollections(tx: Executor, scope: Scope, limit: number) {
  return tx.select().from(collections)
    .where(and(eq(collections.accountId, scope.accountId),
      eq(collections.environment, scope.environment)))
    .orderBy(desc(collections.requestedAt), desc(collections.id))
    .limit(limit);
}

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

// The sales collected from the tax portal (not issued here) of a scope with one of `totals`,
// written in [from, to], oldest first: what a deposit may pay besides the invoices issued here.
export async function findCollectedSalesByTotals(tx: Executor, scope: Scope,
  totals: readonly number[], from: string, to: string) {
  if (totals.length === 0) return [];
  return tx.select({ approvalNumber: invoices.approvalNumber, totalAmount: invoices.totalAmount,
    writeDate: invoices.writeDate, counterpartName: invoices.counterpartName }).from(invoices)
    .where(and(eq(invoices.accountId, scope.accountId),
      eq(invoices.environment, scope.environment), eq(invoices.direction, 'SALES'),
      eq(invoices.source, 'COLLECTED'), inArray(invoices.totalAmount, [...totals]),
      gte(invoices.writeDate, from), lte(invoices.writeDate, to)))
    .orderBy(asc(invoices.writeDate), asc(invoices.id));
}
