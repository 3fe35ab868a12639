import { sql } from 'drizzle-orm';
import { check, index, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, timestampTz } from '../../../platform/db/columns.ts';
import { taxInvoices } from '../tables.ts';

// One-time links to the approval page of a reverse issuance request (docs/reverse-issuance.md §
// Approval links). The token is the link's only credential, so only its SHA-256 is stored. A
// GRANT link comes from GET …/issueRequest/grant and lives ten minutes; an EMAIL link is sent to
// the supplier with the request and lives until the end of the issue deadline in Seoul. Either
// is used up by the decision posted with it.

export type ApprovalChannel = 'GRANT' | 'EMAIL';

export const taxInvoiceApprovalTokens = pgTable(
  'tax_invoice_approval_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    issuanceKey: text('issuance_key').notNull().references(() => taxInvoices.issuanceKey),
    channel: text('channel').$type<ApprovalChannel>().notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    usedAt: timestampTz('used_at'),
    createdAt: createdAt(),
  },
  (table) => [
    index('tax_invoice_approval_tokens_invoice_idx').on(table.issuanceKey),
    check('tax_invoice_approval_tokens_channel_known',
      sql`${table.channel} in ('GRANT', 'EMAIL')`),
    check('tax_invoice_approval_tokens_hash', sql`${table.tokenHash} ~ '^[0-9a-f]{64}$'`),
  ],
);
