import { expect } from 'vitest';
import type { Platform } from '../../src/app.ts';
import type { Environment } from '../../src/platform/accounts/keys.ts';
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
