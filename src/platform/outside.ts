import dns from 'node:dns';
import type { DestinationStream } from 'pino';
import type { CertificateValidator, TaxAuthority } from '../upstream/tax-authority/index.ts';

// What a process takes from the world around it: the time, randomness, name resolution, where
// its log lines go and the live authorities it calls. Production uses the system's and the
// adapters the configuration describes; a test passes its own clock, resolver or authority to
// the same factories instead of reaching into them.

type Clock = () => Date;

// Every address a host name resolves to, as the system resolver returns them.
export type ResolveHost = (hostname: string) => Promise<dns.LookupAddress[]>;

export type Outside = {
  now: Clock;
  random: () => number;
  resolveHost: ResolveHost;
  // Standard output when absent.
  logDestination?: DestinationStream;
  // Live authorities reached some other way than through the configured URLs (an embedding
  // application's own client, a test's fake); each absent one is built from the configuration.
  upstreams?: { taxAuthority?: TaxAuthority; certificateValidator?: CertificateValidator };
};

const resolveWithSystem: ResolveHost = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

export function systemOutside(overrides: Partial<Outside> = {}): Outside {
  return { now: () => new Date(), random: Math.random, resolveHost: resolveWithSystem,
    ...overrides };
}
