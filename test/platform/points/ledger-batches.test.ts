// Concurrent reservations and captures share one statement per batch. A batch must decide and
// record exactly what running its items one by one would: the same refusals (402 when the posted
// balance is short, 409 when reservations hold the rest), one ledger entry per capture with the
// balance after it, and nothing for an unknown or settled reservation.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reservation } from '../../../src/platform/points/service.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { usingPostgres } from '../../helpers/database.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const accountWithLivePoints = (points: number) => app.createLiveBalance(points);

function codeOf(outcome: PromiseSettledResult<unknown>): string {
  if (outcome.status === 'fulfilled') return 'reserved';
  return (outcome.reason as { code?: string }).code ?? String(outcome.reason);
}

describe('reservations in one batch', () => {
  it('accepts what each balance covers and refuses the rest by the 402/409 rule', async () => {
    const rich = await accountWithLivePoints(250);
    const poor = await accountWithLivePoints(50);
    const { points } = app.platform;
    // Started in the same turn, so they share a batch.
    const outcomes = await Promise.allSettled([
      points.reserve({ ...rich, operation: 'test', points: 100 }),
      points.reserve({ ...poor, operation: 'test', points: 100 }),
      points.reserve({ ...rich, operation: 'test', points: 100 }),
      points.reserve({ ...rich, operation: 'test', points: 100 }),
      points.reserve({ ...poor, operation: 'test', points: 50 }),
    ]);
    expect(outcomes.map(codeOf)).toEqual([
      'reserved', 'PAYMENT_REQUIRED', 'reserved', 'AVAILABLE_POINTS_INSUFFICIENT', 'reserved',
    ]);
    expect(await points.getBalance(rich)).toEqual({ balance: 250, reserved: 200, available: 50 });
    expect(await points.getBalance(poor)).toEqual({ balance: 50, reserved: 50, available: 0 });
  });

  it('refuses with 402 an account that has no balance row', async () => {
    const outcomes = await Promise.allSettled([
      app.platform.points.reserve({
        accountId: 'acc_missing', environment: 'live', operation: 'test', points: 10,
      }),
    ]);
    expect(outcomes.map(codeOf)).toEqual(['PAYMENT_REQUIRED']);
  });
});

describe('captures in one batch', () => {
  it('writes one ledger entry per capture, each with the balance after it', async () => {
    const key = await accountWithLivePoints(1_000);
    const { points } = app.platform;
    const reservations: Reservation[] = await Promise.all([100, 200, 300].map((amount) =>
      points.reserve({ ...key, operation: 'test', points: amount })));
    const outcomes = await Promise.all(reservations.map((reservation) =>
      points.capture({ reservation, chargePoints: reservation.reservedPoints - 50 })));
    expect(outcomes).toEqual([
      { kind: 'settled', capturedPoints: 50, releasedPoints: 50 },
      { kind: 'settled', capturedPoints: 150, releasedPoints: 50 },
      { kind: 'settled', capturedPoints: 250, releasedPoints: 50 },
    ]);
    expect(await points.getBalance(key)).toEqual({ balance: 550, reserved: 0, available: 550 });
    const entries = await app.platform.database.db.execute<{ amount: number; after: number }>(sql`
      select amount_points as amount, balance_after_points as after from point_ledger_entries
       where account_id = ${key.accountId} and environment = 'live' and kind = 'capture'
       order by balance_after_points desc`);
    // Whatever order the batch applied them in, the balances after form one chain from 1,000.
    let balance = 1_000;
    for (const entry of entries.rows) {
      balance += entry.amount;
      expect(entry.after).toBe(balance);
    }
    expect(balance).toBe(550);
    await expectLedgerConsistent(app.platform, key.accountId, key.environment);
  });

  it('settles a reservation captured twice in one batch once', async () => {
    const key = await accountWithLivePoints(1_000);
    const { points } = app.platform;
    const reservation = await points.reserve({ ...key, operation: 'test', points: 100 });
    const outcomes = await Promise.all([
      points.capture({ reservation, chargePoints: 100 }),
      points.capture({ reservation, chargePoints: 100 }),
      points.release(reservation),
    ]);
    expect(outcomes.filter((outcome) => outcome.kind === 'settled')).toHaveLength(1);
    const balance = await points.getBalance(key);
    expect(balance.reserved).toBe(0);
    expect([900, 1_000]).toContain(balance.balance);
    await expectLedgerConsistent(app.platform, key.accountId, key.environment);
  });

  it('answers a reservation that does not exist as already settled', async () => {
    const outcome = await app.platform.points.capture({
      reservation: { reservationId: 'res_missing', reservedPoints: 10 },
      chargePoints: 10,
    });
    expect(outcome).toEqual({ kind: 'alreadySettled' });
  });
});

describe('commit durability', () => {
  it.skipIf(!usingPostgres)('commits reservations without waiting for the WAL flush, and ' +
    'everything else durably', async () => {
    const { relaxedPool, pool } = app.platform.database;
    const setting = async (target: typeof pool) =>
      (await target.query('show synchronous_commit')).rows[0].synchronous_commit;
    expect(await setting(relaxedPool)).toBe('off');
    expect(await setting(pool)).toBe('on');
  });
});
