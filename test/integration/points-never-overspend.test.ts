// The points ledger never overspends, on the real database and under real concurrency: a balance
// that covers 100 reservations grants exactly 100 of 200 concurrent ones, refusals follow the
// 402/409 rule of docs/points.md, a reservation is captured or released at most once, and
// after every step the ledger sums to the posted balance and open reservations to the reserved.
import { AssertionError } from 'node:assert';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/platform/accounts/keys.ts';
import {
  pointLedgerEntries,
  pointReservations,
} from '../../src/platform/db/tables.ts';
import { ApiError, type ErrorCode } from '../../src/platform/errors.ts';
import type { Reservation } from '../../src/platform/points/service.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectLedgerConsistent } from '../helpers/ledger-audit.ts';

// The price of a profile retrieval: the unit every scenario here reserves.
const RETRIEVAL_POINTS = 90;
// Exactly 100 retrievals fit; the race sends twice as many.
const GRANT_POINTS = 100 * RETRIEVAL_POINTS;
const CONCURRENT_RESERVATIONS_COUNT = 200;
const OPERATION = 'businesses.profiles.retrieve';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function accountWithLivePoints(points: number): Promise<string> {
  return (await app.createLiveBalance(points)).accountId;
}

function reserve(accountId: string, points = RETRIEVAL_POINTS, environment: Environment = 'live') {
  return app.platform.points.reserve({ accountId, environment, operation: OPERATION, points });
}

async function expectRefusal(promise: Promise<unknown>, code: ErrorCode, status: number) {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ code, status });
}

async function liveBalance(accountId: string) {
  return app.platform.points.getBalance({ accountId, environment: 'live' });
}

async function ledgerEntriesOf(accountId: string, environment: Environment = 'live') {
  return app.platform.database.db
    .select()
    .from(pointLedgerEntries)
    .where(
      and(
        eq(pointLedgerEntries.accountId, accountId),
        eq(pointLedgerEntries.environment, environment),
      ),
    )
    .orderBy(pointLedgerEntries.createdAt)
    .limit(1_000);
}

async function ledgerEntriesForReservation(reservationId: string) {
  return app.platform.database.db
    .select()
    .from(pointLedgerEntries)
    .where(eq(pointLedgerEntries.reservationId, reservationId))
    .limit(10);
}

async function reservationRow(reservationId: string) {
  const [row] = await app.platform.database.db
    .select()
    .from(pointReservations)
    .where(eq(pointReservations.id, reservationId))
    .limit(1);
  return row;
}

async function reservationsOf(accountId: string) {
  return app.platform.database.db
    .select()
    .from(pointReservations)
    .where(eq(pointReservations.accountId, accountId))
    .limit(1_000);
}

function split<T>(results: PromiseSettledResult<T>[]) {
  const fulfilled: T[] = [];
  const rejected: unknown[] = [];
  for (const result of results) {
    if (result.status === 'fulfilled') fulfilled.push(result.value);
    else rejected.push(result.reason);
  }
  return { fulfilled, rejected };
}

