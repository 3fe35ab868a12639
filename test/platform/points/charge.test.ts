// The charge phases areas use: reserve the worst case, work, capture what was charged and release
// the rest; a failing work releases everything and a refused reservation never starts the work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/platform/errors.ts';
import { createCharger, type Charger } from '../../../src/platform/points/charge.ts';
import { buildPriceTable } from '../../../src/platform/points/prices.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';

let app: TestApp;
let charge: Charger;

beforeAll(async () => {
  app = await createTestApp();
  charge = createCharger(app.platform.points, buildPriceTable('{"bank.holders.inquire": 50}'));
});
afterAll(async () => {
  await app?.close();
});

const accountWithLivePoints = (points: number) => app.createLiveBalance(points);

describe('charging an operation', () => {
  it('captures the price of the charged units only and releases the rest', async () => {
    const scope = await accountWithLivePoints(1_000);
    const result = await charge({ scope, operation: 'bank.holders.inquire', unitsMax: 10 },
      async () => ({ value: 'done', chargedUnits: 3 }));
    expect(result.value).toBe('done');
    expect(result.settlement)
      .toEqual({ kind: 'settled', capturedPoints: 150, releasedPoints: 350 });
    expect(await app.platform.points.getBalance(scope))
      .toEqual({ balance: 850, reserved: 0, available: 850 });
    await expectLedgerConsistent(app.platform, scope.accountId, scope.environment);
  });

  it('holds the worst case while the work runs', async () => {
    const scope = await accountWithLivePoints(1_000);
    await charge({ scope, operation: 'bank.holders.inquire', unitsMax: 4 }, async () => {
      expect(await app.platform.points.getBalance(scope))
        .toEqual({ balance: 1_000, reserved: 200, available: 800 });
      return { value: null, chargedUnits: 0 };
    });
    expect(await app.platform.points.getBalance(scope))
      .toEqual({ balance: 1_000, reserved: 0, available: 1_000 });
  });

  it('releases the whole reservation and charges nothing when the work fails', async () => {
    const scope = await accountWithLivePoints(1_000);
    const failing = charge({ scope, operation: 'bank.holders.inquire', unitsMax: 2 }, async () => {
      throw new ApiError('SERVICE_UNAVAILABLE');
    });
    await expect(failing).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await app.platform.points.getBalance(scope))
      .toEqual({ balance: 1_000, reserved: 0, available: 1_000 });
    await expectLedgerConsistent(app.platform, scope.accountId, scope.environment);
  });

  it('returns 402 PAYMENT_REQUIRED and never runs the work when the balance is low', async () => {
    const scope = await accountWithLivePoints(49);
    let ran = false;
    const refused = charge({ scope, operation: 'bank.holders.inquire', unitsMax: 1 }, async () => {
      ran = true;
      return { value: null, chargedUnits: 1 };
    });
    await expect(refused).rejects.toMatchObject({ code: 'PAYMENT_REQUIRED', status: 402 });
    expect(ran).toBe(false);
  });

  it('refuses to capture more units than were reserved', async () => {
    const scope = await accountWithLivePoints(1_000);
    const overcharge = charge({ scope, operation: 'bank.holders.inquire', unitsMax: 1 },
      async () => ({ value: null, chargedUnits: 2 }));
    await expect(overcharge).rejects.toThrow();
    // The reservation stays open and expires later; the posted balance never moves.
    expect((await app.platform.points.getBalance(scope)).balance).toBe(1_000);
  });

  it('runs free operations without touching the ledger', async () => {
    const free = createCharger(app.platform.points, buildPriceTable('{"bank.holders.inquire": 0}'));
    const scope = await accountWithLivePoints(0);
    const result = await free({ scope, operation: 'bank.holders.inquire', unitsMax: 5 },
      async () => ({ value: 'free', chargedUnits: 5 }));
    expect(result).toEqual({ value: 'free', settlement: null });
  });
});
