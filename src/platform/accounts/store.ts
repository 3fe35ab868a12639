import { and, eq, isNull } from 'drizzle-orm';
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

export async function revokeKeyByHash(tx: Executor, keyHash: string): Promise<ApiKeyRow | null> {
  const [row] = await tx
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .returning();
  return row ?? null;
}

export async function updatePlan(tx: Executor, accountId: string, plan: string) {
  const [row] = await tx.update(accounts).set({ plan }).where(eq(accounts.id, accountId))
    .returning();
  return row ?? null;
}
