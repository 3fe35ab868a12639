// settle() splits a reservation into what is captured and what is released. It is pure, and a
// charge it cannot honour (negative, larger than the reservation, not an integer) is our own bug,
// so it fails an assertion instead of returning a number that would corrupt the ledger.
import { AssertionError } from 'node:assert';
import { describe, expect, it } from 'vitest';
import { settle } from '../../../src/platform/points/settle.ts';

describe('settling a reservation', () => {
  it('captures the whole reservation and releases nothing when the charge equals it', () => {
    expect(settle({ reservedPoints: 90, chargePoints: 90 })).toEqual({
      capturedPoints: 90,
      releasedPoints: 0,
    });
  });

  it('captures the charge and releases the rest when the charge is smaller', () => {
    expect(settle({ reservedPoints: 5_000, chargePoints: 150 })).toEqual({
      capturedPoints: 150,
      releasedPoints: 4_850,
    });
  });

  it('captures nothing and releases everything when the charge is 0', () => {
    expect(settle({ reservedPoints: 500, chargePoints: 0 })).toEqual({
      capturedPoints: 0,
      releasedPoints: 500,
    });
  });

  it('keeps captured plus released equal to the reservation for every charge', () => {
    const reservedPoints = 1_000;
    for (let chargePoints = 0; chargePoints <= reservedPoints; chargePoints += 37) {
      const { capturedPoints, releasedPoints } = settle({ reservedPoints, chargePoints });
      expect(capturedPoints + releasedPoints).toBe(reservedPoints);
      expect(releasedPoints).toBeGreaterThanOrEqual(0);
    }
  });

  it('handles the largest safe integer without losing precision', () => {
    const reservedPoints = Number.MAX_SAFE_INTEGER;
    expect(settle({ reservedPoints, chargePoints: 1 })).toEqual({
      capturedPoints: 1,
      releasedPoints: Number.MAX_SAFE_INTEGER - 1,
    });
  });
});

describe('refusing impossible charges', () => {
  it('refuses a negative charge with an assertion failure', () => {
    expect(() => settle({ reservedPoints: 90, chargePoints: -1 })).toThrow(AssertionError);
  });

  it('refuses a charge one point over the reservation with an assertion failure', () => {
    expect(() => settle({ reservedPoints: 90, chargePoints: 91 })).toThrow(AssertionError);
  });

  it('refuses any charge on a reservation of 0 points except 0', () => {
    expect(() => settle({ reservedPoints: 0, chargePoints: 1 })).toThrow(AssertionError);
    expect(settle({ reservedPoints: 0, chargePoints: 0 })).toEqual({
      capturedPoints: 0,
      releasedPoints: 0,
    });
  });

  it('refuses a fractional charge or reservation with an assertion failure', () => {
    expect(() => settle({ reservedPoints: 90, chargePoints: 0.5 })).toThrow(AssertionError);
    expect(() => settle({ reservedPoints: 90.5, chargePoints: 0 })).toThrow(AssertionError);
  });

  it('refuses NaN, Infinity and unsafe integers with an assertion failure', () => {
    expect(() => settle({ reservedPoints: 90, chargePoints: NaN })).toThrow(AssertionError);
    expect(() => settle({ reservedPoints: Infinity, chargePoints: 0 })).toThrow(AssertionError);
    const unsafe = Number.MAX_SAFE_INTEGER + 1;
    expect(() => settle({ reservedPoints: unsafe, chargePoints: 0 })).toThrow(AssertionError);
  });
});
