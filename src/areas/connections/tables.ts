import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, timestampTz, updatedAt } from '../../platform/db/columns.ts';

// Tables of connections (docs/connections.md). Every row carries the account and environment it
// belongs to, and every read filters by both. Credentials live only in `sealed_credentials`,
// sealed with the encryption key and the connection id as context; no other column holds them,
// nor a bank account's whole number.

export const connections = pgTable(
  'connections',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    // HOMETAX (the tax portal) or BANK_ACCOUNT.
    kind: text('kind').notNull(),
    // What the connection reaches, one connection per subject: the business registration number
    // for HOMETAX; for BANK_ACCOUNT the bank code and the account number's keyed digest,
    // `004:d1.…` (the number itself is only in the sealed credentials; docs/connections.md).
    subject: text('subject').notNull(),
    // BANK_ACCOUNT: the account number with all but its last four digits masked, for display.
    maskedAccountNumber: text('masked_account_number'),
    // HOMETAX: PASSWORD or CERTIFICATE; BANK_ACCOUNT: PASSWORD.
    method: text('method').notNull(),
    // The business or holder name the outside system answered the login with.
    displayName: text('display_name'),
    state: text('state').notNull(),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    sealedCredentials: text('sealed_credentials').notNull(),
    connectedAt: timestampTz('connected_at'),
    lastSyncedAt: timestampTz('last_synced_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    // One connection per thing reached: connecting it again replaces the credentials.
    uniqueIndex('connections_scope_subject_unique')
      .on(table.accountId, table.environment, table.kind, table.subject),
    // Purchases issued through etax reach the accounts connected to the recipient's business.
    index('connections_subject_idx').on(table.environment, table.kind, table.subject),
    check('connections_environment_known', sql`${table.environment} in ('test', 'live')`),
    check('connections_kind_known', sql`${table.kind} in ('HOMETAX', 'BANK_ACCOUNT')`),
    check('connections_method_known', sql`${table.method} in ('PASSWORD', 'CERTIFICATE')`),
    check('connections_state_known',
      sql`${table.state} in ('CONNECTED', 'FAILED', 'EXPIRED')`),
  ],
);

// One-time links to the hosted connection page: only the token's SHA-256 is stored.
export const connectionLinks = pgTable(
  'connection_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    kind: text('kind').notNull(),
    expiresAt: timestampTz('expires_at').notNull(),
    usedAt: timestampTz('used_at'),
    // Failed logins through the link; at LINK_FAILED_LOGINS_MAX (login-limits.ts) it is spent.
    failedLogins: integer('failed_logins').notNull().default(0),
    createdAt: createdAt(),
  },
  (table) => [
    index('connection_links_expires_idx').on(table.expiresAt),
    check('connection_links_kind_known', sql`${table.kind} in ('HOMETAX', 'BANK_ACCOUNT')`),
  ],
);
