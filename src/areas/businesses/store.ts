import { asc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import { businessFormerNames, businessProfiles } from '../../platform/db/schema.ts';

// The business profile store (docs/business-profiles.md § Store): the profile source of live
// keys. Drizzle only; the service turns rows into the spec §2.1 object.

// The database allows order_index 0 to 99 (business_former_names_order_range).
export const FORMER_NAMES_PER_PROFILE_MAX = 100;

export type BusinessProfileRow = typeof businessProfiles.$inferSelect;
export type BusinessProfileInsert = typeof businessProfiles.$inferInsert;
export type FormerNameRow = { name: string; changedOn: string | null };

export async function findProfileRow(
  tx: Executor,
  businessRegistrationNumber: string,
): Promise<{ profile: BusinessProfileRow; formerNames: FormerNameRow[] } | null> {
  const [profile] = await tx
    .select()
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
      set: { ...rest, updatedAt: new Date() },
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

// Profile search (docs/business-profiles.md § Search). The rank key of a row orders results:
// tier ascending (0 the exact number, 1 a number prefix, 2 an exact name, 3 a partial name
// match), score descending (0 for tiers 0 to 2; for a partial name match the trigram similarity
// of the query with the business or representative name, in millionths: an integer, so a cursor
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

export type SearchedProfileRow = {
  profile: BusinessProfileRow;
  formerNames: FormerNameRow[];
  rank: SearchRankKey;
};

// `\`, `%` and `_` are ILIKE's special characters; escaped, the query matches literally.
function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

// A name query ranks at most this many partial matches (exact names and number prefixes are not
// capped): enough for any specific query, while a query that matches a large part of the store
// still answers in milliseconds (docs/business-profiles.md § Search).
export const NAME_CANDIDATES_MAX = 200;

// The numbers a search ranks, each set found through an index: partial name matches through the
// name grams (at most NAME_CANDIDATES_MAX), and the tiers that rank by number alone (number
// prefixes, exact names) in number order from the cursor on, so a page needs only `limit` more
// of each however many there are.
function searchCandidates(options: SearchProfileRowsOptions, pattern: string): SQL[] {
  const { text, digits, after, limit } = options;
  const number = sql.raw('business_registration_number');
  // The next `limit` numbers of a tier ranked by number, or none once the cursor is past it.
  const nextByNumber = (tier: number, condition: SQL): SQL[] => {
    if (after !== null && after.tier > tier) return [];
    const from = after !== null && after.tier === tier
      ? sql`and ${number} > ${after.businessRegistrationNumber}`
      : sql``;
    return [sql`(select ${number} from business_profiles where ${condition} ${from}
          order by ${number} limit ${limit})`];
  };
  return [
    sql`(select ${number} from business_profiles
          where name_grams @> etax_query_grams(${text})
            and (organization_name ilike ${pattern} or representative_name ilike ${pattern})
          limit ${NAME_CANDIDATES_MAX})`,
    ...(digits === null ? [] : nextByNumber(1, sql`${number} like ${`${digits}%`}`)),
    ...nextByNumber(2, sql`lower(organization_name) = lower(${text})`),
    ...nextByNumber(2, sql`lower(representative_name) = lower(${text})`),
  ];
}

export async function searchProfileRows(
  tx: Executor,
  options: SearchProfileRowsOptions,
): Promise<SearchedProfileRow[]> {
  const { text, digits, after, limit } = options;
  const number = businessProfiles.businessRegistrationNumber;
  const organizationName = sql`coalesce(${businessProfiles.organizationName}, '')`;
  const representativeName = sql`coalesce(${businessProfiles.representativeName}, '')`;
  const pattern = `%${likeEscape(text)}%`;
  const exactName = sql`(lower(${businessProfiles.organizationName}) = lower(${text})
    or lower(${businessProfiles.representativeName}) = lower(${text}))`;
  const tier = digits === null
    ? sql<number>`(case when ${exactName} then 2 else 3 end)`
    : sql<number>`(case when ${number} = ${digits} then 0
        when ${number} like ${`${digits}%`} then 1 when ${exactName} then 2 else 3 end)`;
  // A number or exact name match ranks by its tier alone: its score is 0.
  const score = sql<number>`(case when ${tier} < 3 then 0 else round(greatest(
      similarity(${organizationName}, ${text}), word_similarity(${text}, ${organizationName}),
      similarity(${representativeName}, ${text}), word_similarity(${text}, ${representativeName})
    ) * 1000000) end)::integer`;
  const conditions: SQL[] = [
    sql`${number} in (${sql.join(searchCandidates(options, pattern), sql` union `)})`,
  ];
  if (after !== null) {
    conditions.push(sql`(${tier} > ${after.tier}
      or (${tier} = ${after.tier} and ${score} < ${after.score})
      or (${tier} = ${after.tier} and ${score} = ${after.score}
        and ${number} > ${after.businessRegistrationNumber}))`);
  }
  const rows = await tx
    .select({ profile: businessProfiles, tier, score })
    .from(businessProfiles)
    .where(sql.join(conditions, sql` and `))
    .orderBy(tier, sql`${score} desc`, asc(number))
    .limit(limit);
  if (rows.length === 0) return [];
  const numbers = rows.map((row) => row.profile.businessRegistrationNumber);
  const names = await tx
    .select({
      businessRegistrationNumber: businessFormerNames.businessRegistrationNumber,
      name: businessFormerNames.name,
      changedOn: businessFormerNames.changedOn,
    })
    .from(businessFormerNames)
    .where(inArray(businessFormerNames.businessRegistrationNumber, numbers))
    .orderBy(asc(businessFormerNames.businessRegistrationNumber),
      asc(businessFormerNames.orderIndex));
  const namesByNumber = new Map<string, FormerNameRow[]>();
  for (const { businessRegistrationNumber, name, changedOn } of names) {
    const list = namesByNumber.get(businessRegistrationNumber) ?? [];
    list.push({ name, changedOn });
    namesByNumber.set(businessRegistrationNumber, list);
  }
  return rows.map((row) => ({
    profile: row.profile,
    formerNames: namesByNumber.get(row.profile.businessRegistrationNumber) ?? [],
    rank: {
      tier: Number(row.tier),
      score: Number(row.score),
      businessRegistrationNumber: row.profile.businessRegistrationNumber,
    },
  }));
}
