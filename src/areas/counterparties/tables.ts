import { sql } from 'drizzle-orm';
import {
  bigint, boolean, check, date, index, integer, jsonb, pgTable, text, uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, timestampTz, updatedAt } from '../../platform/db/columns.ts';

// The counterparty book (docs/counterparties.md): the businesses an account issues to, each with
// the fields a tax invoice's recipient (`supplied`) carries, so that an issuance can name one
// instead of repeating them, and its registration status as last checked. Every row belongs to
// one account and one environment. Lists page by `sequence`.

// One manager of a counterparty: the recipient's `managers` item of a tax invoice.
export type CounterpartyManager = { email: string; name: string | null;
  telephone: string | null };

export const counterparties = pgTable(
  'counterparties',
  {
    id: text('id').primaryKey(),
    sequence: bigint('sequence', { mode: 'number' }).generatedAlwaysAsIdentity(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    businessRegistrationNumber: text('business_registration_number').notNull(),
    // The sub-place (종사업장) number, or '' for none: part of the unique key, so it is never null.
    taxRegistrationId: text('tax_registration_id').notNull().default(''),
    organizationName: text('organization_name').notNull(),
    representativeName: text('representative_name').notNull(),
    address: text('address'),
    businessType: text('business_type'),
    businessItem: text('business_item'),
    managers: jsonb('managers').$type<CounterpartyManager[]>().notNull(),
    memo: text('memo'),
    // The registration status as last checked, or null before the first check.
    registrationStatus: text('registration_status'),
    closedOn: date('closed_on', { mode: 'string' }),
    taxType: text('tax_type'),
    statusCheckedAt: timestampTz('status_checked_at'),
    // Whether the schedule checks the status again (charged as a lookup).
    autoRefreshStatus: boolean('auto_refresh_status').notNull().default(false),
    // The import that made it, if one did.
    importId: text('import_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('counterparties_scope_idx').on(table.accountId, table.environment, table.sequence),
    uniqueIndex('counterparties_number_uq').on(table.accountId, table.environment,
      table.businessRegistrationNumber, table.taxRegistrationId),
    index('counterparties_auto_refresh_idx').on(table.statusCheckedAt)
      .where(sql`${table.autoRefreshStatus}`),
    check('counterparties_environment_known', sql`${table.environment} in ('test', 'live')`),
    check('counterparties_number_digits',
      sql`${table.businessRegistrationNumber} ~ '^[0-9]{10}$'`),
    check('counterparties_tax_registration_id',
      sql`${table.taxRegistrationId} = '' or ${table.taxRegistrationId} ~ '^[0-9]{4}$'`),
    check('counterparties_text_length', sql`char_length(${table.organizationName}) between 1 and 100
      and char_length(${table.representativeName}) between 1 and 50
      and coalesce(char_length(${table.address}), 0) <= 200
      and coalesce(char_length(${table.businessType}), 0) <= 100
      and coalesce(char_length(${table.businessItem}), 0) <= 100
      and coalesce(char_length(${table.memo}), 0) <= 1000`),
    check('counterparties_status_known', sql`${table.registrationStatus} is null or
      ${table.registrationStatus} in
      ('ACTIVE', 'SUSPENDED', 'CLOSED', 'NOT_REGISTERED', 'UNKNOWN')`),
  ],
);

// An uploaded file of counterparties: validated when uploaded (its rows with their errors, kept
// for the preview) and committed once: the valid rows become counterparties in one transaction,
// and committing again answers what the first commit did.
export type ImportRowRecord = {
  row: number;
  values: Record<string, string>;
  errors: Array<{ column: string | null; message: string }>;
  // The counterparty the row adds, for a row without errors.
  input?: unknown;
};

export const counterpartyImports = pgTable(
  'counterparty_imports',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    fileName: text('file_name'),
    rows: jsonb('rows').$type<ImportRowRecord[]>().notNull(),
    validRows: integer('valid_rows').notNull(),
    // PREVIEWED, then COMMITTED.
    status: text('status').notNull().default('PREVIEWED'),
    createdCount: integer('created_count'),
    createdAt: createdAt(),
    committedAt: timestampTz('committed_at'),
  },
  (table) => [
    index('counterparty_imports_scope_idx').on(table.accountId, table.environment,
      table.createdAt),
    check('counterparty_imports_status_known',
      sql`${table.status} in ('PREVIEWED', 'COMMITTED')`),
  ],
);
