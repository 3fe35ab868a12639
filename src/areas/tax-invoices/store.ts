import assert from 'node:assert/strict';
import {
  and, asc, desc, eq, getTableColumns, gt, gte, inArray, isNotNull, isNull, lt, lte, or, sql,
  type SQL,
} from 'drizzle-orm';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Executor } from '../../platform/db/connect.ts';
import { columnList, selectJsonRows } from '../../platform/db/json-rows.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import type { Scope } from '../../platform/scope.ts';
import type { Invoice, TaxInvoiceStatus } from './schemas.ts';
import { taxInvoices, taxInvoiceStatusChanges } from './tables.ts';

// SQL of the tax-invoices area. Every read by issuance key for a client filters by the caller's
// account and environment; documents of another scope are simply not found. Status changes are
// conditional updates, so of two racing changes exactly one finds the status it expects. Each
// write exists once, in its batch form; the form for one document calls it with one item.

export type TaxInvoiceRow = typeof taxInvoices.$inferSelect;
export type NewTaxInvoiceRow = typeof taxInvoices.$inferInsert;
type StatusChangeRow = typeof taxInvoiceStatusChanges.$inferSelect;

// Who changed a document's status, for its history (DASHBOARD: a signed-in user of the
// dashboard).
export type Actor = 'API' | 'JOB' | 'APPROVAL_PAGE' | 'EMAIL' | 'DASHBOARD';

// The account and environment a document belongs to, for the work done on its behalf.
export function scopeOfRow(row: TaxInvoiceRow): Scope {
  return { accountId: row.accountId, environment: row.environment as Environment };
}

const inScope = (scope: Scope) => and(
  eq(taxInvoices.accountId, scope.accountId),
  eq(taxInvoices.environment, scope.environment),
);

// The columns a new document is written with; the others (sequence, times) take defaults.
const INSERTED_COLUMNS = Object.entries(getTableColumns(taxInvoices))
  .filter(([, column]) => !column.hasDefault)
  .map(([property, column]) => ({ property, name: column.name }));

// Inserts new documents and their first history rows in one statement. The rows travel as one
// JSON parameter (platform/db/json-rows.ts), which costs far less to build than a parameter per
// column per row; the batched issuance path, where that cost counts, inserts the documents of
// up to a hundred requests at once. Returns how many were made.
export async function insertInvoices(
  tx: Executor,
  rows: readonly NewTaxInvoiceRow[],
  actor: Actor,
  // A statement on the rows just inserted, made part of the same statement (a CTE that reads
  // `inserted`: issuance_key, issuance_type, status): the caller's round trip saved.
  alongside?: SQL,
): Promise<number> {
  if (rows.length === 0) return 0;
  const records = rows.map((row) => Object.fromEntries(INSERTED_COLUMNS.map(
    ({ property, name }) => [name, (row as Record<string, unknown>)[property] ?? null])));
  const names = INSERTED_COLUMNS.map(({ name }) => name);
  const result = await executePrepared<{ count: number }>(tx, sql`
    with inserted as (
      insert into tax_invoices (${columnList(names)})
      ${selectJsonRows(taxInvoices, names, records)}
      returning issuance_key, issuance_type, status
    ), history as (
      insert into tax_invoice_status_changes (issuance_key, from_status, to_status, actor)
      select issuance_key, null, status, ${actor} from inserted
    )${alongside === undefined ? sql`` : sql`, alongside as (${alongside})`}
    select count(*)::int as count from inserted`);
  return result.rows[0]!.count;
}

export type Transition = {
  issuanceKey: string;
  from: readonly TaxInvoiceStatus[];
  to: TaxInvoiceStatus;
  actor: Actor;
  message?: string | null;
  // Columns that change with the status (approval number, signature, failure …).
  changes?: Partial<Omit<NewTaxInvoiceRow, 'issuanceKey' | 'status'>>;
};

