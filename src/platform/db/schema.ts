import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, timestampTz } from './columns.ts';

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
    createdAt: createdAt(),
    revokedAt: timestampTz('revoked_at'),
  },
  (table) => [
    uniqueIndex('api_keys_key_hash_unique').on(table.keyHash),
    index('api_keys_account_idx').on(table.accountId),
    check('api_keys_environment_known', sql`${table.environment} in ('test', 'live')`),
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
    updatedAt: timestampTz('updated_at').notNull().defaultNow(),
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
    // Spec §8: a client reference id is 1 to 255 characters.
    check(
      'idempotency_claims_reference_length',
      sql`char_length(${table.referenceId}) between 1 and 255`,
    ),
  ],
);

// Business profiles (spec §2.1), the profile source of live keys (docs/business-profiles.md).
// One row per business registration number. The address is null in a response when all four
// address columns are null, so a source with no address stores four nulls. `registration_*` and
// `taxation_type` hold the last registration check; a null status means never checked. The
// KSIC section name is not stored: it comes from src/domain/ksic.ts by the section letter.
const profileDate = (name: string) => date(name, { mode: 'string' });

export const businessProfiles = pgTable(
  'business_profiles',
  {
    businessRegistrationNumber: text('business_registration_number').primaryKey(),
    corporateRegistrationNumber: text('corporate_registration_number'),
    businessKind: text('business_kind'),
    commercialSalesNumber: text('commercial_sales_number'),
    organizationName: text('organization_name'),
    organizationNameEnglish: text('organization_name_english'),
    representativeName: text('representative_name'),
    roadAddress: text('road_address'),
    postalCode: text('postal_code'),
    sidoCode: text('sido_code'),
    sigunguCode: text('sigungu_code'),
    phone: text('phone'),
    email: text('email'),
    websites: text('websites').array().notNull().default(sql`'{}'::text[]`),
    businessType: text('business_type'),
    businessItem: text('business_item'),
    standardIndustryCode: text('standard_industry_code'),
    standardIndustryName: text('standard_industry_name'),
    categoryCode: text('category_code'),
    openedOn: profileDate('opened_on'),
    businessRegisteredOn: profileDate('business_registered_on'),
    corporationEstablishedOn: profileDate('corporation_established_on'),
    registrationStatus: text('registration_status'),
    registrationClosedOn: profileDate('registration_closed_on'),
    registrationCheckedAt: timestampTz('registration_checked_at'),
    taxationType: text('taxation_type'),
    updatedAt: timestampTz('updated_at').notNull().defaultNow(),
    // The one- and two-character pieces of both names, each tagged with the profile's search
    // bucket (migrations 0004 and 0011 define the functions).
    nameGrams: text('name_grams').array().notNull().generatedAlwaysAs(sql`etax_bucketed_name_grams(
      etax_search_bucket(business_registration_number),
      etax_name_grams(coalesce(organization_name, ''))
        || etax_name_grams(coalesce(representative_name, '')))`),
  },
  (table) => [
    // Profile search (docs/business-profiles.md § Search): the grams' GIN index finds partial
    // name matches, the lower-case name indexes exact ones in number order, and the primary
    // key serves number prefixes as ranges.
    index('business_profiles_name_grams').using('gin', table.nameGrams),
    index('business_profiles_organization_name_exact')
      .on(sql`lower(${table.organizationName})`, table.businessRegistrationNumber),
    index('business_profiles_representative_name_exact')
      .on(sql`lower(${table.representativeName})`, table.businessRegistrationNumber),
    check(
      'business_profiles_number_digits',
      sql`${table.businessRegistrationNumber} ~ '^[0-9]{10}$'`,
    ),
    check(
      'business_profiles_corporate_number_digits',
      sql`${table.corporateRegistrationNumber} ~ '^[0-9]{13}$'`,
    ),
    check(
      'business_profiles_kind_known',
      sql`${table.businessKind} in ('INDIVIDUAL', 'CORPORATE')`,
    ),
    // Names, addresses and free text: room for any real value, a bound for a broken import.
    check(
      'business_profiles_text_length',
      sql`char_length(${table.commercialSalesNumber}) <= 50
        and char_length(${table.organizationName}) <= 200
        and char_length(${table.organizationNameEnglish}) <= 200
        and char_length(${table.representativeName}) <= 100
        and char_length(${table.roadAddress}) <= 300
        and char_length(${table.phone}) <= 30
        and char_length(${table.email}) <= 254
        and char_length(${table.businessType}) <= 200
        and char_length(${table.businessItem}) <= 200
        and char_length(${table.standardIndustryName}) <= 200`,
    ),
    check('business_profiles_postal_code_digits', sql`${table.postalCode} ~ '^[0-9]{5}$'`),
    check('business_profiles_sido_code_digits', sql`${table.sidoCode} ~ '^[0-9]{2}$'`),
    check('business_profiles_sigungu_code_digits', sql`${table.sigunguCode} ~ '^[0-9]{5}$'`),
    check(
      'business_profiles_websites_count',
      sql`coalesce(array_length(${table.websites}, 1), 0) <= 20`,
    ),
    check(
      'business_profiles_standard_industry_code',
      sql`${table.standardIndustryCode} ~ '^[0-9]{5}$'`,
    ),
    // A classification has both a code and a name, or neither.
    check(
      'business_profiles_standard_industry_pair',
      sql`(${table.standardIndustryCode} is null) = (${table.standardIndustryName} is null)`,
    ),
    check('business_profiles_category_code', sql`${table.categoryCode} ~ '^[A-U]$'`),
    check(
      'business_profiles_registration_status_known',
      sql`${table.registrationStatus} in
        ('ACTIVE', 'SUSPENDED', 'CLOSED', 'NOT_REGISTERED', 'UNKNOWN')`,
    ),
    // A check has a status and a time, or neither exists.
    check(
      'business_profiles_registration_pair',
      sql`(${table.registrationStatus} is null) = (${table.registrationCheckedAt} is null)`,
    ),
    // Spec §2.1: closedOn is null unless the business is closed.
    check(
      'business_profiles_closed_on_only_closed',
      sql`${table.registrationClosedOn} is null or ${table.registrationStatus} = 'CLOSED'`,
    ),
    check(
      'business_profiles_taxation_type_known',
      sql`${table.taxationType} in ('GENERAL', 'SIMPLIFIED_RECEIPT_ISSUER',
        'SIMPLIFIED_TAX_INVOICE_ISSUER', 'SPECIAL_TAXPAYER', 'TAX_FREE', 'NONPROFIT',
        'UNIQUE_NUMBER_ORGANIZATION')`,
    ),
  ],
);

// Former business names of a profile; order_index 0 is the most recently changed name.
export const businessFormerNames = pgTable(
  'business_former_names',
  {
    businessRegistrationNumber: text('business_registration_number')
      .notNull()
      .references(() => businessProfiles.businessRegistrationNumber, { onDelete: 'cascade' }),
    orderIndex: integer('order_index').notNull(),
    name: text('name').notNull(),
    changedOn: date('changed_on', { mode: 'string' }),
  },
  (table) => [
    primaryKey({ columns: [table.businessRegistrationNumber, table.orderIndex] }),
    // At most 100 former names per profile (FORMER_NAMES_PER_PROFILE_MAX in the store).
    check('business_former_names_order_range', sql`${table.orderIndex} between 0 and 99`),
    check('business_former_names_name_length', sql`char_length(${table.name}) between 1 and 200`),
  ],
);
