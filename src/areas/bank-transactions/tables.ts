import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, timestampTz, won } from '../../platform/db/columns.ts';

// Tables of bank transactions (docs/bank-transactions.md). Every row carries the account and
// environment it belongs to, and every read filters by both.

// What etax keeps of a connected bank account between syncs. The id is made from the scope and
// the account it reaches (service.ts bankAccountIdOf), so the account keeps its id and its
// transactions when it is disconnected and connected again.
export const bankAccounts = pgTable(
  'bank_accounts',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    bankCode: text('bank_code').notNull(),
    // All but the last four digits masked: the full number stays in the sealed credentials.
    maskedAccountNumber: text('masked_account_number').notNull(),
    holderName: text('holder_name'),
    // The balance the bank showed at the last sync that worked.
    balance: won('balance'),
    lastSyncedAt: timestampTz('last_synced_at'),
    // The last booking day that sync read: the next sync reads again from a few days before it.
    lastSyncedThrough: date('last_synced_through', { mode: 'string' }),
    createdAt: createdAt(),
  },
  (table) => [
    index('bank_accounts_scope_idx').on(table.accountId, table.environment),
    check('bank_accounts_environment_known', sql`${table.environment} in ('test', 'live')`),
  ],
);

// One statement line. (bank_account_id, booked_date, sequence) is the line's identity: the
// bank's own order of the line within its day, which the bank keeps when it corrects a line's
// content, so a correction updates the row and twins (same amount, minute and counterparty)
// stay two rows. The same key is the listing's order.
export const bankTransactions = pgTable(
  'bank_transactions',
  {
    id: text('id').primaryKey(),
    bankAccountId: text('bank_account_id').notNull(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    bookedDate: date('booked_date', { mode: 'string' }).notNull(),
    sequence: integer('sequence').notNull(),
    // `HH:MM:SS` in Korea, when the bank gives the time.
    bookedTime: text('booked_time'),
    direction: text('direction').notNull(),
    amount: won('amount').notNull(),
    balanceAfter: won('balance_after'),
    counterpartyName: text('counterparty_name'),
    memo: text('memo'),
    branch: text('branch'),
    // SHA-256 of the line's content: a sync that finds the same content leaves the row alone.
    contentHash: text('content_hash').notNull(),
    changedAt: timestampTz('changed_at').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('bank_transactions_line_unique')
      .on(table.bankAccountId, table.bookedDate, table.sequence),
    check('bank_transactions_environment_known', sql`${table.environment} in ('test', 'live')`),
    check('bank_transactions_direction_known',
      sql`${table.direction} in ('DEPOSIT', 'WITHDRAWAL')`),
    check('bank_transactions_amount_positive', sql`${table.amount} > 0`),
  ],
);

// A sync of one bank account: requested by the API or by the schedule, run as one job.
export const bankAccountSyncs = pgTable(
  'bank_account_syncs',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    bankAccountId: text('bank_account_id').notNull(),
    connectionId: text('connection_id').notNull(),
    // REQUEST or SCHEDULE.
    trigger: text('trigger').notNull(),
    state: text('state').notNull(),
    fromDate: date('from_date', { mode: 'string' }),
    toDate: date('to_date', { mode: 'string' }),
    listedCount: integer('listed_count').notNull().default(0),
    createdCount: integer('created_count').notNull().default(0),
    updatedCount: integer('updated_count').notNull().default(0),
    unchangedCount: integer('unchanged_count').notNull().default(0),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    requestedAt: timestampTz('requested_at').notNull(),
    startedAt: timestampTz('started_at'),
    finishedAt: timestampTz('finished_at'),
  },
  (table) => [
    // One sync of an account at a time, across every process: a request while one is queued or
    // running joins it.
    uniqueIndex('bank_account_syncs_active_unique').on(table.bankAccountId)
      .where(sql`${table.state} in ('QUEUED', 'RUNNING')`),
    index('bank_account_syncs_account_idx').on(table.bankAccountId, table.requestedAt),
    check('bank_account_syncs_environment_known',
      sql`${table.environment} in ('test', 'live')`),
    check('bank_account_syncs_trigger_known', sql`${table.trigger} in ('REQUEST', 'SCHEDULE')`),
    check('bank_account_syncs_state_known',
      sql`${table.state} in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')`),
  ],
);
