import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import { dashboardUsers } from '../tables.ts';

export type UserRow = typeof dashboardUsers.$inferSelect;

export async function insertUser(tx: Executor, row: typeof dashboardUsers.$inferInsert):
  Promise<UserRow | null> {
  const [inserted] = await tx.insert(dashboardUsers).values(row)
    .onConflictDoNothing().returning();
  return inserted ?? null;
}

export async function findUserByEmail(tx: Executor, email: string): Promise<UserRow | null> {
  const [row] = await tx.select().from(dashboardUsers)
    .where(sql`lower(${dashboardUsers.email}) = lower(${email})`).limit(1);
  return row ?? null;
}

export async function findUser(tx: Executor, userId: string): Promise<UserRow | null> {
  const [row] = await tx.select().from(dashboardUsers).where(eq(dashboardUsers.id, userId))
    .limit(1);
  return row ?? null;
}

// Every user, or those of one account, oldest first.
export async function listUsers(tx: Executor, accountId?: string): Promise<UserRow[]> {
  const query = tx.select().from(dashboardUsers);
  const filtered = accountId === undefined ? query
    : query.where(eq(dashboardUsers.accountId, accountId));
  return filtered.orderBy(asc(dashboardUsers.createdAt), asc(dashboardUsers.id));
}

export async function updatePasswordHash(tx: Executor, userId: string, passwordHash: string) {
  const [row] = await tx.update(dashboardUsers)
    .set({ passwordHash, passwordChangedAt: sql`now()` })
    .where(eq(dashboardUsers.id, userId)).returning({ id: dashboardUsers.id });
  return row ?? null;
}

export async function updateLocale(tx: Executor, userId: string, locale: string) {
  await tx.update(dashboardUsers).set({ locale }).where(eq(dashboardUsers.id, userId));
}

// Changes the role of a user of the account; null when the account has no such user.
export async function updateRole(tx: Executor, accountId: string, userId: string, role: string) {
  const [row] = await tx.update(dashboardUsers).set({ role })
    .where(and(eq(dashboardUsers.accountId, accountId), eq(dashboardUsers.id, userId)))
    .returning();
  return row ?? null;
}

// Removes a user of the account (their sessions and links go with them); false when the account
// has no such user.
export async function deleteUser(tx: Executor, accountId: string, userId: string) {
  const rows = await tx.delete(dashboardUsers)
    .where(and(eq(dashboardUsers.accountId, accountId), eq(dashboardUsers.id, userId)))
    .returning({ id: dashboardUsers.id });
  return rows.length > 0;
}
