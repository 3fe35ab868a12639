import dns from 'node:dns';
import type { DestinationStream } from 'pino';

// What a process takes from the world around it: the time, randomness, name resolution and where
// its log lines go. Production uses the system's; a test passes its own clock or resolver to the
// same factories instead of reaching into them.

export type Clock = () => Date;

// Every address a host name resolves to, as the system resolver returns them.
export type ResolveHost = (hostname: string) => Promise<dns.LookupAddress[]>;

export type Outside = {
  now: Clock;
  random: () => number;
  resolveHost: ResolveHost;
  // Standard output when absent.
  logDestination?: DestinationStream;
};

export const resolveWithSystem: ResolveHost = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

export function systemOutside(overrides: Partial<Outside> = {}): Outside {
  return { now: () => new Date(), random: Math.random, resolveHost: resolveWithSystem,
    ...overrides };
}
