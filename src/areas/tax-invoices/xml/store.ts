import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/connect.ts';
import { insertJsonRows } from '../../../platform/db/json-rows.ts';
import { executePrepared } from '../../../platform/db/prepared.ts';
import type { Scope } from '../../../platform/scope.ts';
import { taxInvoices } from '../tables.ts';
import { approvalSerials, taxInvoiceXmlDocuments } from './tables.ts';

// SQL of the signed XML documents. Reads for a client join the document, whose account and
// environment decide who sees it.

export type XmlDocumentRow = typeof taxInvoiceXmlDocuments.$inferSelect;

// `count` fresh counter values for approval number serials, in one round trip.
export async function allocateApprovalCounters(tx: Executor, count: number): Promise<bigint[]> {
  if (count === 0) return [];
  const result = await tx.execute<{ value: string }>(sql`select nextval(${
    sql.raw(`'${approvalSerials.seqName!}'`)})::text as value
    from generate_series(1, ${count}::integer)`);
  return result.rows.map((row) => BigInt(row.value));
}

export async function insertXmlDocuments(
  tx: Executor,
  rows: ReadonlyArray<{ issuanceKey: string; approvalNumber: string; signedXml: string;
    signingCertificate: string }>,
): Promise<void> {
  if (rows.length === 0) return;
  // The rows travel as one JSON parameter (platform/db/json-rows.ts): drizzle's own insert built
  // each of a batch's hundred documents' columns as a parameter of its own, at about 30 µs a
  // document. An approval number given twice still fails the statement: only a document that
  // has its XML already is skipped.
  await executePrepared(tx, insertJsonRows(taxInvoiceXmlDocuments, rows,
    { onConflictDoNothing: 'issuance_key' }));
}

export async function findXmlDocumentsByKeys(
  tx: Executor,
  issuanceKeys: readonly string[],
): Promise<XmlDocumentRow[]> {
  if (issuanceKeys.length === 0) return [];
  return tx.select().from(taxInvoiceXmlDocuments)
    .where(inArray(taxInvoiceXmlDocuments.issuanceKey, [...issuanceKeys]));
}

// The document's status and its XML, if any; null when the scope has no such document.
export async function findXmlDocument(tx: Executor, scope: Scope, issuanceKey: string) {
  const [row] = await tx.select({ status: taxInvoices.status,
    signedXml: taxInvoiceXmlDocuments.signedXml })
    .from(taxInvoices)
    .leftJoin(taxInvoiceXmlDocuments,
      eq(taxInvoiceXmlDocuments.issuanceKey, taxInvoices.issuanceKey))
    .where(and(eq(taxInvoices.accountId, scope.accountId),
      eq(taxInvoices.environment, scope.environment),
      eq(taxInvoices.issuanceKey, issuanceKey)))
    .limit(1);
  return row ?? null;
}
