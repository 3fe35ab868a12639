import { sql } from 'drizzle-orm';
import {
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, pagingSequence, timestampTz, updatedAt } from '../db/columns.ts';

// Bulk issuance (docs/bulk-issuance.md): one row per bulk request of tax invoices or cash
// receipts. The row is the bulk's reference-id claim (unique per key and kind), the answer it
// gave (`items`: each document's issuance key or error, in the order sent) and the lease of the
// process accepting it; its documents live in their area's table and decide, by their states,
// when the bulk is complete.

export type BulkKind = 'TAX_INVOICE' | 'CASH_RECEIPT';
// ACCEPTING while a process works through its items; PROCESSING once every item has its
// outcome and the accepted documents are on their way; COMPLETED once every accepted document
// reached a final state (the completion event is recorded in the same transaction).
export type BulkStatus = 'ACCEPTING' | 'PROCESSING' | 'COMPLETED';

export type BulkItemError = { status: number; code: string; message: string };
export type BulkItemOutcome = {
  index: number;
  // Null for an item that sent none (a tax invoice's own reference id is optional).
  clientReferenceId: string | null;
  issuanceKey: string | null;
  error: BulkItemError | null;
};

export const bulks = pgTable(
  'bulks',
  {
    bulkId: text('bulk_id').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    apiKeyId: text('api_key_id').notNull(),
    kind: text('kind').$type<BulkKind>().notNull(),
    // The bulk request's own Service-Client-Reference-Id and the fingerprint of its body: the
    // same reference id with the same body answers this bulk, with another body 409.
    clientReferenceId: text('client_reference_id').notNull(),
    fingerprint: text('fingerprint').notNull(),
    status: text('status').$type<BulkStatus>().notNull(),
    itemCount: integer('item_count').notNull(),
    acceptedCount: integer('accepted_count').notNull().default(0),
    refusedCount: integer('refused_count').notNull().default(0),
    // Null while ACCEPTING.
    items: jsonb('items').$type<BulkItemOutcome[]>(),
    // Until when the accepting process holds the bulk; a retry after it ran out (the process
    // died) takes the bulk over and finishes it.
    acceptingUntil: timestampTz('accepting_until'),
    // When the completion check next looks at a PROCESSING bulk; each check moves it on, so
    // checks in several processes take different bulks.
    checkAfter: timestampTz('check_after'),
    completedAt: timestampTz('completed_at'),
    // Paging order: a cursor is the last sequence of a page.
    sequence: pagingSequence(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('bulks_reference_idx').on(table.apiKeyId, table.kind, table.clientReferenceId),
    index('bulks_scope_sequence_idx')
      .on(table.accountId, table.environment, table.kind, table.sequence),
    index('bulks_processing_idx').on(table.kind, table.checkAfter)
      .where(sql`${table.status} = 'PROCESSING'`),
    check('bulks_environment_known', sql`${table.environment} in ('test', 'live')`),
    check('bulks_kind_known', sql`${table.kind} in ('TAX_INVOICE', 'CASH_RECEIPT')`),
    check('bulks_status_known',
      sql`${table.status} in ('ACCEPTING', 'PROCESSING', 'COMPLETED')`),
    check('bulks_reference_length',
      sql`char_length(${table.clientReferenceId}) between 1 and 255`),
    check('bulks_item_count', sql`${table.itemCount} between 1 and 100`),
    check('bulks_counts', sql`${table.acceptedCount} >= 0 and ${table.refusedCount} >= 0 and
      ${table.acceptedCount} + ${table.refusedCount} <= ${table.itemCount}`),
    check('bulks_items_once_accepted',
      sql`(${table.status} = 'ACCEPTING') = (${table.items} is null)`),
  ],
);

// The document each item without a reference id of its own made, written in the transaction
// that records the document: a bulk taken over from a process that died finds here what those
// items made before (an item with a reference id is found by it, as its single request would be).
export const bulkItemDocuments = pgTable(
  'bulk_item_documents',
  {
    bulkId: text('bulk_id').notNull(),
    itemIndex: integer('item_index').notNull(),
    issuanceKey: text('issuance_key').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.bulkId, table.itemIndex] }),
    check('bulk_item_documents_index', sql`${table.itemIndex} between 0 and 99`),
  ],
);
