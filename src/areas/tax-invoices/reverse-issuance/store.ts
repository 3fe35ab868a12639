import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/connect.ts';
import { taxInvoiceApprovalTokens } from './tables.ts';

// SQL of the approval links of reverse issuance requests.

type ApprovalTokenRow = typeof taxInvoiceApprovalTokens.$inferSelect;
type NewApprovalTokenRow = typeof taxInvoiceApprovalTokens.$inferInsert;

export async function insertApprovalToken(tx: Executor, row: NewApprovalTokenRow): Promise<void> {
  await tx.insert(taxInvoiceApprovalTokens).values(row);
}

export async function findApprovalToken(
  tx: Executor,
  tokenHash: string,
): Promise<ApprovalTokenRow | null> {
  const [row] = await tx.select().from(taxInvoiceApprovalTokens)
    .where(eq(taxInvoiceApprovalTokens.tokenHash, tokenHash)).limit(1);
  return row ?? null;
}

// Marks the token used if it is unused and unexpired at `now`; false otherwise, so of two
// decisions posted with one link exactly one uses it.
export async function useApprovalToken(
  tx: Executor,
  tokenHash: string,
  now: Date,
): Promise<boolean> {
  const used = await tx.update(taxInvoiceApprovalTokens).set({ usedAt: now })
    .where(and(
      eq(taxInvoiceApprovalTokens.tokenHash, tokenHash),
      isNull(taxInvoiceApprovalTokens.usedAt),
      gt(taxInvoiceApprovalTokens.expiresAt, now),
    )).returning({ tokenHash: taxInvoiceApprovalTokens.tokenHash });
  return used.length === 1;
}
