import { setTimeout as sleep } from 'node:timers/promises';

// Bounded polling for state that another process or a job changes: probes until `done` holds
// or attemptsMax probes were made, and returns the last value, so the caller's assertion shows
// what was seen instead of a timeout. Tests wait this way, never with a fixed sleep.

export type PollOptions = { attemptsMax: number; intervalMs: number };

const POLL_DEFAULTS: PollOptions = { attemptsMax: 300, intervalMs: 100 };

export async function pollUntil<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  options: PollOptions = POLL_DEFAULTS,
): Promise<T> {
  let value = await probe();
  for (let attempt = 1; attempt < options.attemptsMax && !done(value); attempt += 1) {
    await sleep(options.intervalMs);
    value = await probe();
  }
  return value;
}