describe('reserving points under concurrency', () => {
  it('grants 100 of 200 concurrent 90-point reservations and refuses 100 with 409', async () => {
    const accountId = await accountWithLivePoints(GRANT_POINTS);
    const results = await Promise.allSettled(
      Array.from({ length: CONCURRENT_RESERVATIONS_COUNT }, () => reserve(accountId)),
    );
    const { fulfilled, rejected } = split(results);

    expect(fulfilled).toHaveLength(100);
    expect(new Set(fulfilled.map((reservation) => reservation.reservationId)).size).toBe(100);
    expect(fulfilled.every((reservation) => reservation.reservedPoints === 90)).toBe(true);
    expect(rejected).toHaveLength(100);
    for (const reason of rejected) {
      // The posted balance (9000) always covers 90, so every refusal is 409, never 402.
      expect(reason).toBeInstanceOf(ApiError);
      expect(reason).toMatchObject({ code: 'AVAILABLE_POINTS_INSUFFICIENT', status: 409 });
    }
    expect(await liveBalance(accountId)).toEqual({ balance: 9_000, reserved: 9_000, available: 0 });
    expect(await reservationsOf(accountId)).toHaveLength(100);
    // Reserving charges nothing: the only ledger entry is the grant.
    expect(await ledgerEntriesOf(accountId)).toHaveLength(1);
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('charges 60 × 90 after capturing 60, capturing 20 at 0 and releasing 20', async () => {
    const accountId = await accountWithLivePoints(GRANT_POINTS);
    const reservations = await Promise.all(Array.from({ length: 100 }, () => reserve(accountId)));
    await expectRefusal(reserve(accountId), 'AVAILABLE_POINTS_INSUFFICIENT', 409);

    const points = app.platform.points;
    const outcomes = await Promise.all(
      reservations.map((reservation, index) => {
        if (index < 60) return points.capture({ reservation, chargePoints: RETRIEVAL_POINTS });
        if (index < 80) return points.capture({ reservation, chargePoints: 0 });
        return points.release(reservation);
      }),
    );

    expect(outcomes.every((outcome) => outcome.kind === 'settled')).toBe(true);
    expect(outcomes.slice(0, 60)).toEqual(
      Array(60).fill({ kind: 'settled', capturedPoints: 90, releasedPoints: 0 }),
    );
    expect(outcomes.slice(60)).toEqual(
      Array(40).fill({ kind: 'settled', capturedPoints: 0, releasedPoints: 90 }),
    );
    const balancePoints = GRANT_POINTS - 60 * RETRIEVAL_POINTS;
    expect(await liveBalance(accountId)).toEqual({
      balance: balancePoints,
      reserved: 0,
      available: balancePoints,
    });
    // One grant plus one capture entry per charged reservation; a capture of 0 writes none.
    const entries = await ledgerEntriesOf(accountId);
    expect(entries.filter((entry) => entry.kind === 'grant')).toHaveLength(1);
    expect(entries.filter((entry) => entry.kind === 'capture')).toHaveLength(60);
    expect(entries.reduce((sum, entry) => sum + entry.amountPoints, 0)).toBe(balancePoints);
    const statuses = (await reservationsOf(accountId)).map((row) => row.status).sort();
    expect(statuses).toEqual([...Array(80).fill('captured'), ...Array(20).fill('released')]);
    await expectLedgerConsistent(app.platform, accountId, 'live');

    // What was released is available again.
    await expect(reserve(accountId)).resolves.toMatchObject({ reservedPoints: 90 });
  });
});

describe('refusing reservations', () => {
  it('refuses with 402 PAYMENT_REQUIRED when the posted balance is 89 and nothing is reserved',
    async () => {
      const accountId = await accountWithLivePoints(89);
      await expectRefusal(reserve(accountId), 'PAYMENT_REQUIRED', 402);
      expect(await liveBalance(accountId)).toEqual({ balance: 89, reserved: 0, available: 89 });
      expect(await reservationsOf(accountId)).toHaveLength(0);
      expect(await ledgerEntriesOf(accountId)).toHaveLength(1);
      await expectLedgerConsistent(app.platform, accountId, 'live');
    });

  it('refuses with 402 PAYMENT_REQUIRED when the live balance was never granted', async () => {
    const accountId = await accountWithLivePoints(0);
    await expectRefusal(reserve(accountId), 'PAYMENT_REQUIRED', 402);
    expect(await reservationsOf(accountId)).toHaveLength(0);
  });

  it('reserves when the posted balance equals the amount exactly', async () => {
    const accountId = await accountWithLivePoints(90);
    await expect(reserve(accountId)).resolves.toMatchObject({ reservedPoints: 90 });
    expect(await liveBalance(accountId)).toEqual({ balance: 90, reserved: 90, available: 0 });
  });

  it('refuses with 409 AVAILABLE_POINTS_INSUFFICIENT when posted covers the amount but '
    + 'available does not', async () => {
    const accountId = await accountWithLivePoints(100);
    const held = await reserve(accountId);
    // Posted 100 ≥ 90, available 10 < 90.
    await expectRefusal(reserve(accountId), 'AVAILABLE_POINTS_INSUFFICIENT', 409);
    expect(await liveBalance(accountId)).toEqual({ balance: 100, reserved: 90, available: 10 });
    expect(await reservationsOf(accountId)).toHaveLength(1);
    await expectLedgerConsistent(app.platform, accountId, 'live');

    await app.platform.points.release(held);
    await expect(reserve(accountId)).resolves.toMatchObject({ reservedPoints: 90 });
  });

  it('refuses with 402, not 409, when posted is below the amount while points are reserved',
    async () => {
      const accountId = await accountWithLivePoints(100);
      await reserve(accountId);
      await expectRefusal(reserve(accountId, 150), 'PAYMENT_REQUIRED', 402);
      expect(await liveBalance(accountId)).toEqual({ balance: 100, reserved: 90, available: 10 });
    });

  it('refuses with 402 once captures bring the posted balance below the amount', async () => {
    const accountId = await accountWithLivePoints(150);
    const reservation = await reserve(accountId);
    await app.platform.points.capture({ reservation, chargePoints: 90 });
    await expectRefusal(reserve(accountId), 'PAYMENT_REQUIRED', 402);
    expect(await liveBalance(accountId)).toEqual({ balance: 60, reserved: 0, available: 60 });
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('refuses a reservation of 0 or fractional points with an assertion failure', async () => {
    const accountId = await accountWithLivePoints(1_000);
    await expect(reserve(accountId, 0)).rejects.toBeInstanceOf(AssertionError);
    await expect(reserve(accountId, 1.5)).rejects.toBeInstanceOf(AssertionError);
    expect(await reservationsOf(accountId)).toHaveLength(0);
  });
});

describe('separating test and live balances', () => {
  it('refuses a live reservation with 402 while the test balance holds the sign-up points',
    async () => {
      const accountId = await accountWithLivePoints(0);
      await expectRefusal(reserve(accountId, 90, 'live'), 'PAYMENT_REQUIRED', 402);
      await expect(reserve(accountId, 90, 'test')).resolves.toMatchObject({ reservedPoints: 90 });
      const test = await app.platform.points.getBalance({ accountId, environment: 'test' });
      expect(test).toEqual({ balance: 1_000_000, reserved: 90, available: 999_910 });
      expect(await liveBalance(accountId)).toEqual({ balance: 0, reserved: 0, available: 0 });
    });

  it('leaves the test balance untouched by live grants, reservations and captures', async () => {
    const accountId = await accountWithLivePoints(500);
    const reservation = await reserve(accountId, 200, 'live');
    await app.platform.points.capture({ reservation, chargePoints: 120 });
    expect(await liveBalance(accountId)).toEqual({ balance: 380, reserved: 0, available: 380 });
    const test = await app.platform.points.getBalance({ accountId, environment: 'test' });
    expect(test).toEqual({ balance: 1_000_000, reserved: 0, available: 1_000_000 });
    await expectLedgerConsistent(app.platform, accountId, 'live');
    await expectLedgerConsistent(app.platform, accountId, 'test');
  });

  it('refuses a test reservation with 409 while the live balance stays available', async () => {
    const accountId = await accountWithLivePoints(1_000);
    await reserve(accountId, 1_000_000, 'test');
    await expectRefusal(reserve(accountId, 1, 'test'), 'AVAILABLE_POINTS_INSUFFICIENT', 409);
    await expect(reserve(accountId, 1_000, 'live')).resolves.toMatchObject({
      reservedPoints: 1_000,
    });
  });
});

describe('granting points', () => {
  it('appends one grant entry per grant whose running sum equals the balance', async () => {
    const accountId = await accountWithLivePoints(0);
    for (const points of [100, 250, 4_000]) {
      await app.platform.points.grant({ accountId, environment: 'live', points, memo: 'top-up' });
    }
    const live = await ledgerEntriesOf(accountId);
    expect(live.map((entry) => entry.kind)).toEqual(['grant', 'grant', 'grant']);
    expect(live.map((entry) => entry.amountPoints)).toEqual([100, 250, 4_000]);
    expect(live.map((entry) => entry.balanceAfterPoints).sort((a, b) => a - b)).toEqual([
      100, 350, 4_350,
    ]);
    expect(live.every((entry) => entry.memo === 'top-up' && entry.reservationId === null)).toBe(
      true,
    );
    expect(await liveBalance(accountId)).toEqual({ balance: 4_350, reserved: 0, available: 4_350 });
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('keeps the ledger sum equal to the balance under concurrent grants', async () => {
    const accountId = await accountWithLivePoints(0);
    await Promise.all(
      Array.from({ length: 25 }, () =>
        app.platform.points.grant({ accountId, environment: 'live', points: 40 }),
      ),
    );
    expect(await liveBalance(accountId)).toEqual({ balance: 1_000, reserved: 0, available: 1_000 });
    const entries = await ledgerEntriesOf(accountId);
    expect(entries).toHaveLength(25);
    // Each grant saw a distinct balance: no update was lost.
    expect(new Set(entries.map((entry) => entry.balanceAfterPoints)).size).toBe(25);
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('refuses a grant of 0 or negative points with an assertion failure', async () => {
    const accountId = await accountWithLivePoints(0);
    const grant = (points: number) =>
      app.platform.points.grant({ accountId, environment: 'live', points });
    await expect(grant(0)).rejects.toBeInstanceOf(AssertionError);
    await expect(grant(-90)).rejects.toBeInstanceOf(AssertionError);
    expect(await ledgerEntriesOf(accountId)).toHaveLength(0);
  });
});

describe('settling a reservation at most once', () => {
  async function openReservation(grantPoints = 1_000): Promise<[string, Reservation]> {
    const accountId = await accountWithLivePoints(grantPoints);
    return [accountId, await reserve(accountId)];
  }

  it('returns alreadySettled and charges nothing when a reservation is captured twice',
    async () => {
      const [accountId, reservation] = await openReservation();
      const points = app.platform.points;
      await expect(points.capture({ reservation, chargePoints: 90 })).resolves.toEqual({
        kind: 'settled',
        capturedPoints: 90,
        releasedPoints: 0,
      });
      await expect(points.capture({ reservation, chargePoints: 90 })).resolves.toEqual({
        kind: 'alreadySettled',
      });
      expect(await liveBalance(accountId)).toEqual({ balance: 910, reserved: 0, available: 910 });
      expect(await ledgerEntriesForReservation(reservation.reservationId)).toHaveLength(1);
      await expectLedgerConsistent(app.platform, accountId, 'live');
    });

  it('returns alreadySettled and gives nothing back when a captured reservation is released',
    async () => {
      const [accountId, reservation] = await openReservation();
      await app.platform.points.capture({ reservation, chargePoints: 30 });
      await expect(app.platform.points.release(reservation)).resolves.toEqual({
        kind: 'alreadySettled',
      });
      expect(await liveBalance(accountId)).toEqual({ balance: 970, reserved: 0, available: 970 });
      expect(await reservationRow(reservation.reservationId)).toMatchObject({
        status: 'captured',
        capturedPoints: 30,
      });
      await expectLedgerConsistent(app.platform, accountId, 'live');
    });

  it('returns alreadySettled and writes no ledger entry when a released reservation is captured',
    async () => {
      const [accountId, reservation] = await openReservation();
      await expect(app.platform.points.release(reservation)).resolves.toEqual({
        kind: 'settled',
        capturedPoints: 0,
        releasedPoints: 90,
      });
      await expect(
        app.platform.points.capture({ reservation, chargePoints: 90 }),
      ).resolves.toEqual({ kind: 'alreadySettled' });
      expect(await liveBalance(accountId)).toEqual({
        balance: 1_000,
        reserved: 0,
        available: 1_000,
      });
      expect(await ledgerEntriesForReservation(reservation.reservationId)).toHaveLength(0);
      expect(await reservationRow(reservation.reservationId)).toMatchObject({
        status: 'released',
        capturedPoints: null,
      });
      await expectLedgerConsistent(app.platform, accountId, 'live');
    });

  it('returns alreadySettled when a reservation is released twice', async () => {
    const [accountId, reservation] = await openReservation();
    await app.platform.points.release(reservation);
    await expect(app.platform.points.release(reservation)).resolves.toEqual({
      kind: 'alreadySettled',
    });
    expect(await liveBalance(accountId)).toEqual({ balance: 1_000, reserved: 0, available: 1_000 });
  });

  it('settles exactly one of 20 concurrent captures and writes one ledger entry', async () => {
    const [accountId, reservation] = await openReservation();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () =>
        app.platform.points.capture({ reservation, chargePoints: 90 }),
      ),
    );
    const settled = outcomes.filter((outcome) => outcome.kind === 'settled');
    expect(settled).toEqual([{ kind: 'settled', capturedPoints: 90, releasedPoints: 0 }]);
    expect(outcomes.filter((outcome) => outcome.kind === 'alreadySettled')).toHaveLength(19);
    const entries = await ledgerEntriesForReservation(reservation.reservationId);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ kind: 'capture', amountPoints: -90 });
    expect(await liveBalance(accountId)).toEqual({ balance: 910, reserved: 0, available: 910 });
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('settles exactly one of 10 captures and 10 releases racing on one reservation', async () => {
    const [accountId, reservation] = await openReservation();
    const points = app.platform.points;
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        index % 2 === 0
          ? points.capture({ reservation, chargePoints: 90 })
          : points.release(reservation),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.kind === 'settled')).toHaveLength(1);
    const row = await reservationRow(reservation.reservationId);
    const entries = await ledgerEntriesForReservation(reservation.reservationId);
    // Whichever won, the balance, the reservation row and the ledger agree.
    if (row?.status === 'captured') {
      expect(entries).toHaveLength(1);
      expect(await liveBalance(accountId)).toMatchObject({ balance: 910, reserved: 0 });
    } else {
      expect(row?.status).toBe('released');
      expect(entries).toHaveLength(0);
      expect(await liveBalance(accountId)).toMatchObject({ balance: 1_000, reserved: 0 });
    }
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('refuses a charge above the reservation with an assertion failure and leaves it open',
    async () => {
      const [accountId, reservation] = await openReservation();
      await expect(
        app.platform.points.capture({ reservation, chargePoints: 91 }),
      ).rejects.toBeInstanceOf(AssertionError);
      await expect(
        app.platform.points.capture({ reservation, chargePoints: -1 }),
      ).rejects.toBeInstanceOf(AssertionError);
      expect(await reservationRow(reservation.reservationId)).toMatchObject({ status: 'reserved' });
      expect(await liveBalance(accountId)).toEqual({
        balance: 1_000,
        reserved: 90,
        available: 910,
      });
      expect(await ledgerEntriesForReservation(reservation.reservationId)).toHaveLength(0);
    });
});

describe('debiting work already done (localWork)', () => {
  const debit = (accountId: string, points = RETRIEVAL_POINTS, requiredPoints = points) =>
    app.platform.points.debit({ accountId, environment: 'live', operation: OPERATION, points,
      requiredPoints });

  it('debits 100 of 200 concurrent 90-point charges and refuses 100 with 402', async () => {
    const accountId = await accountWithLivePoints(GRANT_POINTS);
    const results = await Promise.allSettled(
      Array.from({ length: CONCURRENT_RESERVATIONS_COUNT }, () => debit(accountId)));
    const { fulfilled, rejected } = split(results);
    expect(fulfilled).toHaveLength(100);
    expect(rejected).toHaveLength(100);
    for (const reason of rejected) {
      // Debits leave the posted balance; once it is below 90, the refusal is 402.
      expect(reason).toMatchObject({ code: 'PAYMENT_REQUIRED', status: 402 });
    }
    expect(await liveBalance(accountId)).toEqual({ balance: 0, reserved: 0, available: 0 });
    const entries = await ledgerEntriesOf(accountId);
    const charges = entries.filter((entry) => entry.kind === 'charge');
    expect(charges).toHaveLength(100);
    expect(charges.every((entry) => entry.amountPoints === -90 && entry.memo === OPERATION &&
      entry.reservationId === null)).toBe(true);
    // Each entry records the balance after it: 100 distinct steps from 8,910 down to 0.
    expect(charges.map((entry) => entry.balanceAfterPoints).sort((a, b) => b - a))
      .toEqual(Array.from({ length: 100 }, (_, index) => 8_910 - index * 90));
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('refuses with 409 when reservations hold the points the debit needs', async () => {
    const accountId = await accountWithLivePoints(100);
    await reserve(accountId, 20);
    await expectRefusal(debit(accountId), 'AVAILABLE_POINTS_INSUFFICIENT', 409);
    await expectRefusal(debit(accountId, 150), 'PAYMENT_REQUIRED', 402);
    expect(await liveBalance(accountId)).toEqual({ balance: 100, reserved: 20, available: 80 });
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('needs the worst case available but debits only what was delivered', async () => {
    const accountId = await accountWithLivePoints(180);
    // A search page priced at 20 results (180) that returned 3 (27).
    await debit(accountId, 27, 180);
    expect(await liveBalance(accountId)).toEqual({ balance: 153, reserved: 0, available: 153 });
    // 153 no longer covers the worst case of 180: 402, and nothing changes.
    await expectRefusal(debit(accountId, 27, 180), 'PAYMENT_REQUIRED', 402);
    await reserve(accountId, 100);
    // Posted 153 covers 90, but 100 of it is reserved: 409.
    await expectRefusal(debit(accountId, 9, 90), 'AVAILABLE_POINTS_INSUFFICIENT', 409);
    expect(await liveBalance(accountId)).toEqual({ balance: 153, reserved: 100, available: 53 });
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('checks availability by the same rule without writing anything', async () => {
    const accountId = await accountWithLivePoints(100);
    await reserve(accountId, 20);
    const check = (points: number) => app.platform.points.requireAvailable(
      { accountId, environment: 'live', points });
    await expect(check(80)).resolves.toBeUndefined();
    await expectRefusal(check(90), 'AVAILABLE_POINTS_INSUFFICIENT', 409);
    await expectRefusal(check(101), 'PAYMENT_REQUIRED', 402);
    const neverGranted = await accountWithLivePoints(0);
    await expectRefusal(app.platform.points.requireAvailable(
      { accountId: neverGranted, environment: 'live', points: 1 }), 'PAYMENT_REQUIRED', 402);
    expect(await ledgerEntriesOf(accountId)).toHaveLength(1);
  });

  it('debits a live balance only, never the test balance of the same account', async () => {
    const accountId = await accountWithLivePoints(90);
    const before = await app.platform.points.getBalance({ accountId, environment: 'test' });
    await debit(accountId);
    expect(await app.platform.points.getBalance({ accountId, environment: 'test' }))
      .toEqual(before);
    expect(await liveBalance(accountId)).toEqual({ balance: 0, reserved: 0, available: 0 });
  });
});
