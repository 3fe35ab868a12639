import { and, asc, desc, eq, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import type { Scope } from '../../platform/scope.ts';
import { counterparties, counterpartyImports } from './tables.ts';

// Every statement on the counterparty book and its imports; each is bounded to one account and
// environment, except the schedule's search for counterparties due a status check.

export type CounterpartyRow = typeof counterparties.$inferSelect;
export type NewCounterpartyRow = typeof counterparties.$inferInsert;
export type ImportRowOfTable = typeof counterpartyImports.$inferSelect;

const inScope = (scope: Scope) => and(eq(counterparties.accountId, scope.accountId),
  eq(counterparties.environment, scope.environment));

// The unique index's violation, so that the service can answer 409 instead of 500.
export function isDuplicateNumber(error: unknown): boolean {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const { code, constraint } = cause as { code?: unknown; constraint?: unknown };
  return code === '23505' &&
    (constraint === undefined || constraint === 'counterparties_number_uq');
}

export async function insertCounterparty(tx: Executor, row: NewCounterpartyRow) {
  const [inserted] = await tx.insert(counterparties).values(row).returning();
  return inserted!;
}

// Adds the rows that are not in the book yet; returns how many it added.
export async function insertNewCounterparties(tx: Executor, rows: NewCounterpartyRow[]) {
  if (rows.length === 0) return 0;
  const inserted = await tx.insert(counterparties).values(rows).onConflictDoNothing()
    .returning({ id: counterparties.id });
  return inserted.length;
}

export async function findCounterparty(tx: Executor, scope: Scope, id: string) {
  const [row] = await tx.select().from(counterparties)
    .where(and(inScope(scope), eq(counterparties.id, id)));
  return row ?? null;
}

export async function updateCounterparty(tx: Executor, scope: Scope, id: string,
  changes: Partial<NewCounterpartyRow>) {
  const [row] = await tx.update(counterparties).set(changes)
    .where(and(inScope(scope), eq(counterparties.id, id))).returning();
  return row ?? null;
}

export async function deleteCounterparty(tx: Executor, scope: Scope, id: string) {
  const rows = await tx.delete(counterparties)
    .where(and(inScope(scope), eq(counterparties.id, id))).returning({ id: counterparties.id });
  return rows.length > 0;
}

export type ListFilters = {
  beforeSequence: number | null;
  // Part of the business name, any case.
  name?: string;
  // The first digits of the number.
  numberPrefix?: string;
  closed?: boolean;
};

const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

// Newest first; `limit` rows.
export async function listCounterparties(tx: Executor, scope: Scope, filters: ListFilters,
  limit: number) {
  const conditions: Array<SQL | undefined> = [inScope(scope)];
  if (filters.beforeSequence !== null) {
    conditions.push(lt(counterparties.sequence, filters.beforeSequence));
  }
  if (filters.name !== undefined) {
    const pattern = `%${likeEscaped(filters.name)}%`;
    conditions.push(sql`${counterparties.organizationName} ilike ${pattern}`);
  }
  if (filters.numberPrefix !== undefined) {
    const pattern = `${likeEscaped(filters.numberPrefix)}%`;
    conditions.push(sql`${counterparties.businessRegistrationNumber} like ${pattern}`);
  }
  if (filters.closed === true) conditions.push(eq(counterparties.registrationStatus, 'CLOSED'));
  if (filters.closed === false) {
    conditions.push(or(isNull(counterparties.registrationStatus),
      sql`${counterparties.registrationStatus} <> 'CLOSED'`));
  }
  return tx.select().from(counterparties).where(and(...conditions))
    .orderBy(desc(counterparties.sequence)).limit(limit);
}

// The numbers (with sub-place numbers) of the scope's book among these, for an import's check.
export async function existingNumbers(tx: Executor, scope: Scope, numbers: string[]) {
  if (numbers.length === 0) return new Set<string>();
  const rows = await tx.select({ number: counterparties.businessRegistrationNumber,
    taxRegistrationId: counterparties.taxRegistrationId }).from(counterparties)
    .where(and(inScope(scope), inArray(counterparties.businessRegistrationNumber, numbers)));
  return new Set(rows.map((row) => `${row.number}/${row.taxRegistrationId}`));
}

export type StatusCheck = { businessRegistrationNumber: string; status: string;
  closedOn: string | null; taxType: string | null; checkedAt: Date };

// Records the status checked of every counterparty of the scope with the number.
export async function recordStatus(tx: Executor, scope: Scope, check: StatusCheck) {
  return tx.update(counterparties).set({ registrationStatus: check.status,
    closedOn: check.closedOn, taxType: check.taxType, statusCheckedAt: check.checkedAt })
    .where(and(inScope(scope),
      eq(counterparties.businessRegistrationNumber, check.businessRegistrationNumber)))
    .returning({ id: counterparties.id });
}

// Counterparties whose status the schedule checks again: auto refresh on, never checked or
// checked before `checkedBefore`; oldest check first.
export async function dueForRefresh(tx: Executor, checkedBefore: Date, limit: number) {
  return tx.select({ accountId: counterparties.accountId,
    environment: counterparties.environment,
    businessRegistrationNumber: counterparties.businessRegistrationNumber })
    .from(counterparties)
    .where(and(eq(counterparties.autoRefreshStatus, true),
      or(isNull(counterparties.statusCheckedAt), lt(counterparties.statusCheckedAt,
        checkedBefore))))
    .orderBy(sql`${counterparties.statusCheckedAt} asc nulls first`, asc(counterparties.id))
    .limit(limit);
}

// ---- Imports ---------------------------------------------------------------------------------

export async function insertImport(tx: Executor, row: typeof counterpartyImports.$inferInsert) {
  const [inserted] = await tx.insert(counterpartyImports).values(row).returning();
  return inserted!;
}

// With `forUpdate`, the row stays locked until the transaction ends, so two commits take turns.
export async function findImport(tx: Executor, scope: Scope, id: string,
  options = { forUpdate: false }) {
  const query = tx.select().from(counterpartyImports).where(and(
    eq(counterpartyImports.accountId, scope.accountId),
    eq(counterpartyImports.environment, scope.environment), eq(counterpartyImports.id, id)));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function markImportCommitted(tx: Executor, id: string, createdCount: number,
  committedAt: Date) {
  const [row] = await tx.update(counterpartyImports).set({ status: 'COMMITTED', createdCount,
    committedAt }).where(eq(counterpartyImports.id, id)).returning();
  return row!;
}
