import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { pagingSequence, timestampTz } from '../../platform/db/columns.ts';

// Tables of the drafts area (docs/drafts.md). A draft carries the account and environment of
// whoever made it, and every read filters by both, so a test draft does not exist for a live key
// and one account never sees another's.

export type DraftKind = 'TAX_INVOICE' | 'CASH_RECEIPT';
export type DraftStatus = 'DRAFT' | 'SUBMITTED' | 'ISSUED';

// One saved request body, issued later: a tax invoice or a cash receipt.
export const drafts = pgTable(
  'drafts',
  {
    draftId: text('draft_id').primaryKey(),
    // The order drafts were made in, for paging.
    sequence: pagingSequence(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    kind: text('kind').$type<DraftKind>().notNull(),
    status: text('status').$type<DraftStatus>().notNull(),
    // The issuer that will issue it (its Supplier-Key), once given.
    supplierKey: text('supplier_key'),
    // The issuance request's body as saved: of the right types and sizes, perhaps incomplete.
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    // Counts every change, so that an issuance issues the content it checked.
    version: integer('version').notNull().default(1),
    // Who made it and changed it last: an API key id, or `dashboard:<user id>`.
    createdBy: text('created_by').notNull(),
    updatedBy: text('updated_by').notNull(),
    // Waiting for approval since, and by whom it was submitted.
    submittedAt: timestampTz('submitted_at'),
    submittedBy: text('submitted_by'),
    // Why an approver sent it back, the last time one did.
    returnReason: text('return_reason'),
    returnedAt: timestampTz('returned_at'),
    returnedBy: text('returned_by'),
    // The document it became, who issued it and the reference id the issuance carried.
    issuanceKey: text('issuance_key'),
    issuedAt: timestampTz('issued_at'),
    issuedBy: text('issued_by'),
    issueReferenceId: text('issue_reference_id'),
    createdAt: timestampTz('created_at').notNull(),
    updatedAt: timestampTz('updated_at').notNull(),
  },
  (table) => [
    index('drafts_scope_kind_sequence_idx').on(table.accountId, table.environment, table.kind,
      table.sequence),
    check('drafts_kind_check', sql`${table.kind} in ('TAX_INVOICE', 'CASH_RECEIPT')`),
    check('drafts_status_check', sql`${table.status} in ('DRAFT', 'SUBMITTED', 'ISSUED')`),
  ],
);

// Whether an account's drafts need an approver before they are issued (docs/drafts.md §
// Approval). No row: they do not.
export const draftSettings = pgTable('draft_settings', {
  accountId: text('account_id').primaryKey(),
  approvalRequired: boolean('approval_required').notNull(),
  updatedBy: text('updated_by').notNull(),
  updatedAt: timestampTz('updated_at').notNull(),
});
