import { and, eq, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import { dashboardAccountSettings, dashboardUsers } from '../tables.ts';

// The second factor's columns of dashboard_users, and the account's requirement.

export async function findSecrets(tx: Executor, userId: string) {
  const [row] = await tx.select({ secret: dashboardUsers.totpSecret,
    pending: dashboardUsers.totpPendingSecret, lastStep: dashboardUsers.totpLastStep,
    recoveryCodes: sql<number>`cardinality(${dashboardUsers.recoveryCodeHashes})` })
    .from(dashboardUsers).where(eq(dashboardUsers.id, userId)).limit(1);
  return row ?? null;
}

export async function setPendingSecret(tx: Executor, userId: string, sealed: string) {
  await tx.update(dashboardUsers).set({ totpPendingSecret: sealed })
    .where(and(eq(dashboardUsers.id, userId), isNull(dashboardUsers.totpSecret)));
}

// Turns the pending secret on, with its recovery codes and the step of the code that confirmed
// it; false when there was no pending secret (or it changed meanwhile).
export async function enable(tx: Executor, userId: string, pendingSealed: string, step: number,
  recoveryCodeHashes: string[]) {
  const rows = await tx.update(dashboardUsers).set({ totpSecret: pendingSealed,
    totpPendingSecret: null, totpLastStep: step, recoveryCodeHashes })
    .where(and(eq(dashboardUsers.id, userId), eq(dashboardUsers.totpPendingSecret, pendingSealed),
      isNull(dashboardUsers.totpSecret)))
    .returning({ id: dashboardUsers.id });
  return rows.length > 0;
}

export async function disable(tx: Executor, userId: string) {
  const rows = await tx.update(dashboardUsers).set({ totpSecret: null, totpPendingSecret: null,
    totpLastStep: null, recoveryCodeHashes: sql`'{}'::text[]` })
    .where(and(eq(dashboardUsers.id, userId), isNotNull(dashboardUsers.totpSecret)))
    .returning({ id: dashboardUsers.id });
  return rows.length > 0;
}

// Records that a code of `step` was used, unless one of this step or a later one was: a code is
// accepted once, even by two sign-ins at the same moment.
export async function claimStep(tx: Executor, userId: string, step: number) {
  const rows = await tx.update(dashboardUsers).set({ totpLastStep: step })
    .where(and(eq(dashboardUsers.id, userId), isNotNull(dashboardUsers.totpSecret),
      or(isNull(dashboardUsers.totpLastStep), lt(dashboardUsers.totpLastStep, step))))
    .returning({ id: dashboardUsers.id });
  return rows.length > 0;
}

// Uses up a recovery code; false when the user has no such code left.
export async function useRecoveryCode(tx: Executor, userId: string, codeHash: string) {
  const rows = await tx.update(dashboardUsers)
    .set({ recoveryCodeHashes:
      sql`array_remove(${dashboardUsers.recoveryCodeHashes}, ${codeHash})` })
    .where(and(eq(dashboardUsers.id, userId),
      sql`${codeHash} = any(${dashboardUsers.recoveryCodeHashes})`))
    .returning({ id: dashboardUsers.id });
  return rows.length > 0;
}

export async function setRequired(tx: Executor, accountId: string, required: boolean) {
  await tx.insert(dashboardAccountSettings).values({ accountId, twoFactorRequired: required })
    .onConflictDoUpdate({ target: dashboardAccountSettings.accountId,
      set: { twoFactorRequired: required } });
}

// The sealed secrets, in user id order after `afterId`, for `etax reseal`.
export async function sealedSecrets(tx: Executor, afterId: string | null, limit: number) {
  return tx.select({ key: dashboardUsers.id, box: dashboardUsers.totpSecret })
    .from(dashboardUsers)
    .where(and(isNotNull(dashboardUsers.totpSecret),
      afterId === null ? undefined : gt(dashboardUsers.id, afterId)))
    .orderBy(dashboardUsers.id).limit(limit);
}

export async function replaceSecret(tx: Executor, userId: string, box: string, resealed: string) {
  await tx.update(dashboardUsers).set({ totpSecret: resealed })
    .where(and(eq(dashboardUsers.id, userId), eq(dashboardUsers.totpSecret, box)));
}
