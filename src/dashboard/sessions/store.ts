import { and, desc, eq, ne, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../platform/db/connect.ts';
import { accounts } from '../../platform/db/tables.ts';
import { dashboardAccountSettings, dashboardSessions, dashboardUsers } from '../tables.ts';


export async function insertSession(tx: Executor, row: typeof dashboardSessions.$inferInsert) {
  await tx.insert(dashboardSessions).values(row);
}

// The session of a token hash with its user, while neither its idle nor its absolute lifetime
// has ended.
// A session waiting for its second factor is found only with `pending` (the code's page).
// The account an operator's session looks at read-only.
const viewedAccounts = alias(accounts, 'viewed_accounts');

export async function findLiveSession(tx: Executor, tokenHash: string,
  limits: { idleSeconds: number; absoluteSeconds: number }, pending = false) {
  // The account's name and plan come with it: every page shows them, and one round trip per
  // page is cheaper than two on a loaded database. So does the account an operator looks at.
  const [row] = await tx.select({ session: dashboardSessions, user: dashboardUsers,
    account: { name: accounts.name, plan: accounts.plan },
    viewed: { id: viewedAccounts.id, name: viewedAccounts.name, plan: viewedAccounts.plan },
    twoFactorRequired:
      sql<boolean>`coalesce(${dashboardAccountSettings.twoFactorRequired}, false)` })
    .from(dashboardSessions)
    .innerJoin(dashboardUsers, eq(dashboardUsers.id, dashboardSessions.userId))
    .innerJoin(accounts, eq(accounts.id, dashboardUsers.accountId))
    .leftJoin(viewedAccounts, eq(viewedAccounts.id, dashboardSessions.viewingAccountId))
    .leftJoin(dashboardAccountSettings,
      eq(dashboardAccountSettings.accountId, dashboardUsers.accountId))
    .where(and(eq(dashboardSessions.tokenHash, tokenHash),
      eq(dashboardSessions.secondFactorPending, pending),
      sql`${dashboardSessions.lastSeenAt}
        > now() - make_interval(secs => ${limits.idleSeconds})`,
      sql`${dashboardSessions.createdAt}
        > now() - make_interval(secs => ${limits.absoluteSeconds})`))
    .limit(1);
  return row ?? null;
}

export async function touchSession(tx: Executor, sessionId: string) {
  await tx.update(dashboardSessions).set({ lastSeenAt: sql`now()` })
    .where(eq(dashboardSessions.id, sessionId));
}

export async function updateEnvironment(tx: Executor, sessionId: string, environment: string) {
  await tx.update(dashboardSessions).set({ environment })
    .where(eq(dashboardSessions.id, sessionId));
}

export async function updateViewing(tx: Executor, sessionId: string,
  accountId: string | null) {
  await tx.update(dashboardSessions).set({ viewingAccountId: accountId })
    .where(eq(dashboardSessions.id, sessionId));
}

export async function putShownOnce(tx: Executor, sessionId: string, sealed: string) {
  await tx.update(dashboardSessions).set({ shownOnce: sealed })
    .where(eq(dashboardSessions.id, sessionId));
}

// Takes the session's secret to show once out, in one statement: of two requests at the same
// moment, one gets it.
export async function takeShownOnce(tx: Executor, sessionId: string): Promise<string | null> {
  const result = await tx.execute(sql`update ${dashboardSessions} as s set shown_once = null
    from (select id, shown_once from ${dashboardSessions} where id = ${sessionId}
      and shown_once is not null for update) as old
    where s.id = old.id returning old.shown_once as sealed`);
  const [row] = result.rows as Array<{ sealed: string }>;
  return row?.sealed ?? null;
}

export async function deleteByTokenHash(tx: Executor, tokenHash: string) {
  await tx.delete(dashboardSessions).where(eq(dashboardSessions.tokenHash, tokenHash));
}

// Ends one session of a user by its id; false when the user has no such session.
export async function deleteUserSession(tx: Executor, userId: string, sessionId: string) {
  const rows = await tx.delete(dashboardSessions)
    .where(and(eq(dashboardSessions.userId, userId), eq(dashboardSessions.id, sessionId)))
    .returning({ id: dashboardSessions.id });
  return rows.length > 0;
}

// Ends every session of a user, but the one kept (if any); answers how many ended.
export async function deleteUserSessions(tx: Executor, userId: string, keepSessionId?: string) {
  const rows = await tx.delete(dashboardSessions)
    .where(and(eq(dashboardSessions.userId, userId),
      keepSessionId === undefined ? undefined : ne(dashboardSessions.id, keepSessionId)))
    .returning({ id: dashboardSessions.id });
  return rows.length;
}

export async function listUserSessions(tx: Executor, userId: string) {
  return tx.select().from(dashboardSessions).where(eq(dashboardSessions.userId, userId))
    .orderBy(desc(dashboardSessions.lastSeenAt));
}

// Removes a user's sessions past their absolute lifetime or idle for longer than theirs (they
// are refused already; this keeps the table from growing with them).
export async function deleteEndedSessions(tx: Executor, userId: string,
  limits: { idleSeconds: number; absoluteSeconds: number }) {
  await tx.delete(dashboardSessions).where(and(eq(dashboardSessions.userId, userId),
    sql`(${dashboardSessions.lastSeenAt} <= now() - make_interval(secs => ${limits.idleSeconds})
      or ${dashboardSessions.createdAt}
        <= now() - make_interval(secs => ${limits.absoluteSeconds}))`));
}
