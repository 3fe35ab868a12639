import assert from 'node:assert/strict';
import type { PriceTable, PricedOperation } from './prices.ts';
import type { BalanceKey, PointsService, Reservation, SettleOutcome } from './service.ts';

// The charge phases every paid operation runs: reserve the worst case, do the work (upstream
// calls happen here, outside any transaction), then capture what the spec charges and release
// the rest. A failure in the work releases the whole reservation; a failure while settling
// leaves the reservation to expire, so nothing is ever charged twice or for work not done.

// The work receives its reservation (null when the operation is free), so work that records
// what it charged can name the reservation it will be captured from.
export type ChargedWork<T> = (
  reservation: Reservation | null,
) => Promise<{ value: T; chargedUnits: number }>;

type ChargeOptions = {
  key: BalanceKey;
  operation: PricedOperation;
  // The most units the work can charge, e.g. the number of accounts in a bulk lookup.
  unitsMax: number;
};

export type Charger = <T>(
  options: ChargeOptions,
  work: ChargedWork<T>,
) => Promise<{ value: T; settlement: SettleOutcome | null }>;

export function createCharger(points: PointsService, prices: PriceTable): Charger {
  return async function charge<T>(options: ChargeOptions, work: ChargedWork<T>) {
    assert(Number.isSafeInteger(options.unitsMax) && options.unitsMax >= 1);
    const unitPoints = prices[options.operation];
    assert(Number.isSafeInteger(unitPoints) && unitPoints >= 0);
    if (unitPoints === 0) {
      const { value } = await work(null);
      return { value, settlement: null };
    }
    const reservation = await points.reserve({
      ...options.key,
      operation: options.operation,
      points: unitPoints * options.unitsMax,
    });
    let outcome: Awaited<ReturnType<ChargedWork<T>>>;
    try {
      outcome = await work(reservation);
    } catch (error) {
      await points.release(reservation);
      throw error;
    }
    assert(Number.isSafeInteger(outcome.chargedUnits), 'charged units must be an integer');
    assert(outcome.chargedUnits >= 0 && outcome.chargedUnits <= options.unitsMax);
    const settlement = await points.capture({
      reservation,
      chargePoints: unitPoints * outcome.chargedUnits,
    });
    return { value: outcome.value, settlement };
  };
}
