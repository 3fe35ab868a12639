import { createHash } from 'node:crypto';
import { findBank } from '../../domain/bank-codes.ts';
import { addDays, seoulDate } from '../../domain/business-days.ts';
import { deterministicId, newId } from '../../domain/ids.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import {
  cursorDate,
  cursorInteger,
  type CursorList,
  type PageCursors,
  INTEGER_COLUMN_MAX,
} from '../../platform/cursor.ts';
import type { Db, Executor } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import { notConfiguredMessage } from '../../platform/live-services.ts';
import type { StageJob } from '../../platform/jobs.ts';
import type { Scope } from '../../platform/scope.ts';
import { failureOfRow } from '../../platform/stored-failure.ts';
import type { ConnectionsService } from '../connections/index.ts';
import { matchDeposits, type MatchedTaxInvoice, type SalesByTotals } from './matching.ts';
import * as store from './store.ts';

// Bank accounts and their transactions (docs/bank-transactions.md): the accounts connected
// through BANK_ACCOUNT connections, their statement lines in booking order, and syncs that read
// the lines from the bank (sync-job.ts), on request and on the schedule (schedule.ts).

export const SYNC_QUEUE = 'bank-transactions.sync';
export const TRANSACTIONS_LIMIT_MAX = 1_000;
// A first sync reads this many days back; later ones read again from this many days before the
// last day the previous one read, which picks up the corrections banks make after booking.
const FIRST_SYNC_DAYS = 90;
const SYNC_OVERLAP_DAYS = 7;
// A sync still QUEUED or RUNNING this long after it was requested was given up by its job (every
// retry failed): it no longer holds the account's one active place, so a new one can start.
const SYNC_ABANDONED_AFTER_MS = 6 * 3_600_000;

// The start of the listing: before every booking day.
const START: readonly [string, number] = ['0001-01-01', 0];

type ServiceDeps = {
  db: Db;
  stage: StageJob;
  connections: ConnectionsService;
  // Whether syncs can reach the banks in an environment (live needs the gateway).
  bankAvailable(environment: Environment): boolean;
  // The account's sales a deposit may pay (matching.ts).
  sales: SalesByTotals;
  now: () => Date;
  cursors: PageCursors;
};

export type TransactionsQuery = { from?: string; to?: string; cursor?: string; limit: number };

// The account's id: made from the scope and the account it reaches, so it stays the same when
// the account is disconnected and connected again, and differs across accounts and
// environments.
export function bankAccountIdOf(scope: Scope, bankCode: string, accountNumber: string): string {
  const hash = createHash('sha256')
    .update([scope.accountId, scope.environment, bankCode, accountNumber].join('\u0000'))
    .digest('base64url').slice(0, 22);
  return deterministicId('bankAccount', hash);
}

// The days a sync reads: from a few days before the last day the previous sync read, or
// FIRST_SYNC_DAYS back, through today in Korea.
export function syncRange(lastSyncedThrough: string | null, now: Date) {
  const today = seoulDate(now);
  const from = lastSyncedThrough === null ? addDays(today, -FIRST_SYNC_DAYS)
    : addDays(lastSyncedThrough, -SYNC_OVERLAP_DAYS);
  return { from: from < today ? from : today, to: today };
}

// The cursors of one bank account's transactions: [booked date, sequence] of the last one read,
// opening for that bank account of the caller's scope only.
const transactionsList = (scope: Scope, bankAccountId: string): CursorList =>
  ({ list: `bankAccounts.transactions.list ${bankAccountId}`, scope });

function decodePosition(cursors: PageCursors, at: CursorList, cursor: string | undefined):
  readonly [string, number] {
  if (cursor === undefined) return START;
  // The sequence column is an integer (int4).
  return cursors.decode<[string, number]>(at, cursor,
    [cursorDate, cursorInteger(0, INTEGER_COLUMN_MAX)]);
}

const bookedAtOf = (row: { bookedDate: string; bookedTime: string | null }) =>
  (row.bookedTime === null ? row.bookedDate : `${row.bookedDate}T${row.bookedTime}+09:00`);

