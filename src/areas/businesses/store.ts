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
    if (key === 'businessRegistrationNumber' || key === 'updatedAt') continue;
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
