import { and, asc, eq, gt, gte, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import { insertJsonRows } from '../../platform/db/json-rows.ts';
import { numberedSql } from '../../platform/db/numbered-sql.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import type { Scope } from '../../platform/scope.ts';
import { createStepQueue } from '../../platform/step-queue.ts';
import {
  cashReceipts,
  type CashReceiptKind,
  type CashReceiptStatus,
  type CashReceiptStep,
} from './tables.ts';

// SQL of the cash-receipts area. Every function takes the executor first and never opens a
// transaction; reads for a caller filter by its account and environment.

export type CashReceiptRow = typeof cashReceipts.$inferSelect;
export type NewCashReceiptRow = typeof cashReceipts.$inferInsert;

const inScope = (scope: Scope) => and(eq(cashReceipts.accountId, scope.accountId),
  eq(cashReceipts.environment, scope.environment));

export function scopeOfRow(row: CashReceiptRow): Scope {
  return { accountId: row.accountId, environment: row.environment as Scope['environment'] };
}

// A receipt's row with its approval step, due at `approvalDueAt`.
export async function insertReceipt(tx: Executor, row: NewCashReceiptRow, approvalDueAt: Date):
  Promise<void> {
  await insertReceipts(tx, [row], approvalDueAt);
}

// The receipts of an acceptance batch and their approval steps, in one statement: the rows as
// one parameter (platform/db/json-rows.ts), the steps made from what was inserted.
export async function insertReceipts(tx: Executor, rows: NewCashReceiptRow[],
  approvalDueAt: Date): Promise<void> {
  if (rows.length === 0) return;
  await executePrepared(tx, sql`with inserted as (
      ${insertJsonRows(cashReceipts, rows, { returning: 'issuance_key' })})
    insert into cash_receipt_steps (issuance_key, step, due_at)
    select issuance_key, 'APPROVAL', ${approvalDueAt.toISOString()}::timestamptz from inserted`);
}

export async function findReceipt(tx: Executor, scope: Scope, issuanceKey: string):
  Promise<CashReceiptRow | null> {
  const [row] = await tx.select().from(cashReceipts)
    .where(and(inScope(scope), eq(cashReceipts.issuanceKey, issuanceKey))).limit(1);
  return row ?? null;
}

// Locks a receipt until the transaction ends, so cancellations of one original take turns.
export async function lockReceipt(tx: Executor, scope: Scope, issuanceKey: string):
  Promise<CashReceiptRow | null> {
  const [row] = await tx.select().from(cashReceipts)
    .where(and(inScope(scope), eq(cashReceipts.issuanceKey, issuanceKey))).limit(1)
    .for('update');
  return row ?? null;
}

export async function findReceiptsByKeys(tx: Executor, issuanceKeys: readonly string[]):
  Promise<CashReceiptRow[]> {
  if (issuanceKeys.length === 0) return [];
  return tx.select().from(cashReceipts)
    .where(inArray(cashReceipts.issuanceKey, [...issuanceKeys]));
}

export async function findByReferenceId(tx: Executor, apiKeyId: string, referenceId: string):
  Promise<CashReceiptRow | null> {
  const [row] = await tx.select().from(cashReceipts)
    .where(and(eq(cashReceipts.apiKeyId, apiKeyId),
      eq(cashReceipts.clientReferenceId, referenceId))).limit(1);
  return row ?? null;
}

// A request one of the scope's dashboard users made with a reference id (their callers are
// `dashboard:<user id>`); the oldest when two users' forms used the same one.
export async function findDashboardByReferenceId(tx: Executor, scope: Scope,
  referenceId: string): Promise<CashReceiptRow | null> {
  const [row] = await tx.select().from(cashReceipts)
    .where(and(eq(cashReceipts.accountId, scope.accountId),
      eq(cashReceipts.environment, scope.environment),
      eq(cashReceipts.clientReferenceId, referenceId),
      sql`${cashReceipts.apiKeyId} like 'dashboard:%'`))
    .orderBy(asc(cashReceipts.sequence)).limit(1);
  return row ?? null;
}

export type ListFilters = {
  tradeDateFrom?: string | undefined;
  tradeDateTo?: string | undefined;
  status?: CashReceiptStatus | undefined;
  kind?: CashReceiptKind | undefined;
  afterSequence?: number | undefined;
};

export async function listReceipts(tx: Executor, scope: Scope, filters: ListFilters,
  limit: number): Promise<CashReceiptRow[]> {
  const conditions: Array<SQL | undefined> = [inScope(scope)];
  if (filters.tradeDateFrom) conditions.push(gte(cashReceipts.tradeDate, filters.tradeDateFrom));
  if (filters.tradeDateTo) conditions.push(lte(cashReceipts.tradeDate, filters.tradeDateTo));
  if (filters.status) conditions.push(eq(cashReceipts.status, filters.status));
  if (filters.kind) conditions.push(eq(cashReceipts.kind, filters.kind));
  if (filters.afterSequence !== undefined) {
    conditions.push(gt(cashReceipts.sequence, filters.afterSequence));
  }
  return tx.select().from(cashReceipts).where(and(...conditions))
    .orderBy(asc(cashReceipts.sequence)).limit(limit);
}

// Moves a receipt from one status to another with the given changes; null when it is no longer
// in `from` (a retried job, a racing one), so whoever loses changes nothing.
export async function transition(
  tx: Executor,
  change: { issuanceKey: string; from: CashReceiptStatus; to: CashReceiptStatus;
    changes?: Partial<Pick<CashReceiptRow, 'approvalNumber' | 'failureCode' |
      'failureMessage' | 'issuedAt' | 'transmittedAt'>> },
): Promise<CashReceiptRow | null> {
  const [row] = await tx.update(cashReceipts)
    .set({ ...change.changes, status: change.to, updatedAt: sql`now()` })
    .where(and(eq(cashReceipts.issuanceKey, change.issuanceKey),
      eq(cashReceipts.status, change.from)))
    .returning();
  return row ?? null;
}

// The worker's batch statements below run unnamed, planned on every run with the tables' sizes
// at that moment, not as prepared statements (platform/db/prepared.ts): the steps queue empties
// and fills, and a plan kept from when a table was empty turns a batch into a scan per row.

// `locked`: the receipts among the keys bound as $1 (a text array) that are still in `status`,
// locked in key order until the transaction ends: batches that overlap (a step taken twice) wait
// for each other instead of deadlocking, and the one that comes second finds nothing left to
// move. MATERIALIZED, so the rows are locked once, whatever the plan joins them with.
const lockedIn = (status: 'ACCEPTED' | 'ISSUED') => `locked as materialized (
  select c.issuance_key from cash_receipts c
   where c.issuance_key = any($1::text[]) and c.status = '${status}'
   order by c.issuance_key
     for update)`;

// Moves many ACCEPTED receipts to ISSUED, each with its own approval number, and makes their
// next step the transmission, due when given, in one statement. Answers the keys of the receipts
// moved; the others were moved already, by a worker that took the step before.
export async function approveMany(tx: Executor,
  approvals: ReadonlyArray<{ issuanceKey: string; approvalNumber: string;
    transmissionDueAt: Date }>, issuedAt: Date): Promise<Set<string>> {
  if (approvals.length === 0) return new Set();
  const { rows } = await tx.execute<{ issuance_key: string }>(numberedSql(`
    with ${lockedIn('ACCEPTED')}, moved as (
      update cash_receipts r
         set status = 'ISSUED', approval_number = given.approval_number, issued_at = $4,
             updated_at = now()
        from locked, unnest($1::text[], $2::text[], $3::timestamptz[])
               as given(issuance_key, approval_number, due_at)
       where r.issuance_key = locked.issuance_key and given.issuance_key = locked.issuance_key
      returning r.issuance_key, given.due_at
    ), stepped as (
      update cash_receipt_steps s
         set step = 'TRANSMISSION', due_at = moved.due_at, attempt_number = 1,
             leased_until = null
        from moved
       where s.issuance_key = moved.issuance_key
    )
    select issuance_key from moved`, [
    approvals.map((approval) => approval.issuanceKey),
    approvals.map((approval) => approval.approvalNumber),
    approvals.map((approval) => approval.transmissionDueAt.toISOString()),
    issuedAt.toISOString()]));
  return new Set(rows.map((row) => row.issuance_key));
}

// Moves many ISSUED receipts to TRANSMITTED and ends their steps, in one statement; answers the
// keys of the receipts moved.
export async function transmitMany(tx: Executor, issuanceKeys: readonly string[],
  transmittedAt: Date): Promise<Set<string>> {
  if (issuanceKeys.length === 0) return new Set();
  const { rows } = await tx.execute<{ issuance_key: string }>(numberedSql(`
    with ${lockedIn('ISSUED')}, moved as (
      update cash_receipts r
         set status = 'TRANSMITTED', transmitted_at = $2, updated_at = now()
        from locked
       where r.issuance_key = locked.issuance_key
      returning r.issuance_key
    ), ended as (
      delete from cash_receipt_steps s using moved where s.issuance_key = moved.issuance_key
    )
    select issuance_key from moved`, [[...issuanceKeys], transmittedAt.toISOString()]));
  return new Set(rows.map((row) => row.issuance_key));
}

// Leasing, putting off and ending steps, and the backlog, are every step queue's
// (platform/step-queue.ts).
const queue = createStepQueue<CashReceiptStep>('cash_receipt_steps');

// Ends the steps of receipts that are decided (transmitted, failed).
export const endSteps = queue.endSteps;
export const postpone = queue.postpone;
export const stepBacklogs = queue.backlogs;

export type DueReceipt = { row: CashReceiptRow; attemptNumber: number };

// Leases the receipts whose `step` is due (drizzle/0026_cash_receipt_steps_lease_plan.sql says
// how the lease is planned). The receipts come back as they were read, with their step's
// attempt.
export async function leaseDue(db: Executor, input: { step: CashReceiptStep; now: Date;
  leasedUntil: Date; limit: number }): Promise<DueReceipt[]> {
  const leased = await queue.leaseDue(db, input);
  const rows = new Map((await findReceiptsByKeys(db, leased.map((step) => step.issuanceKey)))
    .map((row) => [row.issuanceKey, row]));
  return leased.flatMap((step) => {
    const row = rows.get(step.issuanceKey);
    return row === undefined ? [] : [{ row, attemptNumber: step.attemptNumber }];
  });
}

type Amounts = { supplyCost: number; tax: number; serviceFee: number; totalAmount: number };

// Adds (or, with a negative sign, gives back) a cancellation's amounts on its original. The
// table's checks refuse a sum beyond the original; callers check first, with the row locked.
export async function addCanceled(tx: Executor, issuanceKey: string, amounts: Amounts,
  sign: 1 | -1): Promise<CashReceiptRow> {
  const [row] = await tx.update(cashReceipts).set({
    canceledSupplyCost: sql`${cashReceipts.canceledSupplyCost} + ${sign * amounts.supplyCost}`,
    canceledTax: sql`${cashReceipts.canceledTax} + ${sign * amounts.tax}`,
    canceledServiceFee: sql`${cashReceipts.canceledServiceFee} + ${sign * amounts.serviceFee}`,
    canceledAmount: sql`${cashReceipts.canceledAmount} + ${sign * amounts.totalAmount}`,
    updatedAt: sql`now()`,
  }).where(eq(cashReceipts.issuanceKey, issuanceKey)).returning();
  if (row === undefined) throw new Error(`cash receipt ${issuanceKey} vanished`);
  return row;
}

// Receipts written before identity numbers were sealed, after issuance key `after`, in key
// order: what migrateData seals.
export async function listPlaintextIdentityNumbers(tx: Executor, after: string | null,
  limit: number) {
  return tx.select({ issuanceKey: cashReceipts.issuanceKey,
    plaintext: cashReceipts.plaintextIdentityNumber }).from(cashReceipts)
    .where(and(sql`${cashReceipts.plaintextIdentityNumber} is not null`,
      after === null ? undefined : gt(cashReceipts.issuanceKey, after)))
    .orderBy(asc(cashReceipts.issuanceKey)).limit(limit);
}

// Replaces the plain number of one receipt with its sealed and masked forms, where the row still
// holds that number.
export async function sealPlaintextIdentityNumber(tx: Executor, issuanceKey: string,
  plaintext: string, sealed: { sealedIdentityNumber: string; maskedIdentityNumber: string }) {
  await tx.update(cashReceipts).set({ ...sealed, plaintextIdentityNumber: null })
    .where(and(eq(cashReceipts.issuanceKey, issuanceKey),
      eq(cashReceipts.plaintextIdentityNumber, plaintext)));
}

export async function listSealedIdentityNumbers(tx: Executor, after: string | null,
  limit: number) {
  return tx.select({ key: cashReceipts.issuanceKey,
    box: sql<string>`${cashReceipts.sealedIdentityNumber}` }).from(cashReceipts)
    .where(and(sql`${cashReceipts.sealedIdentityNumber} is not null`,
      after === null ? undefined : gt(cashReceipts.issuanceKey, after)))
    .orderBy(asc(cashReceipts.issuanceKey)).limit(limit);
}

export async function replaceSealedIdentityNumber(tx: Executor, issuanceKey: string,
  box: string, resealed: string) {
  await tx.update(cashReceipts).set({ sealedIdentityNumber: resealed })
    .where(and(eq(cashReceipts.issuanceKey, issuanceKey),
      eq(cashReceipts.sealedIdentityNumber, box)));
}

// The states of receipts by issuance key, within a scope when one is given (a bulk's receipts,
// for its counts and its completion).
export async function statusesByKeys(tx: Executor, issuanceKeys: readonly string[],
  scope?: Scope): Promise<Map<string, CashReceiptStatus>> {
  if (issuanceKeys.length === 0) return new Map();
  const rows = await tx.select({ issuanceKey: cashReceipts.issuanceKey,
    status: cashReceipts.status }).from(cashReceipts)
    .where(and(scope === undefined ? undefined : inScope(scope),
      inArray(cashReceipts.issuanceKey, [...issuanceKeys])));
  return new Map(rows.map((row) => [row.issuanceKey, row.status]));
}
