import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import { dashboardUserTokens } from '../tables.ts';

// The single-use links mailed for invitations and password resets. Only the SHA-256 of a link's
// token is stored.

export type LinkPurpose = 'invitation' | 'password_reset';
export type LinkRow = typeof dashboardUserTokens.$inferSelect;

export async function insertLink(tx: Executor, row: typeof dashboardUserTokens.$inferInsert) {
  await tx.insert(dashboardUserTokens).values(row);
}

export async function findLink(tx: Executor, tokenHash: string, purpose: LinkPurpose):
  Promise<LinkRow | null> {
  const [row] = await tx.select().from(dashboardUserTokens)
    .where(and(eq(dashboardUserTokens.tokenHash, tokenHash),
      eq(dashboardUserTokens.purpose, purpose)))
    .limit(1);
  return row ?? null;
}

// Marks the link used if it still can be: unused and unexpired at the database's clock. One
// statement, so two posts of the same link cannot both use it.
export async function useLink(tx: Executor, tokenHash: string, purpose: LinkPurpose):
  Promise<LinkRow | null> {
  const [row] = await tx.update(dashboardUserTokens).set({ usedAt: sql`now()` })
    .where(and(eq(dashboardUserTokens.tokenHash, tokenHash),
      eq(dashboardUserTokens.purpose, purpose), isNull(dashboardUserTokens.usedAt),
      gt(dashboardUserTokens.expiresAt, sql`now()`)))
    .returning();
  return row ?? null;
}

// The account's invitations that can still be accepted, oldest first.
export async function listOpenInvitations(tx: Executor, accountId: string): Promise<LinkRow[]> {
  return tx.select().from(dashboardUserTokens)
    .where(and(eq(dashboardUserTokens.accountId, accountId),
      eq(dashboardUserTokens.purpose, 'invitation'), isNull(dashboardUserTokens.usedAt),
      gt(dashboardUserTokens.expiresAt, sql`now()`)))
    .orderBy(asc(dashboardUserTokens.createdAt));
}

// Withdraws the account's open invitations to an email (a new one replaces them, or the admin
// cancels them); answers how many there were.
export async function deleteOpenInvitations(tx: Executor, accountId: string, email: string) {
  const rows = await tx.delete(dashboardUserTokens)
    .where(and(eq(dashboardUserTokens.accountId, accountId),
      eq(dashboardUserTokens.purpose, 'invitation'), isNull(dashboardUserTokens.usedAt),
      sql`lower(${dashboardUserTokens.email}) = lower(${email})`))
    .returning({ tokenHash: dashboardUserTokens.tokenHash });
  return rows.length;
}

// Every reset link of a user not used yet: a newer link, or a password set by any link, makes
// the older ones worthless.
export async function deleteOpenResets(tx: Executor, userId: string) {
  await tx.delete(dashboardUserTokens)
    .where(and(eq(dashboardUserTokens.userId, userId),
      eq(dashboardUserTokens.purpose, 'password_reset'), isNull(dashboardUserTokens.usedAt)));
}

// Links used or expired more than a day ago: nothing opens them, so they go when new links are
// made (the table stays the size of what is still open).
export async function deleteStaleLinks(tx: Executor) {
  await tx.delete(dashboardUserTokens)
    .where(sql`coalesce(${dashboardUserTokens.usedAt}, ${dashboardUserTokens.expiresAt})
      < now() - interval '1 day'`);
}
