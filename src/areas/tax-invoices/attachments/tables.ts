import { sql } from 'drizzle-orm';
import { check, customType, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { pagingSequence, timestampTz } from '../../../platform/db/columns.ts';
import { taxInvoices } from '../tables.ts';

// The files a tax invoice carries to its recipient (docs/tax-invoices.md § Attachments), kept
// with the document like every other byte of it. They are not part of the signed XML: the mail
// carries them beside the PDF. Every row carries the account and environment of its document,
// and every read filters by both.

const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => 'bytea',
});

export const taxInvoiceAttachments = pgTable(
  'tax_invoice_attachments',
  {
    id: text('id').primaryKey(),
    issuanceKey: text('issuance_key').notNull().references(() => taxInvoices.issuanceKey),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    // The name it is served and mailed under (attachments/files.ts: keptFileName).
    fileName: text('file_name').notNull(),
    // Told by the content, never by what the client declared.
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    sha256: text('sha256').notNull(),
    content: bytea('content').notNull(),
    // From the clock of the request that added it.
    createdAt: timestampTz('created_at').notNull(),
    // The order they were added in, also within one request.
    sequence: pagingSequence(),
  },
  (table) => [
    index('tax_invoice_attachments_invoice_idx')
      .on(table.accountId, table.environment, table.issuanceKey, table.sequence),
    check('tax_invoice_attachments_environment_known',
      sql`${table.environment} in ('test', 'live')`),
    check('tax_invoice_attachments_size', sql`${table.sizeBytes} > 0
      and ${table.sizeBytes} = octet_length(${table.content})`),
  ],
);