// Property name → column name, for the statements written in SQL.
const COLUMN_NAMES: ReadonlyMap<string, string> = new Map(Object.entries(
  getTableColumns(taxInvoices)).map(([property, column]) => [property, column.name]));

// Moves many documents at once: the documents whose status is one of `from` are locked in key
// order (so batches that overlap wait for each other instead of deadlocking), moved to `to` with
// their own changes, and recorded, all in one statement. Every item changes the same columns.
// Returns the keys of the documents moved; the others are left as they are.
type TransitionBatch = Omit<Transition, 'issuanceKey' | 'message' | 'changes'> & {
  items: Array<Pick<Transition, 'issuanceKey' | 'message' | 'changes'>>;
};

export async function transitionMany(tx: Executor, batch: TransitionBatch): Promise<string[]> {
  if (batch.items.length === 0) return [];
  const changed = Object.keys(batch.items[0]!.changes ?? {}).map((property) => ({ property,
    name: COLUMN_NAMES.get(property)! }));
  const records = batch.items.map((item) => {
    const changes = (item.changes ?? {}) as Record<string, unknown>;
    assert.equal(Object.keys(changes).length, changed.length, 'items change different columns');
    return { issuance_key: item.issuanceKey, message: item.message ?? null,
      ...Object.fromEntries(changed.map(({ property, name }) => [name, changes[property]])) };
  });
  const assignments = sql.raw(changed.map(({ name }) => `"${name}" = c."${name}", `).join(''));
  const from = sql.join(batch.from.map((status) => sql`${status}`), sql`, `);
  const result = await tx.execute<{ issuance_key: string }>(sql`
    with change as (
      select c.*, e->>'message' as message
        from json_array_elements(${JSON.stringify(records)}::json) e,
             lateral json_populate_record(null::tax_invoices, e) c
    ), locked as (
      select t.issuance_key, t.status from tax_invoices t
       where t.issuance_key in (select issuance_key from change) and t.status in (${from})
       order by t.issuance_key
         for update
    ), moved as (
      update tax_invoices t
         set ${assignments}status = ${batch.to}, updated_at = now()
        from locked l join change c using (issuance_key)
       where t.issuance_key = l.issuance_key
      returning t.issuance_key, l.status as from_status, c.message
    ), history as (
      insert into tax_invoice_status_changes (issuance_key, from_status, to_status, actor, message)
      select issuance_key, from_status, ${batch.to}, ${batch.actor}, message from moved
    )
    select issuance_key from moved order by issuance_key`);
  return result.rows.map((row) => row.issuance_key);
}

// Moves one document from one of `from` to `to` and records it: transitionMany with one item,
// then the row as it is now. Null when its status is not one of `from` (another change won, or
// the change does not apply).
export async function transition(tx: Executor, change: Transition): Promise<TaxInvoiceRow | null> {
  const { issuanceKey, message, changes, ...batch } = change;
  const moved = await transitionMany(tx, { ...batch, items: [{ issuanceKey, message, changes }] });
  if (moved.length === 0) return null;
  const row = await findInvoiceByKey(tx, issuanceKey);
  assert(row !== null, 'a document just moved exists');
  return row;
}

export async function findInvoice(
  tx: Executor,
  scope: Scope,
  issuanceKey: string,
): Promise<TaxInvoiceRow | null> {
  const [row] = await tx.select().from(taxInvoices)
    .where(and(inScope(scope), eq(taxInvoices.issuanceKey, issuanceKey))).limit(1);
  return row ?? null;
}

// Locks a document's row until the transaction ends, so that requests deciding on what exists
// for it (the amendments of an original) take turns; null when the scope has no such document.
export async function lockInvoice(
  tx: Executor,
  scope: Scope,
  issuanceKey: string,
): Promise<TaxInvoiceRow | null> {
  const [row] = await tx.select().from(taxInvoices)
    .where(and(inScope(scope), eq(taxInvoices.issuanceKey, issuanceKey))).limit(1)
    .for('update');
  return row ?? null;
}

