import { sql } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/connect.ts';
import { businessProfiles } from '../tables.ts';

// Registration checks stored back into the profile store (docs/registration-status.md § Stored
// back): the registration and taxation columns of business_profiles.

// One registration check to store back (docs/registration-status.md § Stored back).
type RegistrationCheckRow = {
  businessRegistrationNumber: string;
  status: string;
  closedOn: string | null;
  taxType: string | null;
};

// Stores registration checks as the registration and taxation of the profiles that exist, in
// one statement; numbers with no profile row are left alone (no row is created). Returns the
// number of profiles updated.
export async function storeRegistrationChecks(
  tx: Executor,
  checks: RegistrationCheckRow[],
  checkedAt: Date,
): Promise<number> {
  if (checks.length === 0) return 0;
  const rows = JSON.stringify(checks.map((check) => ({
    brn: check.businessRegistrationNumber,
    status: check.status,
    closed_on: check.closedOn,
    tax_type: check.taxType,
  })));
  const result = await tx.execute(sql`
    update ${businessProfiles} set
      registration_status = checks.status,
      registration_closed_on = checks.closed_on,
      registration_checked_at = ${checkedAt.toISOString()}::timestamptz,
      taxation_type = checks.tax_type,
      updated_at = now()
    from json_to_recordset(${rows}::json)
      as checks(brn text, status text, closed_on date, tax_type text)
    where ${businessProfiles.businessRegistrationNumber} = checks.brn`);
  return (result as { rowCount?: number | null; affectedRows?: number }).rowCount
    ?? (result as { affectedRows?: number }).affectedRows ?? 0;
}
