import { asc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db, Executor } from '../../../platform/db/connect.ts';
import { businessFormerNames, businessProfiles } from '../tables.ts';

// The business profile store (docs/business-profiles.md § Store): the profile source of live
// keys. Drizzle, except the search (SEARCH_SQL); the service turns rows into the profile
// object.

// The database allows order_index 0 to 99 (business_former_names_order_range).
export const FORMER_NAMES_PER_PROFILE_MAX = 100;

type BusinessProfileRow = typeof businessProfiles.$inferSelect;
export type BusinessProfileInsert = typeof businessProfiles.$inferInsert;
export type FormerNameRow = { name: string; changedOn: string | null };
// A profile row without its stored search grams, which only the index needs.
export type ProfileColumns = Omit<BusinessProfileRow, 'nameGrams'>;

// Every profile column but the grams: what reads of a profile select.
const PROFILE_SELECTION = Object.fromEntries(
  Object.entries(getTableColumns(businessProfiles)).filter(([key]) => key !== 'nameGrams'),
) as Omit<typeof businessProfiles._.columns, 'nameGrams'>;

export async function findProfileRow(
  tx: Executor,
  businessRegistrationNumber: string,
): Promise<{ profile: ProfileColumns; formerNames: FormerNameRow[] } | null> {
  const [profile] = await tx
    .select(PROFILE_SELECTION)
    .from(businessProfiles)
    .where(eq(businessProfiles.businessRegistrationNumber, businessRegistrationNumber))
    .limit(1);
  if (!profile) return null;
  const formerNames = await tx
    .select({ name: businessFormerNames.name, changedOn: businessFormerNames.changedOn })
    .from(businessFormerNames)
    .where(eq(businessFormerNames.businessRegistrationNumber, businessRegistrationNumber))
    .orderBy(asc(businessFormerNames.orderIndex))
    .limit(FORMER_NAMES_PER_PROFILE_MAX);
  return { profile, formerNames };
}

// Inserts or replaces one profile and its former names (given most recent first). The caller
// runs it in a transaction so the profile and its names change together.
export async function upsertProfileRow(
  tx: Executor,
  profile: BusinessProfileInsert,
  formerNames: FormerNameRow[],
): Promise<void> {
  const { businessRegistrationNumber, ...rest } = profile;
  await tx
    .insert(businessProfiles)
    .values(profile)
    .onConflictDoUpdate({
      target: businessProfiles.businessRegistrationNumber,
      set: { ...rest, updatedAt: sql`now()` },
    });
  await tx
    .delete(businessFormerNames)
    .where(eq(businessFormerNames.businessRegistrationNumber, businessRegistrationNumber));
  if (formerNames.length === 0) return;
  await tx.insert(businessFormerNames).values(
    formerNames.map((formerName, orderIndex) => ({
      businessRegistrationNumber,
      orderIndex,
      name: formerName.name,
      changedOn: formerName.changedOn,
    })),
  );
}

// Inserts or replaces many profiles and their former names in a few statements (the bulk form of
// upsertProfileRow, for `etax import profiles`). The numbers must be distinct; the caller runs it
// in a transaction.
export async function upsertProfileRows(
  tx: Executor,
  rows: ReadonlyArray<{ profile: BusinessProfileInsert; formerNames: FormerNameRow[] }>,
): Promise<void> {
  if (rows.length === 0) return;
  const columns = getTableColumns(businessProfiles);
  const set: Record<string, SQL> = {};
  for (const [key, column] of Object.entries(columns)) {
    // The key stays, the time is set below, and a generated column is never written.
    if (['businessRegistrationNumber', 'updatedAt', 'nameGrams'].includes(key)) continue;
    set[key] = sql.raw(`excluded.${column.name}`);
  }
  await tx
    .insert(businessProfiles)
    .values(rows.map((row) => row.profile))
    .onConflictDoUpdate({
      target: businessProfiles.businessRegistrationNumber,
      set: { ...set, updatedAt: sql`now()` },
    });
  const numbers = rows.map((row) => row.profile.businessRegistrationNumber);
  await tx
    .delete(businessFormerNames)
    .where(inArray(businessFormerNames.businessRegistrationNumber, numbers));
  const names = rows.flatMap((row) => row.formerNames.map((formerName, orderIndex) => ({
    businessRegistrationNumber: row.profile.businessRegistrationNumber,
    orderIndex,
    name: formerName.name,
    changedOn: formerName.changedOn,
  })));
  // 4 parameters per name: chunks of 5,000 stay below PostgreSQL's 65,535 parameters.
  for (let start = 0; start < names.length; start += 5_000) {
    await tx.insert(businessFormerNames).values(names.slice(start, start + 5_000));
  }
}

// Profile search (docs/business-profiles.md § Search profiles). The rank key of a row orders
// results: tier ascending (0 the exact number, 1 a number prefix, 2 an exact name, 3 a partial name
// match), score descending (0 for tiers 0 to 2; for a partial name match the trigram similarity of
// the query with the business or representative name, in millionths: an integer, so a cursor
// compares exactly), then the number ascending.
export type SearchRankKey = { tier: number; score: number; businessRegistrationNumber: string };

export type SearchProfileRowsOptions = {
  // The trimmed query text.
  text: string;
  // The query's digits when it is a (partial) number: digits and hyphens only, 1 to 10 digits.
  digits: string | null;
  // Results after this rank key (the cursor), or from the start.
  after: SearchRankKey | null;
  limit: number;
};

type SearchedProfileRow = {
  profile: ProfileColumns;
  formerNames: FormerNameRow[];
  rank: SearchRankKey;
};

