import assert from 'node:assert/strict';
import type { EventType } from '../../platform/event-catalogue.ts';

// When a failed delivery is tried again (docs/webhooks.md § Retries). Pure: the caller passes
// the clock's time and a random number, so tests drive the schedule without waiting.

// 8 attempts in all: the first at once, then 7 retries after these delays, about 22 hours in
// total. Short first delays ride out a deploy or a restart; long later ones cover an outage
// of most of a day without hammering a receiver that is down.
export const RETRY_DELAYS_SECONDS = [30, 120, 600, 3_600, 10_800, 21_600, 43_200] as const;
export const DELIVERY_ATTEMPTS_MAX = RETRY_DELAYS_SECONDS.length + 1;
// Each delay is stretched or shrunk by up to 20 % so that deliveries that failed together (a
// receiver outage) do not all come back in the same second.
export const RETRY_JITTER_RATIO = 0.2;
// A test event (docs/webhooks.md § Testing a receiver) is attempted once: whoever sent it is
// reading the delivery log for the answer, and retrying a check for a day would only repeat it.
const TEST_EVENT_ATTEMPTS_MAX = 1;

// How many attempts a delivery of an event of this type gets, its resends included.
export function attemptsMaxFor(eventType: EventType): number {
  return eventType === 'WEBHOOK_TEST' ? TEST_EVENT_ATTEMPTS_MAX : DELIVERY_ATTEMPTS_MAX;
}

type NextAttemptOptions = {
  // The attempt that just failed, 1 for the first.
  attemptNumber: number;
  // The delivery's attempts in all (attemptsMaxFor).
  attemptsMax: number;
  now: Date;
  // A number in [0, 1), as Math.random returns.
  random: number;
};

// The time of the next attempt after a failed one, or null when no attempt is left.
export function nextAttemptAt(
  { attemptNumber, attemptsMax, now, random }: NextAttemptOptions,
): Date | null {
  assert(Number.isSafeInteger(attemptsMax));
  assert(attemptsMax >= 1 && attemptsMax <= DELIVERY_ATTEMPTS_MAX);
  assert(Number.isSafeInteger(attemptNumber));
  assert(attemptNumber >= 1 && attemptNumber <= attemptsMax);
  assert(random >= 0 && random < 1);
  if (attemptNumber === attemptsMax) return null;
  const delaySeconds = RETRY_DELAYS_SECONDS[attemptNumber - 1]!;
  const jitterFactor = 1 + RETRY_JITTER_RATIO * (2 * random - 1);
  return new Date(now.getTime() + Math.round(delaySeconds * jitterFactor * 1000));
}