// For jobs and hosted pages, which act on a document their data names rather than for a caller.
export async function findInvoiceByKey(
  tx: Executor,
  issuanceKey: string,
): Promise<TaxInvoiceRow | null> {
  const [row] = await tx.select().from(taxInvoices)
    .where(eq(taxInvoices.issuanceKey, issuanceKey)).limit(1);
  return row ?? null;
}

export async function findInvoicesByKeys(
  tx: Executor,
  issuanceKeys: readonly string[],
): Promise<TaxInvoiceRow[]> {
  if (issuanceKeys.length === 0) return [];
  return tx.select().from(taxInvoices).where(inArray(taxInvoices.issuanceKey, [...issuanceKeys]));
}

// The documents a request with this reference id made, in the order they were made.
export async function findByReferenceId(
  tx: Executor,
  apiKeyId: string,
  referenceId: string,
): Promise<TaxInvoiceRow[]> {
  return tx.select().from(taxInvoices)
    .where(and(eq(taxInvoices.apiKeyId, apiKeyId),
      eq(taxInvoices.clientReferenceId, referenceId)))
    .orderBy(asc(taxInvoices.sequence));
}

// The requests the scope's dashboard users made with a reference id (their callers are
// `dashboard:<user id>`), oldest first.
export async function findDashboardByReferenceId(
  tx: Executor,
  scope: Scope,
  referenceId: string,
): Promise<TaxInvoiceRow[]> {
  return tx.select().from(taxInvoices)
    .where(and(eq(taxInvoices.accountId, scope.accountId),
      eq(taxInvoices.environment, scope.environment),
      eq(taxInvoices.clientReferenceId, referenceId),
      sql`${taxInvoices.apiKeyId} like 'dashboard:%'`))
    .orderBy(asc(taxInvoices.sequence));
}

export async function findStatusChanges(
  tx: Executor,
  issuanceKey: string,
): Promise<StatusChangeRow[]> {
  return tx.select().from(taxInvoiceStatusChanges)
    .where(eq(taxInvoiceStatusChanges.issuanceKey, issuanceKey))
    .orderBy(asc(taxInvoiceStatusChanges.id));
}

export type ListFilters = {
  writeDateFrom?: string | undefined;
  writeDateTo?: string | undefined;
  statuses?: readonly TaxInvoiceStatus[] | undefined;
  counterpartNumber?: string | undefined;
  issuerId?: string | undefined;
  afterSequence?: number | undefined;
};

// A page in creation order. The filters are all optional and combine with "and".
export async function listInvoices(
  tx: Executor,
  scope: Scope,
  filters: ListFilters,
  limit: number,
): Promise<TaxInvoiceRow[]> {
  const conditions: Array<SQL | undefined> = [inScope(scope)];
  if (filters.writeDateFrom) conditions.push(gte(taxInvoices.writeDate, filters.writeDateFrom));
  if (filters.writeDateTo) conditions.push(lte(taxInvoices.writeDate, filters.writeDateTo));
  if (filters.statuses?.length) conditions.push(inArray(taxInvoices.status, [...filters.statuses]));
  if (filters.counterpartNumber) {
    conditions.push(eq(taxInvoices.counterpartNumber, filters.counterpartNumber));
  }
  if (filters.issuerId) conditions.push(eq(taxInvoices.issuerId, filters.issuerId));
  if (filters.afterSequence !== undefined) {
    conditions.push(gt(taxInvoices.sequence, filters.afterSequence));
  }
  return tx.select().from(taxInvoices).where(and(...conditions))
    .orderBy(asc(taxInvoices.sequence)).limit(limit);
}

