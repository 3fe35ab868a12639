import { expect } from 'vitest';
import { sql } from 'drizzle-orm';
import type { Platform } from '../../src/platform/platform.ts';
import type { Environment } from '../../src/platform/accounts/keys.ts';
import type { Executor } from '../../src/platform/db/connect.ts';
import { auditBalance } from '../../src/platform/points/store.ts';

// Recomputes a balance from the ledger and the open reservations and checks it against the
// stored balance: the ledger sum equals the posted balance, open reservations equal reserved.
export async function expectLedgerConsistent(
  platform: Platform,
  accountId: string,
  environment: Environment,
): Promise<void> {
  const balance = await platform.points.getBalance({ accountId, environment });
  const audit = await auditBalance(platform.database.db, { accountId, environment });
  expect(audit.ledgerPoints).toBe(balance.balance);
  expect(audit.openReservedPoints).toBe(balance.reserved);
}

export type LedgerSnapshot = {
  postedPoints: number;
  reservedPoints: number;
  ledgerEntryCount: number;
};

// Everything a charge or an open reservation would change, straight from the tables, so a test can
// assert that a run of requests left a balance exactly as it found it.
export async function ledgerSnapshot(
  executor: Executor,
  accountId: string,
  environment: Environment,
): Promise<LedgerSnapshot> {
  const result = await executor.execute<Record<keyof LedgerSnapshot, number>>(sql`
    select
      (select posted_points from point_balances
        where account_id = ${accountId} and environment = ${environment})::int as "postedPoints",
      (select reserved_points from point_balances
        where account_id = ${accountId} and environment = ${environment})::int as "reservedPoints",
      (select count(*) from point_ledger_entries
        where account_id = ${accountId} and environment = ${environment})::int
        as "ledgerEntryCount"`);
  return result.rows[0]!;
}

// A snapshot of the balance, checked against a recomputation from the ledger and the open
// reservations, straight from the tables as ledgerSnapshot reads them.
export async function expectConsistentSnapshot(
  executor: Executor,
  accountId: string,
  environment: Environment,
): Promise<LedgerSnapshot> {
  const snapshot = await ledgerSnapshot(executor, accountId, environment);
  const audit = await auditBalance(executor, { accountId, environment });
  expect(audit.ledgerPoints).toBe(snapshot.postedPoints);
  expect(audit.openReservedPoints).toBe(snapshot.reservedPoints);
  return snapshot;
}

// The balance holds `balance` with nothing reserved, and the ledger agrees.
export async function expectSettledBalance(
  platform: Platform,
  accountId: string,
  environment: Environment,
  balance: number,
): Promise<void> {
  const actual = await platform.points.getBalance({ accountId, environment });
  expect(actual).toEqual({ balance, reserved: 0, available: balance });
  await expectLedgerConsistent(platform, accountId, environment);
}
