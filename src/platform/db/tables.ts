import { sql } from 'drizzle-orm';
import {
  bigint, check, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, timestampTz, updatedAt } from './columns.ts';

// The database schema of the platform. Migrations in drizzle/ are generated from this file with
// `npx drizzle-kit generate` and committed.

const points = (name: string) => bigint(name, { mode: 'number' });

export const accounts = pgTable(
  'accounts',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    plan: text('plan').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    check('accounts_plan_known', sql`${table.plan} in ('FREE', 'STANDARD', 'PREMIUM')`),
    check('accounts_name_length', sql`char_length(${table.name}) between 1 and 200`),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    environment: text('environment').notNull(),
    // SHA-256 of the whole key, hex. The key itself is never stored.
    keyHash: text('key_hash').notNull(),
    // Prefix and last four characters, for display and support.
    redacted: text('redacted').notNull(),
    // What the account calls the key (the dashboard, `etax key create --label`).
    label: text('label'),
    createdAt: createdAt(),
    revokedAt: timestampTz('revoked_at'),
    // When a request last authenticated with it, to the minute (src/platform/auth.ts).
    lastUsedAt: timestampTz('last_used_at'),
  },
  (table) => [
    uniqueIndex('api_keys_key_hash_unique').on(table.keyHash),
    index('api_keys_account_idx').on(table.accountId),
    check('api_keys_environment_known', sql`${table.environment} in ('test', 'live')`),
    check('api_keys_label_length', sql`char_length(${table.label}) between 1 and 100`),
  ],
);

export const pointBalances = pgTable(
  'point_balances',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id),
    environment: text('environment').notNull(),
    postedPoints: points('posted_points').notNull().default(0),
    reservedPoints: points('reserved_points').notNull().default(0),
    updatedAt: updatedAt(),
  },
  (table) => [
    primaryKey({ columns: [table.accountId, table.environment] }),
    check('point_balances_environment_known', sql`${table.environment} in ('test', 'live')`),
    check('point_balances_reserved_not_negative', sql`${table.reservedPoints} >= 0`),
    // Reservations never exceed the posted balance, so available points are never negative.
    check('point_balances_reserved_covered', sql`${table.postedPoints} >= ${table.reservedPoints}`),
  ],
);

export const pointReservations = pgTable(
  'point_reservations',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    operation: text('operation').notNull(),
    reservedPoints: points('reserved_points').notNull(),
    status: text('status').notNull().default('reserved'),
    capturedPoints: points('captured_points'),
    // The Trace-Id of the request that reserved; null for reservations made outside a request.
    requestId: text('request_id'),
    expiresAt: timestampTz('expires_at').notNull(),
    createdAt: createdAt(),
    settledAt: timestampTz('settled_at'),
  },
  (table) => [
    index('point_reservations_open_idx')
      .on(table.expiresAt)
      .where(sql`${table.status} = 'reserved'`),
    check(
      'point_reservations_status_known',
      sql`${table.status} in ('reserved', 'captured', 'released', 'expired')`,
    ),
    check('point_reservations_amount_positive', sql`${table.reservedPoints} > 0`),
    check(
      'point_reservations_capture_within_reserve',
      sql`${table.capturedPoints} is null
        or ${table.capturedPoints} between 0 and ${table.reservedPoints}`,
    ),
  ],
);

export const pointLedgerEntries = pgTable(
  'point_ledger_entries',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    kind: text('kind').notNull(),
    // Signed: grants and refunds are positive, captures and charges negative. The sum per
    // balance is the posted balance.
    amountPoints: points('amount_points').notNull(),
    balanceAfterPoints: points('balance_after_points').notNull(),
    reservationId: text('reservation_id'),
    memo: text('memo'),
    // What the entry belongs to, for the customer's ledger (docs/points.md § The ledger): the
    // price row of a refund (a capture's is its reservation's; older charges name theirs in
    // `memo`), the Trace-Id of the request that charged (a capture copies its reservation's),
    // and the document a charge or refund is for when it is for exactly one.
    operation: text('operation'),
    requestId: text('request_id'),
    documentId: text('document_id'),
    createdAt: createdAt(),
  },
  (table) => [
    index('point_ledger_entries_balance_idx').on(
      table.accountId,
      table.environment,
      table.createdAt,
    ),
    // A reservation is captured at most once, enforced by the database as well as the code.
    uniqueIndex('point_ledger_entries_reservation_unique').on(table.reservationId),
    check('point_ledger_entries_kind_known',
      sql`${table.kind} in ('grant', 'capture', 'charge', 'refund')`),
    check('point_ledger_entries_balance_not_negative', sql`${table.balanceAfterPoints} >= 0`),
  ],
);

export const idempotencyClaims = pgTable(
  'idempotency_claims',
  {
    id: text('id').primaryKey(),
    apiKeyId: text('api_key_id').notNull(),
    namespace: text('namespace').notNull(),
    referenceId: text('reference_id').notNull(),
    fingerprint: text('fingerprint').notNull(),
    responseStatus: integer('response_status'),
    responseBody: jsonb('response_body'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('idempotency_claims_reference_unique').on(
      table.apiKeyId,
      table.namespace,
      table.referenceId,
    ),
    // A client reference id is 1 to 255 characters.
    check(
      'idempotency_claims_reference_length',
      sql`char_length(${table.referenceId}) between 1 and 255`,
    ),
  ],
);