// What a person looking for documents filters by (the dashboard's list and its exports). Every
// filter is optional and they combine with "and".
export type BrowseFilters = {
  statuses?: readonly TaxInvoiceStatus[] | undefined;
  issuanceType?: 'STANDARD' | 'REVERSE' | undefined;
  writeDateFrom?: string | undefined;
  writeDateTo?: string | undefined;
  // The recipient: its registration number exactly (digits), or part of its name.
  recipientNumber?: string | undefined;
  recipientName?: string | undefined;
  // The total amount, from and to, both included.
  totalMin?: number | undefined;
  totalMax?: number | undefined;
  referenceId?: string | undefined;
  lateIssuance?: boolean | undefined;
  // true: amendments only; false: everything but amendments.
  amendment?: boolean | undefined;
  // One text matched against the issuance key, the approval number and the reference id
  // exactly, the recipient's number exactly and the recipient's name in part.
  search?: string | undefined;
  // Newest first: the page after this sequence.
  beforeSequence?: number | undefined;
};

// `%` and `_` match themselves in the text a person typed.
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const recipientNameOf = sql`(${taxInvoices.invoice}->'supplied'->>'organizationName')`;

function browseConditions(scope: Scope, filters: BrowseFilters): SQL | undefined {
  const conditions: Array<SQL | undefined> = [inScope(scope)];
  if (filters.statuses?.length) conditions.push(inArray(taxInvoices.status, [...filters.statuses]));
  if (filters.issuanceType) conditions.push(eq(taxInvoices.issuanceType, filters.issuanceType));
  if (filters.writeDateFrom) conditions.push(gte(taxInvoices.writeDate, filters.writeDateFrom));
  if (filters.writeDateTo) conditions.push(lte(taxInvoices.writeDate, filters.writeDateTo));
  if (filters.recipientNumber) {
    conditions.push(eq(taxInvoices.counterpartNumber, filters.recipientNumber));
  }
  if (filters.recipientName) {
    conditions.push(sql`${recipientNameOf} ilike ${likePattern(filters.recipientName)}`);
  }
  const { totalMin, totalMax } = filters;
  if (totalMin !== undefined) conditions.push(gte(taxInvoices.totalAmount, totalMin));
  if (totalMax !== undefined) conditions.push(lte(taxInvoices.totalAmount, totalMax));
  if (filters.referenceId) conditions.push(eq(taxInvoices.clientReferenceId, filters.referenceId));
  if (filters.lateIssuance !== undefined) {
    conditions.push(eq(taxInvoices.lateIssuance, filters.lateIssuance));
  }
  if (filters.amendment !== undefined) {
    conditions.push(filters.amendment ? isNotNull(taxInvoices.amendmentReason)
      : isNull(taxInvoices.amendmentReason));
  }
  if (filters.search) {
    const text = filters.search;
    const digits = text.replace(/-/g, '');
    conditions.push(or(eq(taxInvoices.issuanceKey, text), eq(taxInvoices.ntsTransactionId, text),
      eq(taxInvoices.clientReferenceId, text),
      ...(/^\d{10}(\d{3})?$/.test(digits) ? [eq(taxInvoices.counterpartNumber, digits)] : []),
      sql`${recipientNameOf} ilike ${likePattern(text)}`));
  }
  if (filters.beforeSequence !== undefined) {
    conditions.push(lt(taxInvoices.sequence, filters.beforeSequence));
  }
  return and(...conditions);
}

// A page newest first, by the scope's sequence index read backwards.
export async function browseInvoices(
  tx: Executor,
  scope: Scope,
  filters: BrowseFilters,
  limit: number,
): Promise<TaxInvoiceRow[]> {
  return tx.select().from(taxInvoices).where(browseConditions(scope, filters))
    .orderBy(desc(taxInvoices.sequence)).limit(limit);
}

