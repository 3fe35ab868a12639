import { sql } from 'drizzle-orm';
import {
  check, customType, index, integer, jsonb, pgTable, text, uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, pagingSequence, timestampTz, updatedAt } from '../../platform/db/columns.ts';

// Tables of the documents area (docs/documents.md). Every row carries the account and
// environment of the key that made it, and every read filters by both, so a test document does
// not exist for a live key and one account never sees another's.

const environmentKnown = (name: string, column: unknown) =>
  check(name, sql`${column} in ('test', 'live')`);

// The PDF exactly as the upstream service sent it.
const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => 'bytea',
});

// The business that owns an account's API keys in one environment: the business tax-authority
// documents are issued for. It is an issuer of the issuers area, so its joint certificate is
// registered, checked and sealed the way every issuer's is.
export const ownerBusinesses = pgTable(
  'owner_businesses',
  {
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    issuerId: text('issuer_id').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('owner_businesses_scope_unique').on(table.accountId, table.environment),
    environmentKnown('owner_businesses_environment_known', table.environment),
  ],
);

// One document request: what was asked for, where it is, and the document once issued.
export const documentIssuances = pgTable(
  'document_issuances',
  {
    issuanceKey: text('issuance_key').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    apiKeyId: text('api_key_id').notNull(),
    clientReferenceId: text('client_reference_id').notNull(),
    type: text('type').notNull(),
    // The validated request options, with the defaults filled in.
    options: jsonb('options').$type<Record<string, unknown>>().notNull(),
    // Tax-authority documents: the owner business's issuer at acceptance. Registry copies:
    // the corporation asked for.
    issuerId: text('issuer_id'),
    corporationNumber: text('corporation_number'),
    // What the document is about, as it stood at acceptance: the business and its certificate,
    // or the corporation's kind. The upstream request is made from it, so a retried job asks
    // for the same document.
    subject: jsonb('subject').$type<Record<string, unknown>>().notNull(),
    status: text('status').notNull(),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    // The points reserved at acceptance, captured when issued and released on failure.
    reservationId: text('reservation_id'),
    reservedPoints: integer('reserved_points').notNull(),
    // How many times the upstream answered "pending"; names the next check's job.
    pendingChecks: integer('pending_checks').notNull().default(0),
    issueNumber: text('issue_number'),
    pdf: bytea('pdf'),
    pdfSha256: text('pdf_sha256'),
    sequence: pagingSequence(),
    acceptedAt: timestampTz('accepted_at').notNull(),
    issuedAt: timestampTz('issued_at'),
    failedAt: timestampTz('failed_at'),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('document_issuances_scope_sequence_idx')
      .on(table.accountId, table.environment, table.sequence),
    environmentKnown('document_issuances_environment_known', table.environment),
    check('document_issuances_status_known',
      sql`${table.status} in ('ACCEPTED', 'PROCESSING', 'ISSUED', 'FAILED')`),
    check('document_issuances_issued_has_pdf',
      sql`${table.status} <> 'ISSUED' or (${table.pdf} is not null
        and ${table.pdfSha256} is not null and ${table.issueNumber} is not null
        and ${table.issuedAt} is not null)`),
  ],
);
