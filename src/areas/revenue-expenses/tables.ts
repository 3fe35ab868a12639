import { sql } from 'drizzle-orm';
import {
  bigint, bigserial, boolean, check, date, index, integer, pgTable, primaryKey, text, uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, timestampTz, won } from '../../platform/db/columns.ts';

// Tables of the revenue and expense books (docs/revenue-expense.md). Every row carries the
// account and environment it belongs to, and every read filters by both.

// One own tax invoice, from the account's side: a sale (we supply) or a purchase (we receive),
// issued through etax or collected from the tax portal. `change_sequence` is the position of
// its latest change in the scope's order of change (change_counters): the feed reads in it.
export const revenueExpenseInvoices = pgTable(
  'revenue_expense_invoices',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    direction: text('direction').notNull(),
    source: text('source').notNull(),
    approvalNumber: text('approval_number').notNull(),
    // The tax invoice of etax, for ISSUED_HERE.
    issuanceKey: text('issuance_key'),
    writeDate: date('write_date', { mode: 'string' }).notNull(),
    issueDate: date('issue_date', { mode: 'string' }).notNull(),
    counterpartNumber: text('counterpart_number').notNull(),
    counterpartName: text('counterpart_name').notNull(),
    supplyCost: won('supply_cost').notNull(),
    tax: won('tax').notNull(),
    totalAmount: won('total_amount').notNull(),
    taxType: text('tax_type').notNull(),
    amendmentReason: integer('amendment_reason'),
    originalApprovalNumber: text('original_approval_number'),
    status: text('status').notNull(),
    late: boolean('late').notNull(),
    // SHA-256 of what the feed shows of it: a collection that finds the same content changes
    // nothing and takes no new position.
    contentHash: text('content_hash').notNull(),
    changeSequence: bigint('change_sequence', { mode: 'number' }).notNull(),
    changedAt: timestampTz('changed_at').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('revenue_expense_invoices_identity_unique')
      .on(table.accountId, table.environment, table.direction, table.approvalNumber),
    // The feed's order; unique, so a position names one row.
    uniqueIndex('revenue_expense_invoices_feed_unique')
      .on(table.accountId, table.environment, table.changeSequence),
    index('revenue_expense_invoices_direction_feed_idx')
      .on(table.accountId, table.environment, table.direction, table.changeSequence),
    // The entries behind one month's figure of one direction, in write-date order.
    index('revenue_expense_invoices_direction_date_idx')
      .on(table.accountId, table.environment, table.direction, table.writeDate, table.id),
    check('revenue_expense_invoices_environment_known',
      sql`${table.environment} in ('test', 'live')`),
    check('revenue_expense_invoices_direction_known',
      sql`${table.direction} in ('SALES', 'PURCHASE')`),
    check('revenue_expense_invoices_source_known',
      sql`${table.source} in ('ISSUED_HERE', 'COLLECTED')`),
    check('revenue_expense_invoices_tax_type_known',
      sql`${table.taxType} in ('TAXABLE', 'ZERO_RATED', 'TAX_FREE')`),
    check('revenue_expense_invoices_total',
      sql`${table.totalAmount} = ${table.supplyCost} + ${table.tax}`),
  ],
);

// The books by month: per scope, month of write date and direction, the count and the sums of
// the invoices. Kept by triggers on revenue_expense_invoices (migration 0031), one statement per
// write of any size, in the writing transaction: the monthly page reads a year as 24 rows
// however many invoices the books hold (docs/revenue-expense.md § The books by month).
export const revenueExpenseMonthTotals = pgTable(
  'revenue_expense_month_totals',
  {
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    // The first day of the month.
    month: date('month', { mode: 'string' }).notNull(),
    direction: text('direction').notNull(),
    entries: bigint('entries', { mode: 'number' }).notNull(),
    supplyCost: won('supply_cost').notNull(),
    tax: won('tax').notNull(),
    totalAmount: won('total_amount').notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.environment, table.month,
    table.direction] })],
);

// The last change sequence handed out per account and environment. A writer takes the next
// numbers with an UPDATE of this row, which holds the row's lock until its transaction ends: the
// next writer of the scope waits, so numbers are handed out in commit order and a reader never
// sees a number while a lower one can still commit (docs/revenue-expense.md § The cursor contract).
export const revenueExpenseChangeCounters = pgTable(
  'revenue_expense_change_counters',
  {
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    lastSequence: bigint('last_sequence', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.environment] })],
);

// A collection from the tax portal: a range of months, run as one job.
export const revenueExpenseCollections = pgTable(
  'revenue_expense_collections',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    connectionId: text('connection_id').notNull(),
    fromMonth: text('from_month').notNull(),
    toMonth: text('to_month').notNull(),
    state: text('state').notNull(),
    collectedCount: integer('collected_count').notNull().default(0),
    insertedCount: integer('inserted_count').notNull().default(0),
    updatedCount: integer('updated_count').notNull().default(0),
    unchangedCount: integer('unchanged_count').notNull().default(0),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    requestedAt: createdAt(),
    startedAt: timestampTz('started_at'),
    finishedAt: timestampTz('finished_at'),
  },
  (table) => [
    // Collections of one connection never run twice at once: a second request joins the one
    // that is queued or running.
    uniqueIndex('revenue_expense_collections_active_unique').on(table.connectionId)
      .where(sql`${table.state} in ('QUEUED', 'RUNNING')`),
    index('revenue_expense_collections_connection_idx').on(table.connectionId, table.state),
    check('revenue_expense_collections_state_known',
      sql`${table.state} in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED')`),
  ],
);
