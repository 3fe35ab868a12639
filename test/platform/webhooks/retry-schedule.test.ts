// The retry schedule is a pure function of the failed attempt's number, the clock and a random
// number: the documented delays at the jitter's midpoint, within ±20 % at its ends, and no
// attempt after the eighth, or after the first for a test event.
import { describe, expect, it } from 'vitest';
import {
  attemptsMaxFor,
  DELIVERY_ATTEMPTS_MAX,
  nextAttemptAt,
  RETRY_DELAYS_SECONDS,
  RETRY_JITTER_RATIO,
} from '../../../src/areas/webhooks/retry-schedule.ts';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../../src/platform/event-catalogue.ts';

const NOW = new Date('2026-03-01T00:00:00.000Z');
const delayMs = (attemptNumber: number, random: number) =>
  nextAttemptAt({ attemptNumber, attemptsMax: DELIVERY_ATTEMPTS_MAX, now: NOW, random })!
    .getTime() - NOW.getTime();

describe('nextAttemptAt', () => {
  it('waits 30 s, 2 min, 10 min, 1 h, 3 h, 6 h and 12 h after attempts 1 to 7', () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([30, 120, 600, 3_600, 10_800, 21_600, 43_200]);
    for (let attemptNumber = 1; attemptNumber < DELIVERY_ATTEMPTS_MAX; attemptNumber += 1) {
      expect(delayMs(attemptNumber, 0.5)).toBe(RETRY_DELAYS_SECONDS[attemptNumber - 1]! * 1000);
    }
  });

  it('makes 8 attempts in about a day', () => {
    expect(DELIVERY_ATTEMPTS_MAX).toBe(8);
    const totalHours = RETRY_DELAYS_SECONDS.reduce((sum, seconds) => sum + seconds, 0) / 3600;
    expect(totalHours).toBeGreaterThan(20);
    expect(totalHours).toBeLessThan(26);
  });

  it('stretches or shrinks each delay by at most the jitter ratio', () => {
    for (let attemptNumber = 1; attemptNumber < DELIVERY_ATTEMPTS_MAX; attemptNumber += 1) {
      const baseMs = RETRY_DELAYS_SECONDS[attemptNumber - 1]! * 1000;
      expect(delayMs(attemptNumber, 0)).toBe(Math.round(baseMs * (1 - RETRY_JITTER_RATIO)));
      expect(delayMs(attemptNumber, 0.999_999)).toBeLessThanOrEqual(
        Math.round(baseMs * (1 + RETRY_JITTER_RATIO)));
      expect(delayMs(attemptNumber, 0.999_999)).toBeGreaterThan(baseMs);
    }
  });

  it('returns null after the last attempt', () => {
    expect(nextAttemptAt({ attemptNumber: DELIVERY_ATTEMPTS_MAX,
      attemptsMax: DELIVERY_ATTEMPTS_MAX, now: NOW, random: 0.5 })).toBeNull();
  });

  it('refuses attempt numbers outside 1 to 8 and random numbers outside [0, 1)', () => {
    const next = (attemptNumber: number, random: number, attemptsMax = DELIVERY_ATTEMPTS_MAX) =>
      () => nextAttemptAt({ attemptNumber, attemptsMax, now: NOW, random });
    expect(next(0, 0.5)).toThrow();
    expect(next(9, 0.5)).toThrow();
    expect(next(1, 1)).toThrow();
    expect(next(2, 0.5, 1)).toThrow();
    expect(next(1, 0.5, 0)).toThrow();
    expect(next(1, 0.5, DELIVERY_ATTEMPTS_MAX + 1)).toThrow();
  });
});

describe('attemptsMaxFor', () => {
  it('gives every event type 8 attempts and a test event 1, with no retry after it', () => {
    for (const type of SUBSCRIBABLE_EVENT_TYPES) {
      expect(attemptsMaxFor(type)).toBe(DELIVERY_ATTEMPTS_MAX);
    }
    expect(attemptsMaxFor('WEBHOOK_TEST')).toBe(1);
    expect(nextAttemptAt({ attemptNumber: 1, attemptsMax: attemptsMaxFor('WEBHOOK_TEST'),
      now: NOW, random: 0.5 })).toBeNull();
  });
});
