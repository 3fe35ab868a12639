import { and, asc, count, eq } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/connect.ts';
import type { Scope } from '../../../platform/scope.ts';
import { taxInvoiceAttachments } from './tables.ts';

// SQL of a document's attachments. Every read filters by the caller's account and environment.

export type AttachmentRow = typeof taxInvoiceAttachments.$inferSelect;
export type AttachmentInfo = Omit<AttachmentRow,
  'content' | 'accountId' | 'environment' | 'sequence'>;

const inScope = (scope: Scope, issuanceKey: string) => and(
  eq(taxInvoiceAttachments.accountId, scope.accountId),
  eq(taxInvoiceAttachments.environment, scope.environment),
  eq(taxInvoiceAttachments.issuanceKey, issuanceKey));

const INFO = {
  id: taxInvoiceAttachments.id,
  issuanceKey: taxInvoiceAttachments.issuanceKey,
  fileName: taxInvoiceAttachments.fileName,
  contentType: taxInvoiceAttachments.contentType,
  sizeBytes: taxInvoiceAttachments.sizeBytes,
  sha256: taxInvoiceAttachments.sha256,
  createdAt: taxInvoiceAttachments.createdAt,
};

export async function insertAttachments(
  tx: Executor,
  rows: ReadonlyArray<Omit<typeof taxInvoiceAttachments.$inferInsert, 'sequence'>>,
): Promise<AttachmentInfo[]> {
  if (rows.length === 0) return [];
  return tx.insert(taxInvoiceAttachments).values([...rows]).returning(INFO);
}

export async function countAttachments(tx: Executor, scope: Scope, issuanceKey: string):
  Promise<number> {
  const [row] = await tx.select({ count: count() }).from(taxInvoiceAttachments)
    .where(inScope(scope, issuanceKey));
  return row?.count ?? 0;
}

// Oldest first, in the order they were added; without their content.
export async function listAttachments(tx: Executor, scope: Scope, issuanceKey: string):
  Promise<AttachmentInfo[]> {
  return tx.select(INFO).from(taxInvoiceAttachments).where(inScope(scope, issuanceKey))
    .orderBy(asc(taxInvoiceAttachments.sequence));
}

export async function findAttachment(tx: Executor, scope: Scope, issuanceKey: string,
  id: string): Promise<AttachmentRow | null> {
  const [row] = await tx.select().from(taxInvoiceAttachments)
    .where(and(inScope(scope, issuanceKey), eq(taxInvoiceAttachments.id, id))).limit(1);
  return row ?? null;
}

export async function deleteAttachment(tx: Executor, scope: Scope, issuanceKey: string,
  id: string): Promise<boolean> {
  const deleted = await tx.delete(taxInvoiceAttachments)
    .where(and(inScope(scope, issuanceKey), eq(taxInvoiceAttachments.id, id)))
    .returning({ id: taxInvoiceAttachments.id });
  return deleted.length > 0;
}

// Every attachment of a document with its content, for its mail (which names the document by
// its key alone).
export async function attachmentsForMail(tx: Executor, issuanceKey: string):
  Promise<AttachmentRow[]> {
  return tx.select().from(taxInvoiceAttachments)
    .where(eq(taxInvoiceAttachments.issuanceKey, issuanceKey))
    .orderBy(asc(taxInvoiceAttachments.sequence));
}
