import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import type { Scope } from '../../platform/scope.ts';
import { drafts, draftSettings, type DraftKind, type DraftStatus } from './tables.ts';

// SQL of the drafts area. Every function takes the executor first and never opens a
// transaction; every read and change filters by the caller's account and environment.

export type DraftRow = typeof drafts.$inferSelect;
export type NewDraftRow = typeof drafts.$inferInsert;

const inScope = (scope: Scope, kind: DraftKind) => and(eq(drafts.accountId, scope.accountId),
  eq(drafts.environment, scope.environment), eq(drafts.kind, kind));

export async function insertDraft(tx: Executor, row: NewDraftRow): Promise<DraftRow> {
  const [inserted] = await tx.insert(drafts).values(row).returning();
  return inserted!;
}

// Many drafts in one statement, in the order given (their sequence follows it).
export async function insertDrafts(tx: Executor, rows: NewDraftRow[]): Promise<DraftRow[]> {
  return tx.insert(drafts).values(rows).returning();
}

export async function findDraft(tx: Executor, scope: Scope, kind: DraftKind, draftId: string):
  Promise<DraftRow | null> {
  const [row] = await tx.select().from(drafts)
    .where(and(inScope(scope, kind), eq(drafts.draftId, draftId))).limit(1);
  return row ?? null;
}

export type ListFilters = { statuses?: DraftStatus[] | undefined; afterSequence?: number };

export async function listDrafts(tx: Executor, scope: Scope, kind: DraftKind,
  filters: ListFilters, limit: number): Promise<DraftRow[]> {
  const conditions = [inScope(scope, kind)];
  if (filters.statuses && filters.statuses.length > 0) {
    conditions.push(inArray(drafts.status, filters.statuses));
  }
  if (filters.afterSequence !== undefined) {
    conditions.push(gt(drafts.sequence, filters.afterSequence));
  }
  return tx.select().from(drafts).where(and(...conditions))
    .orderBy(asc(drafts.sequence)).limit(limit);
}

// Changes a draft that is still in one of `from` (and, when given, at `version`); null when it
// is not (another request changed it first), so whoever loses changes nothing. Every change
// counts a version.
export async function changeDraft(tx: Executor, target: { scope: Scope; kind: DraftKind;
  draftId: string; from: readonly DraftStatus[]; version?: number },
changes: Partial<Omit<NewDraftRow, 'draftId' | 'accountId' | 'environment' | 'kind' |
  'sequence' | 'version'>>): Promise<DraftRow | null> {
  const conditions = [inScope(target.scope, target.kind), eq(drafts.draftId, target.draftId),
    inArray(drafts.status, [...target.from])];
  if (target.version !== undefined) conditions.push(eq(drafts.version, target.version));
  const [row] = await tx.update(drafts).set({ ...changes, version: sql`${drafts.version} + 1` })
    .where(and(...conditions)).returning();
  return row ?? null;
}

export async function deleteDraft(tx: Executor, target: { scope: Scope; kind: DraftKind;
  draftId: string; from: readonly DraftStatus[] }): Promise<DraftRow | null> {
  const [row] = await tx.delete(drafts).where(and(inScope(target.scope, target.kind),
    eq(drafts.draftId, target.draftId), inArray(drafts.status, [...target.from])))
    .returning();
  return row ?? null;
}

export async function findApprovalRequired(tx: Executor, accountId: string): Promise<boolean> {
  const [row] = await tx.select({ approvalRequired: draftSettings.approvalRequired })
    .from(draftSettings).where(eq(draftSettings.accountId, accountId)).limit(1);
  return row?.approvalRequired ?? false;
}

export async function saveApprovalRequired(tx: Executor, setting: { accountId: string;
  approvalRequired: boolean; updatedBy: string; updatedAt: Date }): Promise<void> {
  await tx.insert(draftSettings).values(setting).onConflictDoUpdate({
    target: draftSettings.accountId,
    set: { approvalRequired: setting.approvalRequired, updatedBy: setting.updatedBy,
      updatedAt: setting.updatedAt },
  });
}
