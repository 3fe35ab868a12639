import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db, Executor } from '../../platform/db/connect.ts';
import type { EventInput } from '../../platform/event-catalogue.ts';
import type { RecordEvents } from '../../platform/events.ts';
import type { JobDefinition } from '../../platform/jobs.ts';
import type { Scope } from '../../platform/scope.ts';
import type {
  BankAccountPortal,
  BankStatementLine,
} from '../../upstream/bank-accounts/index.ts';
import {
  pullJobDefinition,
  runPull,
  type ConnectionsService,
  type Pull,
} from '../connections/index.ts';
import { SYNC_QUEUE, syncRange } from './service.ts';
import * as store from './store.ts';

// The sync job (docs/bank-transactions.md § Syncs): logs in to the bank with the connection's
// credentials, lists the lines of the sync's days and records them with set-based upserts, then
// announces what it found. Everything a sync records, its end and its events commit in one
// transaction: a job that dies midway is run again by pg-boss and starts over, and the
// BANK_TRANSACTION_CREATED events name exactly the transactions the sync that committed created.

const UPSERT_BATCH_ROWS = 1_000;
const CREATED_IDS_PER_EVENT = 100;

type JobDeps = {
  db: Db;
  connections: ConnectionsService;
  bankFor(environment: Environment): BankAccountPortal | null;
  recordEvents: RecordEvents;
  timeoutMs: number;
  now: () => Date;
  log: Logger;
};

// The last listing of a (day, sequence) wins: a bank that lists a line twice in one answer
// describes one line.
function distinctLines(lines: readonly BankStatementLine[]) {
  const byKey = new Map<string, BankStatementLine>();
  for (const line of lines) byKey.set(`${line.bookedDate}:${line.sequence}`, line);
  return [...byKey.values()];
}

// Ends the sync FAILED and announces it; a failure the bank answered marks the connection
// FAILED too (an unreachable bank says nothing about the credentials).
async function failSync(deps: JobDeps, row: store.SyncRow, code: string, message: string,
  connectionFailed: boolean) {
  const scope = { accountId: row.accountId, environment: row.environment as Environment };
  await deps.db.transaction(async (tx) => {
    await store.updateSync(tx, row.id, { state: 'FAILED', failureCode: code,
      failureMessage: message, finishedAt: deps.now() });
    if (connectionFailed) {
      await deps.connections.recordSync(tx, row.connectionId, { state: 'FAILED',
        failureCode: code, failureMessage: message });
    }
    await deps.recordEvents(tx, [{ scope, event: { type: 'BANK_ACCOUNT_SYNC_FAILED',
      data: { bankAccountId: row.bankAccountId, syncId: row.id,
        cause: { code, message } } } }]);
  });
  deps.log.info({ syncId: row.id, code }, 'bank account sync failed');
}

// Upserts the lines a batch at a time, in the caller's transaction.
async function recordLines(deps: JobDeps, tx: Executor, scope: Scope, row: store.SyncRow,
  lines: readonly BankStatementLine[]) {
  const totals = { created: 0, updated: 0, unchanged: 0, createdIds: [] as string[] };
  for (let start = 0; start < lines.length; start += UPSERT_BATCH_ROWS) {
    const counts = await store.upsertLines(tx, scope, row.bankAccountId,
      lines.slice(start, start + UPSERT_BATCH_ROWS), deps.now());
    totals.created += counts.created;
    totals.updated += counts.updated;
    totals.unchanged += counts.unchanged;
    totals.createdIds.push(...counts.createdIds);
  }
  return totals;
}

// The bank's listing, with the days the sync asked for.
type Listed = Extract<Awaited<ReturnType<BankAccountPortal['transactions']>>,
  { kind: 'listed' }> & { range: ReturnType<typeof syncRange> };

// Records what the bank listed, ends the sync SUCCEEDED and announces it, in one transaction.
async function finishSync(deps: JobDeps, row: store.SyncRow, scope: Scope, answer: Listed) {
  const lines = distinctLines(answer.lines)
    .sort((a, b) => (a.bookedDate < b.bookedDate ? -1 : a.bookedDate > b.bookedDate ? 1
      : a.sequence - b.sequence));
  const counts = await deps.db.transaction(async (tx) => {
    const totals = await recordLines(deps, tx, scope, row, lines);
    const syncedAt = deps.now();
    await store.updateSync(tx, row.id, { state: 'SUCCEEDED', listedCount: lines.length,
      createdCount: totals.created, updatedCount: totals.updated,
      unchangedCount: totals.unchanged, finishedAt: syncedAt });
    await store.recordBalance(tx, row.bankAccountId, { holderName: answer.holderName,
      balance: answer.balance, syncedAt, syncedThrough: answer.range.to });
    await deps.connections.recordSync(tx, row.connectionId, { syncedAt });
    const events: EventInput[] = [{ type: 'BANK_ACCOUNT_SYNCED', data: {
      bankAccountId: row.bankAccountId, syncId: row.id, counts: { listed: lines.length,
        created: totals.created, updated: totals.updated, unchanged: totals.unchanged } } }];
    for (let start = 0; start < totals.createdIds.length; start += CREATED_IDS_PER_EVENT) {
      events.push({ type: 'BANK_TRANSACTION_CREATED', data: {
        bankAccountId: row.bankAccountId, syncId: row.id,
        transactionIds: totals.createdIds.slice(start, start + CREATED_IDS_PER_EVENT) } });
    }
    await deps.recordEvents(tx, events.map((event) => ({ scope, event })));
    return totals;
  });
  deps.log.info({ syncId: row.id, listed: lines.length, created: counts.created,
    updated: counts.updated, unchanged: counts.unchanged }, 'bank account sync finished');
}

const BANK_UNAVAILABLE = { code: 'BANK_UNAVAILABLE',
  message: 'The bank could not be reached. Request the sync again later.' };

export function createSyncRunner(deps: JobDeps) {
  const pull: Pull<store.SyncRow, 'BANK_ACCOUNT', Listed> = {
    kind: 'BANK_ACCOUNT',
    find: (id) => store.findSyncById(deps.db, id),
    async fetch(row, scope, credentials) {
      const bank = deps.bankFor(scope.environment);
      if (bank === null) return { kind: 'unavailable' };
      const [account] = await store.findBankAccounts(deps.db, scope, [row.bankAccountId]);
      const range = syncRange(account?.lastSyncedThrough ?? null, deps.now());
      await store.updateSync(deps.db, row.id, { state: 'RUNNING', startedAt: deps.now(),
        fromDate: range.from, toDate: range.to });
      const answer = await bank.transactions(credentials.bank, range,
        AbortSignal.timeout(deps.timeoutMs));
      return answer.kind === 'listed' ? { ...answer, range } : answer;
    },
    record: (row, scope, answer) => finishSync(deps, row, scope, answer),
    fail: (row, _scope, failure) => failSync(deps, row, failure.code, failure.message,
      failure.connectionFailed),
    removedMessage: 'The bank account was disconnected before the sync ran.',
    unavailable: BANK_UNAVAILABLE,
  };
  return { run: (syncId: string) => runPull(deps.connections, pull, syncId) };
}

export function syncJobDefinition(runner: ReturnType<typeof createSyncRunner>,
  timeoutMs: number): JobDefinition<{ syncId: string }> {
  return pullJobDefinition({ queue: SYNC_QUEUE, timeoutMs,
    run: (data: { syncId: string }) => runner.run(data.syncId) });
}
