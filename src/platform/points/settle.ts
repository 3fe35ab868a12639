import assert from 'node:assert/strict';

type SettleOptions = { reservedPoints: number; chargePoints: number };

// Splits a reservation into what is captured and what is released. Pure; the caller writes the
// result in one statement.
export function settle({ reservedPoints, chargePoints }: SettleOptions) {
  assert(Number.isSafeInteger(reservedPoints));
  assert(Number.isSafeInteger(chargePoints));
  assert(chargePoints >= 0);
  // We reserve the worst case before calling upstream, so a larger charge is our bug.
  assert(chargePoints <= reservedPoints);
  return { capturedPoints: chargePoints, releasedPoints: reservedPoints - chargePoints };
}