function toTransaction(row: store.TransactionRow, matchedTaxInvoices: MatchedTaxInvoice[]) {
  return {
    transactionId: row.id,
    bookedDate: row.bookedDate,
    bookedAt: bookedAtOf(row),
    direction: row.direction as 'DEPOSIT' | 'WITHDRAWAL',
    amount: row.amount,
    balanceAfter: row.balanceAfter,
    counterpartyName: row.counterpartyName,
    memo: row.memo,
    branch: row.branch,
    changedAt: row.changedAt.toISOString(),
    matchedTaxInvoices,
  };
}

function toSync(row: store.SyncRow) {
  return {
    syncId: row.id,
    bankAccountId: row.bankAccountId,
    trigger: row.trigger as 'REQUEST' | 'SCHEDULE',
    state: row.state as 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED',
    status: row.state as 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED',
    from: row.fromDate,
    to: row.toDate,
    counts: { listed: row.listedCount, created: row.createdCount, updated: row.updatedCount,
      unchanged: row.unchangedCount },
    failure: failureOfRow(row),
    requestedAt: row.requestedAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

type Connected = Awaited<ReturnType<ConnectionsService['listBankAccounts']>>[number];

function toAccount(id: string, connected: Connected, stored: store.BankAccountRow | undefined) {
  const { connection, bankCode } = connected;
  return {
    bankAccountId: id,
    connectionId: connection.id,
    bankCode,
    bankName: findBank(bankCode)?.nameKorean ?? null,
    accountNumber: connection.accountNumber ?? '',
    holderName: stored?.holderName ?? connection.displayName,
    currency: 'KRW' as const,
    state: connection.state,
    status: connection.state,
    failure: connection.failure,
    lastSyncedAt: stored?.lastSyncedAt?.toISOString() ?? null,
    balance: stored?.balance ?? null,
  };
}

// Queues a sync of the account, or joins the one queued or running. The partial unique index
// on the active sync makes the insert of a second one do nothing, in any process; it then waits
// for the transaction that inserted the first and finds it. Null when that one ended meanwhile.
async function queueSync(deps: ServiceDeps, tx: Executor, scope: Scope, bankAccountId: string,
  connected: Connected, trigger: 'REQUEST' | 'SCHEDULE') {
  await store.ensureBankAccount(tx, { id: bankAccountId, ...scope,
    bankCode: connected.bankCode, maskedAccountNumber: connected.connection.accountNumber ?? '',
    holderName: connected.connection.displayName });
  const id = newId('bankAccountSync');
  const inserted = await store.insertSync(tx, { id, ...scope, bankAccountId,
    connectionId: connected.connection.id, trigger, state: 'QUEUED',
    requestedAt: deps.now() });
  if (inserted !== null) {
    await deps.stage(tx, SYNC_QUEUE, { syncId: id });
    return { syncId: id, joined: false };
  }
  const active = await store.findActiveSync(tx, bankAccountId);
  if (active === null) return null;
  if (deps.now().getTime() - active.requestedAt.getTime() > SYNC_ABANDONED_AFTER_MS) {
    await store.abandonSync(tx, active.id, deps.now());
    return null;
  }
  return { syncId: active.id, joined: true };
}

// The months from `from` to `to` (`YYYY-MM`), and `extra` months after.
function monthsOf(from: string, to: string, extra = 0): string[] {
  const index = (month: string) => Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
  const months: string[] = [];
  for (let at = index(from); at <= index(to) + extra; at += 1) {
    months.push(`${Math.floor(at / 12)}-${String((at % 12) + 1).padStart(2, '0')}`);
  }
  return months;
}

// Deposits and withdrawals per month, behind the same 404 as the account's transactions.
function createMonthlyFlows(db: Db, resolve: (scope: Scope, bankAccountId: string) =>
  Promise<unknown>) {
  // Deposits and withdrawals per month of the range (`YYYY-MM`, at most 24 months), every month
  // of it with zeros where nothing was booked.
  return async function monthlyFlows(scope: Scope, bankAccountId: string,
    range: { from: string; to: string }) {
    const month = /^[0-9]{4}-(0[1-9]|1[0-2])$/;
    if (!month.test(range.from) || !month.test(range.to) || range.from > range.to) {
      throw new ApiError('INVALID_REQUEST', 'from and to are months (YYYY-MM), from first.');
    }
    const months = monthsOf(range.from, range.to);
    if (months.length > 24) throw new ApiError('INVALID_REQUEST', 'At most 24 months at once.');
    await resolve(scope, bankAccountId);
    const after = monthsOf(range.to, range.to, 1)[1]!;
    const rows = await store.monthFlows(db, scope, bankAccountId, `${range.from}-01`,
      `${after}-01`);
    return months.map((found) => rows.find((row) => row.month === found) ?? { month: found,
      deposits: 0, depositAmount: 0, withdrawals: 0, withdrawalAmount: 0 });
  };
}

export function createBankTransactionsService(deps: ServiceDeps) {
  const { db } = deps;

  async function connectedAccounts(scope: Scope) {
    return (await deps.connections.listBankAccounts(scope)).map((connected) => ({
      id: bankAccountIdOf(scope, connected.bankCode, connected.accountNumber), connected }));
  }

  // A page of the connected accounts, oldest connection first, with their last syncs.
  async function listAccounts(scope: Scope, input: { cursor?: string; limit: number }) {
    const { accounts, nextCursor, hasMore } =
      await deps.connections.listBankAccountsPage(scope, input);
    const connected = accounts.map((entry) => ({
      id: bankAccountIdOf(scope, entry.bankCode, entry.accountNumber), connected: entry }));
    const stored = new Map((await store.findBankAccounts(db, scope,
      connected.map(({ id }) => id))).map((row) => [row.id, row]));
    return { items: connected.map(({ id, connected: entry }) =>
      toAccount(id, entry, stored.get(id))), nextCursor, hasMore };
  }

  // The account's connection, or null when it was disconnected after a sync; 404 when the scope
  // never had the account.
  async function resolve(scope: Scope, bankAccountId: string) {
    const match = (await connectedAccounts(scope)).find(({ id }) => id === bankAccountId);
    if (match !== undefined) return match.connected;
    const [stored] = await store.findBankAccounts(db, scope, [bankAccountId]);
    if (stored === undefined) throw new ApiError('NOT_FOUND', 'No bank account has this id.');
    return null;
  }

  async function listTransactions(scope: Scope, bankAccountId: string,
    query: TransactionsQuery) {
    const list = transactionsList(scope, bankAccountId);
    const after = decodePosition(deps.cursors, list, query.cursor);
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      throw new ApiError('INVALID_REQUEST', 'query.from must not be after query.to.');
    }
    await resolve(scope, bankAccountId);
    const rows = await store.readTransactions(db, scope, bankAccountId,
      after === START ? null : after, query.limit + 1, query);
    const page = rows.slice(0, query.limit);
    const matches = await matchDeposits(deps.sales, scope, page);
    const last = page.at(-1);
    return {
      items: page.map((row) => toTransaction(row, matches.get(row.id) ?? [])),
      nextCursor: deps.cursors.encode(list,
        last === undefined ? after : [last.bookedDate, last.sequence]),
      hasMore: rows.length > query.limit,
    };
  }

  async function requestSync(scope: Scope, bankAccountId: string) {
    const connected = await resolve(scope, bankAccountId);
    if (connected === null) {
      throw new ApiError('CONNECTION_REQUIRED', 'The bank account was disconnected. Connect ' +
        'it again before syncing it.');
    }
    if (!deps.bankAvailable(scope.environment)) {
      throw new ApiError('SERVICE_UNAVAILABLE', notConfiguredMessage('BANK_ACCOUNTS'));
    }
    // The active sync may end between the insert that found it and the read, or be abandoned:
    // then try again.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const queued = await db.transaction((tx) =>
        queueSync(deps, tx, scope, bankAccountId, connected, 'REQUEST'));
      if (queued !== null) return queued;
    }
    throw new ApiError('SERVICE_UNAVAILABLE');
  }

  async function getSync(scope: Scope, bankAccountId: string, syncId: string) {
    const row = await store.findSync(db, scope, bankAccountId, syncId);
    if (row === null) throw new ApiError('NOT_FOUND', 'No sync of this bank account has this id.');
    return toSync(row);
  }

  const monthlyFlows = createMonthlyFlows(db, resolve);
  return { listAccounts, listTransactions, requestSync, getSync, monthlyFlows,
    queueSync: (tx: Executor, scope: Scope, bankAccountId: string, connected: Connected,
      trigger: 'REQUEST' | 'SCHEDULE') =>
      queueSync(deps, tx, scope, bankAccountId, connected, trigger) };
}

export type BankTransactionsService = ReturnType<typeof createBankTransactionsService>;
