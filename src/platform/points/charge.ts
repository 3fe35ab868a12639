import assert from 'node:assert/strict';
import type { PriceRow } from '../operations.ts';
import type { Scope } from '../scope-types.ts';
import type { PriceTable } from './prices.ts';
import type { PointsService, Reservation, SettleOutcome } from './service.ts';

// The charge phases every paid operation runs: reserve the worst case, do the work (upstream
// calls happen here, outside any transaction), then capture what the spec charges and release
// the rest. A failure in the work releases the whole reservation; a failure while settling
// leaves the reservation to expire, so nothing is ever charged twice or for work not done.
// Work that is local and free to repeat checks, works, then debits instead (localWork).

// The work receives its reservation (null when the operation is free), so work that records
// what it charged can name the reservation it will be captured from.
type ChargedWork<T> = (
  reservation: Reservation | null,
) => Promise<{ value: T; chargedUnits: number }>;

type ChargeOptions = {
  scope: Scope;
  // The price row charged; the ledger records it as the entry's operation.
  operation: PriceRow;
  // The most units the work can charge, e.g. the number of accounts in a bulk lookup.
  unitsMax: number;
  // True when the work calls no one outside etax and changes nothing (a profile read from the
  // store or the sandbox). It then runs before any points move, and what it delivered is
  // debited in one statement that also checks the worst case by the reservation's rule: one
  // write instead of a reservation and a capture. A refused debit answers 402 or 409 and drops
  // the work's result; work that delivered nothing (or failed) reads the balance instead, so
  // a call the balance could not pay for answers 402 or 409 before the work's own error, as
  // a reservation would have (docs/errors.md § Order of checks).
  localWork?: boolean;
};

export type Charger = <T>(
  options: ChargeOptions,
  work: ChargedWork<T>,
) => Promise<{ value: T; settlement: SettleOutcome | null }>;

// The units the work says it delivered: a whole number from 0 to the units it was priced for.
function chargedUnitsOf(outcome: { chargedUnits: number }, options: ChargeOptions): number {
  assert(Number.isSafeInteger(outcome.chargedUnits), 'charged units must be an integer');
  assert(outcome.chargedUnits >= 0 && outcome.chargedUnits <= options.unitsMax);
  return outcome.chargedUnits;
}

export function createCharger(points: PointsService, prices: PriceTable): Charger {
  async function chargeAfterWork<T>(
    options: ChargeOptions,
    unitPoints: number,
    work: ChargedWork<T>,
  ): Promise<{ value: T; settlement: SettleOutcome }> {
    const requiredPoints = unitPoints * options.unitsMax;
    const requireAvailable = () => points.requireAvailable({ ...options.scope,
      points: requiredPoints });
    let outcome: Awaited<ReturnType<ChargedWork<T>>>;
    try {
      outcome = await work(null);
    } catch (error) {
      await requireAvailable();
      throw error;
    }
    const capturedPoints = unitPoints * chargedUnitsOf(outcome, options);
    if (capturedPoints === 0) {
      await requireAvailable();
    } else {
      await points.debit({ ...options.scope, operation: options.operation, points: capturedPoints,
        requiredPoints });
    }
    return { value: outcome.value, settlement: { kind: 'settled', capturedPoints,
      releasedPoints: 0 } };
  }

  return async function charge<T>(options: ChargeOptions, work: ChargedWork<T>) {
    assert(Number.isSafeInteger(options.unitsMax) && options.unitsMax >= 1);
    const unitPoints = prices[options.operation];
    assert(Number.isSafeInteger(unitPoints) && unitPoints >= 0);
    if (unitPoints === 0) {
      const { value } = await work(null);
      return { value, settlement: null };
    }
    if (options.localWork === true) return chargeAfterWork(options, unitPoints, work);
    const reservation = await points.reserve({
      ...options.scope,
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
    const settlement = await points.capture({
      reservation,
      chargePoints: unitPoints * chargedUnitsOf(outcome, options),
    });
    return { value: outcome.value, settlement };
  };
}
