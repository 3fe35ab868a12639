import { and, desc, eq, getTableColumns, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import type { Scope } from '../../platform/scope.ts';
import type { DocumentStatus, DocumentType } from './schemas.ts';
import { documentIssuances, ownerBusinesses } from './tables.ts';

// SQL of the documents area. Every read of a customer's rows filters by account and
// environment; the jobs read by issuance key alone.

type DocumentRow = typeof documentIssuances.$inferSelect;
export type NewDocumentRow = typeof documentIssuances.$inferInsert;
export type OwnerBusinessRow = typeof ownerBusinesses.$inferSelect;

const inScope = (scope: Scope) => and(eq(documentIssuances.accountId, scope.accountId),
  eq(documentIssuances.environment, scope.environment));

// Every column but the PDF, which only the download reads.
function withoutColumn<T extends object, K extends keyof T>(columns: T, name: K): Omit<T, K> {
  const copy = { ...columns };
  delete copy[name];
  return copy;
}
const withoutPdf = withoutColumn(getTableColumns(documentIssuances), 'pdf');
export type DocumentSummaryRow = Omit<DocumentRow, 'pdf'>;

export async function insertDocument(tx: Executor, row: NewDocumentRow): Promise<void> {
  await tx.insert(documentIssuances).values(row);
}

export async function findDocument(
  tx: Executor,
  scope: Scope,
  issuanceKey: string,
): Promise<DocumentSummaryRow | null> {
  const [row] = await tx.select(withoutPdf).from(documentIssuances)
    .where(and(inScope(scope), eq(documentIssuances.issuanceKey, issuanceKey))).limit(1);
  return row ?? null;
}

export async function findPdf(
  tx: Executor,
  scope: Scope,
  issuanceKey: string,
): Promise<{ status: string; pdf: Buffer | null } | null> {
  const [row] = await tx.select({ status: documentIssuances.status, pdf: documentIssuances.pdf })
    .from(documentIssuances)
    .where(and(inScope(scope), eq(documentIssuances.issuanceKey, issuanceKey))).limit(1);
  return row ?? null;
}

// For the processing job: the row by key, locked when asked, whatever its scope.
export async function findForJob(
  tx: Executor,
  issuanceKey: string,
  options: { forUpdate?: boolean } = {},
): Promise<DocumentSummaryRow | null> {
  const query = tx.select(withoutPdf).from(documentIssuances)
    .where(eq(documentIssuances.issuanceKey, issuanceKey)).limit(1);
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function listDocuments(
  tx: Executor,
  scope: Scope,
  options: { beforeSequence: number | null; limit: number; status?: DocumentStatus;
    type?: DocumentType },
): Promise<DocumentSummaryRow[]> {
  return tx.select(withoutPdf).from(documentIssuances).where(and(
    inScope(scope),
    options.beforeSequence === null ? undefined
      : lt(documentIssuances.sequence, options.beforeSequence),
    options.status === undefined ? undefined : eq(documentIssuances.status, options.status),
    options.type === undefined ? undefined : eq(documentIssuances.type, options.type),
  )).orderBy(desc(documentIssuances.sequence)).limit(options.limit);
}

// Moves a document from one of `from` to `to` with `changes`; null when it is in none of them
// (another run of the job got there first), so every outcome is recorded at most once.
export async function transition(
  tx: Executor,
  issuanceKey: string,
  from: DocumentStatus[],
  to: DocumentStatus,
  changes: Partial<NewDocumentRow> = {},
): Promise<DocumentSummaryRow | null> {
  const [row] = await tx.update(documentIssuances)
    .set({ ...changes, status: to, updatedAt: sql`now()` })
    .where(and(eq(documentIssuances.issuanceKey, issuanceKey),
      inArray(documentIssuances.status, from)))
    .returning(withoutPdf);
  return row ?? null;
}

export async function countPendingCheck(tx: Executor, issuanceKey: string): Promise<number> {
  const [row] = await tx.update(documentIssuances)
    .set({ pendingChecks: sql`${documentIssuances.pendingChecks} + 1`, updatedAt: sql`now()` })
    .where(and(eq(documentIssuances.issuanceKey, issuanceKey),
      eq(documentIssuances.status, 'PROCESSING')))
    .returning({ pendingChecks: documentIssuances.pendingChecks });
  return row?.pendingChecks ?? 0;
}

export async function findOwnerBusiness(
  tx: Executor,
  scope: Scope,
): Promise<OwnerBusinessRow | null> {
  const [row] = await tx.select().from(ownerBusinesses).where(and(
    eq(ownerBusinesses.accountId, scope.accountId),
    eq(ownerBusinesses.environment, scope.environment))).limit(1);
  return row ?? null;
}

export async function saveOwnerBusiness(
  tx: Executor,
  scope: Scope,
  issuerId: string,
): Promise<OwnerBusinessRow> {
  const [row] = await tx.insert(ownerBusinesses).values({ ...scope, issuerId })
    .onConflictDoUpdate({
      target: [ownerBusinesses.accountId, ownerBusinesses.environment],
      set: { issuerId, updatedAt: sql`now()` },
    }).returning();
  return row!;
}
