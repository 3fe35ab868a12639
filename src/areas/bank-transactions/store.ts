import { createHash } from 'node:crypto';
import { and, asc, desc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import { newId } from '../../domain/ids.ts';
import type { Executor } from '../../platform/db/connect.ts';
import type { Scope } from '../../platform/scope.ts';
import type { BankStatementLine } from '../../upstream/bank-accounts/index.ts';
import { bankAccounts, bankAccountSyncs as syncs, bankTransactions as lines } from './tables.ts';

export type BankAccountRow = typeof bankAccounts.$inferSelect;
export type TransactionRow = typeof lines.$inferSelect;
export type SyncRow = typeof syncs.$inferSelect;

export type UpsertCounts = { created: number; updated: number; unchanged: number;
  createdIds: string[] };

// Bank accounts.

export async function findBankAccounts(tx: Executor, scope: Scope, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return tx.select().from(bankAccounts)
    .where(and(eq(bankAccounts.accountId, scope.accountId),
      eq(bankAccounts.environment, scope.environment), inArray(bankAccounts.id, [...ids])));
}

export async function ensureBankAccount(tx: Executor, row: typeof bankAccounts.$inferInsert) {
  await tx.insert(bankAccounts).values(row).onConflictDoNothing();
}

export async function recordBalance(tx: Executor, id: string, change: { holderName: string;
  balance: number; syncedAt: Date; syncedThrough: string }) {
  await tx.update(bankAccounts).set({ holderName: change.holderName, balance: change.balance,
    lastSyncedAt: change.syncedAt, lastSyncedThrough: change.syncedThrough })
    .where(eq(bankAccounts.id, id));
}

// Transactions.

function contentHash(line: BankStatementLine): string {
  return createHash('sha256').update(JSON.stringify([line.bookedTime, line.direction,
    line.amount, line.balanceAfter, line.counterpartyName, line.memo, line.branch]))
    .digest('hex');
}

// Records statement lines of one account in one statement: a new line is inserted, a line whose
// content changed is updated in place (its id stays), a line the same as stored is left alone.
// Lines must have distinct (bookedDate, sequence).
export async function upsertLines(tx: Executor, scope: Scope, bankAccountId: string,
  batch: readonly BankStatementLine[], changedAt: Date): Promise<UpsertCounts> {
  if (batch.length === 0) return { created: 0, updated: 0, unchanged: 0, createdIds: [] };
  const rows = batch.map((line) => ({ id: newId('bankTransaction'), bankAccountId, ...scope,
    bookedDate: line.bookedDate, sequence: line.sequence, bookedTime: line.bookedTime,
    direction: line.direction, amount: line.amount, balanceAfter: line.balanceAfter,
    counterpartyName: line.counterpartyName, memo: line.memo, branch: line.branch,
    contentHash: contentHash(line), changedAt }));
  // `xmax = 0` holds for a row this statement inserted; an updated row has its xmax set. Rows
  // whose hash is the same are neither and are not returned.
  const written = await tx.insert(lines).values(rows)
    .onConflictDoUpdate({
      target: [lines.bankAccountId, lines.bookedDate, lines.sequence],
      set: { bookedTime: sql`excluded.booked_time`, direction: sql`excluded.direction`,
        amount: sql`excluded.amount`, balanceAfter: sql`excluded.balance_after`,
        counterpartyName: sql`excluded.counterparty_name`, memo: sql`excluded.memo`,
        branch: sql`excluded.branch`, contentHash: sql`excluded.content_hash`,
        changedAt: sql`excluded.changed_at` },
      setWhere: sql`${lines.contentHash} <> excluded.content_hash`,
    })
    .returning({ id: lines.id, inserted: sql<boolean>`(xmax = 0)` });
  const inserted = new Set(written.filter((row) => row.inserted).map((row) => row.id));
  // In the order of the batch, which is booking order.
  const createdIds = rows.filter((row) => inserted.has(row.id)).map((row) => row.id);
  return { created: createdIds.length, updated: written.length - createdIds.length,
    unchanged: batch.length - written.length, createdIds };
}

export type TransactionFilter = { from?: string; to?: string };

// The account's transactions after position `after` ([bookedDate, sequence]), in booking order.
export async function readTransactions(tx: Executor, scope: Scope, bankAccountId: string,
  after: readonly [string, number] | null, limit: number, filter: TransactionFilter) {
  return tx.select().from(lines)
    .where(and(eq(lines.bankAccountId, bankAccountId), eq(lines.accountId, scope.accountId),
      eq(lines.environment, scope.environment),
      after === null ? undefined
        : sql`(${lines.bookedDate}, ${lines.sequence}) > (${after[0]}::date, ${after[1]}::int)`,
      filter.from === undefined ? undefined : gte(lines.bookedDate, filter.from),
      filter.to === undefined ? undefined : lte(lines.bookedDate, filter.to)))
    .orderBy(asc(lines.bookedDate), asc(lines.sequence))
    .limit(limit);
}

// The account's deposits and withdrawals by month of booking, from `from` to before
// `toExclusive` (first days): counts and sums, read along the account's line index.
export type MonthFlows = { month: string; deposits: number; depositAmount: number;
  withdrawals: number; withdrawalAmount: number };

export async function monthFlows(tx: Executor, scope: Scope, bankAccountId: string,
  from: string, toExclusive: string): Promise<MonthFlows[]> {
  const month = sql<string>`to_char(${lines.bookedDate}, 'YYYY-MM')`;
  const deposit = sql`${lines.direction} = 'DEPOSIT'`;
  const rows = await tx.select({ month,
    deposits: sql<number>`(count(*) filter (where ${deposit}))::int`,
    depositAmount: sql<string>`coalesce(sum(${lines.amount}) filter (where ${deposit}), 0)`,
    withdrawals: sql<number>`(count(*) filter (where not ${deposit}))::int`,
    withdrawalAmount: sql<string>`coalesce(sum(${lines.amount}) filter (where not ${deposit}), 0)`,
  }).from(lines)
    .where(and(eq(lines.bankAccountId, bankAccountId), eq(lines.accountId, scope.accountId),
      eq(lines.environment, scope.environment), gte(lines.bookedDate, from),
      sql`${lines.bookedDate} < ${toExclusive}::date`))
    .groupBy(month).orderBy(month);
  return rows.map((row) => ({ ...row, depositAmount: Number(row.depositAmount),
    withdrawalAmount: Number(row.withdrawalAmount) }));
}

// Syncs.

export async function insertSync(tx: Executor, row: typeof syncs.$inferInsert) {
  const [inserted] = await tx.insert(syncs).values(row).onConflictDoNothing().returning();
  return inserted ?? null;
}

export async function findActiveSync(tx: Executor, bankAccountId: string) {
  const [row] = await tx.select().from(syncs)
    .where(and(eq(syncs.bankAccountId, bankAccountId),
      inArray(syncs.state, ['QUEUED', 'RUNNING']))).limit(1);
  return row ?? null;
}

// Ends a sync its job gave up on, if it is still active.
export async function abandonSync(tx: Executor, id: string, at: Date) {
  await tx.update(syncs).set({ state: 'FAILED', failureCode: 'SYNC_ABANDONED',
    failureMessage: 'The sync did not finish. Request it again.', finishedAt: at })
    .where(and(eq(syncs.id, id), inArray(syncs.state, ['QUEUED', 'RUNNING'])));
}

export async function findSync(tx: Executor, scope: Scope, bankAccountId: string, id: string) {
  const [row] = await tx.select().from(syncs)
    .where(and(eq(syncs.accountId, scope.accountId), eq(syncs.environment, scope.environment),
      eq(syncs.bankAccountId, bankAccountId), eq(syncs.id, id))).limit(1);
  return row ?? null;
}

export async function findSyncById(tx: Executor, id: string) {
  const [row] = await tx.select().from(syncs).where(eq(syncs.id, id)).limit(1);
  return row ?? null;
}

export async function updateSync(tx: Executor, id: string,
  changes: Partial<typeof syncs.$inferInsert>) {
  await tx.update(syncs).set(changes).where(eq(syncs.id, id));
}

// The latest request time of a sync of each account: the schedule syncs an account again once
// the interval has passed since.
export async function lastRequestedAt(tx: Executor, bankAccountIds: readonly string[]) {
  if (bankAccountIds.length === 0) return new Map<string, Date>();
  const rows = await tx.selectDistinctOn([syncs.bankAccountId],
    { bankAccountId: syncs.bankAccountId, requestedAt: syncs.requestedAt })
    .from(syncs).where(inArray(syncs.bankAccountId, [...bankAccountIds]))
    .orderBy(syncs.bankAccountId, desc(syncs.requestedAt));
  return new Map(rows.map((row) => [row.bankAccountId, row.requestedAt]));
}
