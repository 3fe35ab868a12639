import { sql } from 'drizzle-orm';
import { check, date, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { timestampTz, updatedAt } from '../../platform/db/columns.ts';

// The tables of the businesses area: the profile store and the names businesses had before.
// Migrations in drizzle/ are generated from every tables.ts with `npx drizzle-kit generate`.

// Business profiles, the profile source of live keys (docs/business-profiles.md).
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
    updatedAt: updatedAt(),
    // The one- and two-character pieces of both names, each tagged with the profile's search
    // bucket (migrations 0004 and 0011 define the functions).
    nameGrams: text('name_grams').array().notNull().generatedAlwaysAs(sql`etax_bucketed_name_grams(
      etax_search_bucket(business_registration_number),
      etax_name_grams(coalesce(organization_name, ''))
        || etax_name_grams(coalesce(representative_name, '')))`),
  },
  (table) => [
    // Profile search (docs/business-profiles.md § Search profiles): the grams' GIN index finds
    // partial name matches, the lower-case name indexes exact ones in number order, and the primary
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
    // `closedOn` is null unless the business is closed.
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
