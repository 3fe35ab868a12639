import { and, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/connect.ts';
import { accounts, apiKeys } from '../db/tables.ts';

type AccountRow = typeof accounts.$inferSelect;
type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertAccount(tx: Executor, row: typeof accounts.$inferInsert) {
  const [inserted] = await tx.insert(accounts).values(row).returning();
  return inserted ?? null;
}

export async function findAccount(tx: Executor, accountId: string): Promise<AccountRow | null> {
  const [row] = await tx.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  return row ?? null;
}

export async function insertApiKey(tx: Executor, row: typeof apiKeys.$inferInsert) {
  const [inserted] = await tx.insert(apiKeys).values(row).returning();
  return inserted ?? null;
}

type ActiveKey = {
  keyId: string;
  accountId: string;
  environment: string;
  plan: string;
};

// The one query authentication makes, on a cache miss only.
export async function findActiveKeyByHash(
  tx: Executor,
  keyHash: string,
): Promise<ActiveKey | null> {
  const [row] = await tx
    .select({
      keyId: apiKeys.id,
      accountId: apiKeys.accountId,
      environment: apiKeys.environment,
      plan: accounts.plan,
    })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row ?? null;
}

export async function revokeKeyByHash(tx: Executor, keyHash: string, at: Date):
  Promise<ApiKeyRow | null> {
  const [row] = await tx
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .returning();
  return row ?? null;
}

export type KeyListRow = Pick<ApiKeyRow, 'id' | 'redacted' | 'label' | 'createdAt' |
  'revokedAt' | 'lastUsedAt'>;

// Every key of one account's environment, newest first.
export async function listKeys(tx: Executor, scope: { accountId: string; environment: string }):
  Promise<KeyListRow[]> {
  return tx.select({ id: apiKeys.id, redacted: apiKeys.redacted, label: apiKeys.label,
    createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt, lastUsedAt: apiKeys.lastUsedAt })
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, scope.accountId), eq(apiKeys.environment, scope.environment)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

// Revokes a key of one account's environment by its id; null when there is no such active key
// there (another account's key is no different from a missing one).
export async function revokeKeyById(
  tx: Executor,
  scope: { accountId: string; environment: string },
  keyId: string,
  at: Date,
): Promise<ApiKeyRow | null> {
  const [row] = await tx
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, scope.accountId),
      eq(apiKeys.environment, scope.environment), isNull(apiKeys.revokedAt)))
    .returning();
  return row ?? null;
}

// Records that a key authenticated a request, at most once a minute per key.
export async function touchLastUsed(tx: Executor, keyId: string): Promise<void> {
  await tx.update(apiKeys).set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt),
      lt(apiKeys.lastUsedAt, sql`now() - interval '1 minute'`))));
}

// The newest accounts first, for the operator's list.
export async function listAccounts(tx: Executor, limit: number): Promise<AccountRow[]> {
  return tx.select().from(accounts).orderBy(desc(accounts.createdAt), desc(accounts.id))
    .limit(limit);
}

export async function updatePlan(tx: Executor, accountId: string, plan: string) {
  const [row] = await tx.update(accounts).set({ plan }).where(eq(accounts.id, accountId))
    .returning();
  return row ?? null;
}
