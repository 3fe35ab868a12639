import { sql } from 'drizzle-orm';
import { check, index, pgTable, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, pagingSequence, timestampTz, updatedAt } from '../../platform/db/columns.ts';

// Tables of the issuers area (docs/issuers.md). Every row carries the account and environment
// of the key that made it, and every read filters by both, so a test issuer does not exist for
// a live key. Secrets are only ever stored sealed (src/domain/sealed-box.ts).

const environmentKnown = (name: string, column: unknown) =>
  check(name, sql`${column} in ('test', 'live')`);

export const issuers = pgTable(
  'issuers',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    supplierKey: text('supplier_key').notNull(),
    identificationNumber: text('identification_number').notNull(),
    taxRegistrationId: text('tax_registration_id'),
    organizationName: text('organization_name').notNull(),
    representativeName: text('representative_name').notNull(),
    contactName: text('contact_name'),
    contactEmail: text('contact_email'),
    contactPhone: text('contact_phone'),
    // The last month (1–12) of a corporation's business year (사업연도); null for the calendar
    // year. It decides the late-issuance limit of its tax-exempt invoices (docs/issuers.md).
    fiscalYearEndMonth: smallint('fiscal_year_end_month'),
    // Paging order: a cursor is the last sequence of a page.
    sequence: pagingSequence(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deactivatedAt: timestampTz('deactivated_at'),
  },
  (table) => [
    uniqueIndex('issuers_supplier_key_unique').on(table.supplierKey),
    // One active issuer per business and sub-place in an account's environment.
    uniqueIndex('issuers_business_unique')
      .on(table.accountId, table.environment, table.identificationNumber,
        sql`coalesce(${table.taxRegistrationId}, '')`)
      .where(sql`${table.deactivatedAt} is null`),
    index('issuers_scope_sequence_idx').on(table.accountId, table.environment, table.sequence),
    environmentKnown('issuers_environment_known', table.environment),
    check('issuers_number_digits', sql`${table.identificationNumber} ~ '^[0-9]{10}$'`),
    check('issuers_tax_registration_id',
      sql`${table.taxRegistrationId} ~ '^[0-9]{4}$' and ${table.taxRegistrationId} <> '0000'`),
    check('issuers_text_length',
      sql`char_length(${table.organizationName}) between 1 and 100
        and char_length(${table.representativeName}) between 1 and 50
        and char_length(${table.contactName}) <= 50
        and char_length(${table.contactEmail}) <= 254
        and char_length(${table.contactPhone}) <= 30`),
    check('issuers_fiscal_year_end_month',
      sql`${table.fiscalYearEndMonth} between 1 and 12`),
  ],
);

// The certificate an issuer signs with now; at most one per issuer.
export const issuerCertificates = pgTable(
  'issuer_certificates',
  {
    issuerId: text('issuer_id').primaryKey().references(() => issuers.id),
    // The identifier of the history record that registered it.
    registrationIdentifier: text('registration_identifier').notNull(),
    certificateBase64: text('certificate_base64').notNull(),
    // The PKCS#8 private key, sealed with the issuer id as context.
    sealedPrivateKey: text('sealed_private_key').notNull(),
    subject: text('subject').notNull(),
    issuerName: text('issuer_name').notNull(),
    serialNumber: text('serial_number').notNull(),
    notBefore: timestampTz('not_before').notNull(),
    notAfter: timestampTz('not_after').notNull(),
    keyUsages: text('key_usages').array().notNull(),
    policies: text('policies').array().notNull(),
    registeredAt: timestampTz('registered_at').notNull(),
  },
);

// Uploaded certificate material waiting for its registration job: sealed, and deleted by the
// job that records the result. The id becomes the history record's identifier.
export const certificateUploads = pgTable(
  'certificate_uploads',
  {
    id: text('id').primaryKey(),
    issuerId: text('issuer_id').notNull().references(() => issuers.id),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    sealedUpload: text('sealed_upload').notNull(),
    createdAt: createdAt(),
  },
  (table) => [environmentKnown('certificate_uploads_environment_known', table.environment)],
);

// Append-only: one record per registration attempt and per deregistration.
export const certificateRegistrationHistory = pgTable(
  'certificate_registration_history',
  {
    identifier: text('identifier').primaryKey(),
    issuerId: text('issuer_id').notNull().references(() => issuers.id),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    occurredAt: timestampTz('occurred_at').notNull(),
    code: text('code').notNull(),
    message: text('message').notNull(),
  },
  (table) => [
    index('certificate_registration_history_latest_idx')
      .on(table.issuerId, table.occurredAt.desc(), table.identifier.desc()),
    environmentKnown('certificate_registration_history_environment_known', table.environment),
  ],
);

// One-time hosted registration page links: only the SHA-256 of the token is stored.
export const certificateRegistrationTokens = pgTable(
  'certificate_registration_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    issuerId: text('issuer_id').notNull().references(() => issuers.id),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    // The key's redirect URL when the link was made (docs/issuers.md § Certificate registration).
    redirectUrl: text('redirect_url'),
    expiresAt: timestampTz('expires_at').notNull(),
    usedAt: timestampTz('used_at'),
    createdAt: createdAt(),
  },
  (table) => [
    environmentKnown('certificate_registration_tokens_environment_known', table.environment),
  ],
);

// Per API key settings of certificate registration.
export const certificateRegistrationSettings = pgTable(
  'certificate_registration_settings',
  {
    apiKeyId: text('api_key_id').primaryKey(),
    redirectUrl: text('redirect_url'),
    updatedAt: updatedAt(),
  },
  (table) => [
    check('certificate_registration_settings_url',
      sql`char_length(${table.redirectUrl}) <= 2000`),
  ],
);