// The recipients of the scope's latest documents, each once (its latest details), for a form
// that picks one again.
export async function recentRecipients(tx: Executor, scope: Scope, documents: number,
  limit: number) {
  const result = await tx.execute<{ supplied: Invoice['supplied'] }>(sql`
    select supplied from (
      select distinct on (counterpart_number) counterpart_number, sequence,
             invoice->'supplied' as supplied
        from (select counterpart_number, sequence, invoice from tax_invoices
               where account_id = ${scope.accountId} and environment = ${scope.environment}
                 and issuance_type = 'STANDARD' and amendment_reason is null
               order by sequence desc limit ${documents}) latest
       order by counterpart_number, sequence desc
    ) recipients
    order by sequence desc limit ${limit}`);
  return result.rows.map((row) => row.supplied);
}

// The scope's failed invoices, the latest first (the dashboard's home page). A partial index
// holds the documents with a failure code (every failed one, and refused requests), so the newest
// are found without passing every other invoice.
export async function listRecentFailures(tx: Executor, scope: Scope, limit: number):
  Promise<TaxInvoiceRow[]> {
  return tx.select().from(taxInvoices)
    .where(and(inScope(scope), eq(taxInvoices.status, 'FAILED'),
      isNotNull(taxInvoices.failureCode)))
    .orderBy(desc(taxInvoices.sequence)).limit(limit);
}

// Amendments already made of an original, to refuse a second termination or double-issuance.
export async function findAmendments(
  tx: Executor,
  originalIssuanceKey: string,
): Promise<TaxInvoiceRow[]> {
  return tx.select().from(taxInvoices)
    .where(eq(taxInvoices.originalIssuanceKey, originalIssuanceKey))
    .orderBy(asc(taxInvoices.sequence));
}

// Marks a reverse issuance request approved after its issue deadline as a late issuance.
export async function markLateIssuance(tx: Executor, issuanceKey: string): Promise<void> {
  await tx.update(taxInvoices).set({ lateIssuance: true })
    .where(eq(taxInvoices.issuanceKey, issuanceKey));
}

// Issued sales invoices of the scope whose total is one of `totals`, written from `from` to `to`:
// what a deposit of the bank transactions area may pay (docs/bank-transactions.md § Matching
// hints). Issued means ISSUED, TRANSMITTING or TRANSMITTED: not canceled, failed or still a
// request.
export async function findIssuedByTotals(tx: Executor, scope: Scope, totals: readonly number[],
  from: string, to: string) {
  if (totals.length === 0) return [];
  return tx.select({ issuanceKey: taxInvoices.issuanceKey, totalAmount: taxInvoices.totalAmount,
    writeDate: taxInvoices.writeDate, approvalNumber: taxInvoices.ntsTransactionId,
    recipientName: sql<string>`${taxInvoices.invoice}->'supplied'->>'organizationName'`,
    purpose: sql<'RECEIPT' | 'CLAIM'>`${taxInvoices.invoice}->>'purpose'` })
    .from(taxInvoices)
    .where(and(inScope(scope), inArray(taxInvoices.status, ['ISSUED', 'TRANSMITTING',
      'TRANSMITTED']), inArray(taxInvoices.totalAmount, [...totals]),
    gte(taxInvoices.writeDate, from), lte(taxInvoices.writeDate, to)))
    .orderBy(asc(taxInvoices.writeDate), asc(taxInvoices.sequence));
}

// The states of documents by issuance key, within a scope when one is given (a bulk's
// documents, for its counts and its completion).
export async function statusesByKeys(tx: Executor, issuanceKeys: readonly string[],
  scope?: Scope): Promise<Map<string, TaxInvoiceStatus>> {
  if (issuanceKeys.length === 0) return new Map();
  const rows = await tx.select({ issuanceKey: taxInvoices.issuanceKey,
    status: taxInvoices.status }).from(taxInvoices)
    .where(and(scope === undefined ? undefined : inScope(scope),
      inArray(taxInvoices.issuanceKey, [...issuanceKeys])));
  return new Map(rows.map((row) => [row.issuanceKey, row.status]));
}