// `\`, `%` and `_` are ILIKE's special characters; escaped, the query matches literally.
function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

// A name query ranks at most this many partial matches (exact names and number prefixes are not
// capped): enough for any specific query, while a query that matches a large part of the store
// still answers in milliseconds (docs/business-profiles.md § Search profiles).
export const NAME_CANDIDATES_MAX = 200;

// The profile columns under the names BusinessProfileRow gives them; dates as text, as Drizzle's
// string mode reads them.
const PROFILE_COLUMNS = Object.entries(PROFILE_SELECTION)
  .map(([key, column]) => (column.columnType === 'PgDateString'
    ? `p.${column.name}::text as "${key}"`
    : `p.${column.name} as "${key}"`))
  .join(', ');

// One statement finds, ranks and pages the matches (the rank key: store.ts § SearchRankKey).
// The candidates each come through an index: partial name matches through the bucketed grams
// (migration 0011), bucket after bucket until NAME_CANDIDATES_MAX are found; number prefixes as a
// range of the primary key, and exact names through their lower-case indexes, both in number
// order from the cursor on, so a page needs only `limit` more of each however many there are.
// Its text never changes, so PostgreSQL can keep one plan for it (a named statement).
const SEARCH_SQL = `
  with candidates as (
    (select found.*
       from generate_series(0, etax_search_bucket_count() - 1) as bucket
      cross join lateral (
        select business_registration_number, organization_name, representative_name
          from business_profiles
         where name_grams @> etax_bucketed_query_grams((select etax_query_grams($1::text)),
                                                       bucket)
           and (organization_name ilike $2::text or representative_name ilike $2::text)
         limit $4::integer) as found
      limit $4::integer)
    union
    (select business_registration_number, organization_name, representative_name
       from business_profiles
      where $6::boolean and business_registration_number between $3::text and $5::text
        and business_registration_number > $7::text
      order by business_registration_number limit $10::integer)
    union
    (select business_registration_number, organization_name, representative_name
       from business_profiles
      where $9::boolean and lower(organization_name) = lower($1::text)
        and business_registration_number > $8::text
      order by business_registration_number limit $10::integer)
    union
    (select business_registration_number, organization_name, representative_name
       from business_profiles
      where $9::boolean and lower(representative_name) = lower($1::text)
        and business_registration_number > $8::text
      order by business_registration_number limit $10::integer)
  ), tiered as (
    select c.*, case
        when c.business_registration_number = $3::text then 0
        when c.business_registration_number between $3::text and $5::text then 1
        when lower(c.organization_name) = lower($1::text)
          or lower(c.representative_name) = lower($1::text) then 2
        else 3 end as tier
      from candidates c
  ), ranked as (
    -- A number or exact name match ranks by its tier alone: its score is 0.
    select t.business_registration_number, t.tier, case when t.tier < 3 then 0 else round(greatest(
        similarity(coalesce(t.organization_name, ''), $1::text),
        word_similarity($1::text, coalesce(t.organization_name, '')),
        similarity(coalesce(t.representative_name, ''), $1::text),
        word_similarity($1::text, coalesce(t.representative_name, ''))
      ) * 1000000)::integer end as score
      from tiered t
  ), page as (
    select * from ranked
     where $11::integer is null or tier > $11::integer
        or (tier = $11::integer and score < $12::integer)
        or (tier = $11::integer and score = $12::integer
            and business_registration_number > $13::text)
     order by tier, score desc, business_registration_number
     limit $10::integer
  )
  select ${PROFILE_COLUMNS}, page.tier, page.score,
         (select coalesce(json_agg(json_build_object('name', f.name, 'changedOn', f.changed_on)
                                   order by f.order_index), '[]')
            from business_former_names f
           where f.business_registration_number = page.business_registration_number)
           as "formerNames"
    from page join business_profiles p using (business_registration_number)
   order by page.tier, page.score desc, page.business_registration_number`;

// Numbers are ten digits, so the numbers that start with `digits` are a range of the primary
// key from `digits` to this.
function prefixLast(digits: string): string {
  return digits.padEnd(10, '9');
}

type SearchRow = ProfileColumns & { tier: number; score: number; formerNames: FormerNameRow[] };

// One page of ranked matches. `statementName` makes the search a named prepared statement
// (false on the embedded database; points/store.ts findBalances says why).
export async function searchProfileRows(
  db: Db,
  options: SearchProfileRowsOptions,
  statementName?: string,
): Promise<SearchedProfileRow[]> {
  const { text, digits, after, limit } = options;
  const result = await db.$client.query<SearchRow>({
    name: statementName,
    text: SEARCH_SQL,
    values: [
      text,
      `%${likeEscape(text)}%`,
      digits,
      NAME_CANDIDATES_MAX,
      digits === null ? null : prefixLast(digits),
      // The tiers ranked by number: open while the cursor has not passed them, and from the
      // cursor's number on while it is inside one.
      digits !== null && (after === null || after.tier <= 1),
      after !== null && after.tier === 1 ? after.businessRegistrationNumber : '',
      after !== null && after.tier === 2 ? after.businessRegistrationNumber : '',
      after === null || after.tier <= 2,
      limit,
      after?.tier ?? null,
      after?.score ?? null,
      after?.businessRegistrationNumber ?? null,
    ],
  });
  return result.rows.map(({ tier, score, formerNames, ...profile }) => ({
    profile,
    formerNames,
    rank: { tier, score, businessRegistrationNumber: profile.businessRegistrationNumber },
  }));
}
