import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { ResolveHost } from '../../platform/outside.ts';

// Where webhooks may be sent (docs/webhooks.md § Allowed URLs). A webhook makes our server send
// a request to an address the client chose, so an address inside our own network (loopback,
// private ranges, link-local and cloud metadata) would let a client reach services that trust
// that network. The check runs when an endpoint is saved and again on every connection, against
// the address actually connected to, so a name that later resolves elsewhere (DNS rebinding)
// is refused too.

export type TargetPolicy = {
  // http:// as well as https://.
  httpAllowed: boolean;
  // 127.0.0.0/8 and ::1, for a receiver on the developer's own machine.
  loopbackAllowed: boolean;
  // Private, unique-local, carrier-grade NAT and loopback ranges: self-hosted setups whose
  // receivers live on the same private network (WEBHOOK_PRIVATE_TARGETS_ALLOWED).
  privateAllowed: boolean;
};

// Test keys may target the developer's own machine over plain http; live keys need https and a
// public address. Self-hosted setups may allow private addresses for every key.
export function targetPolicyFor(environment: Environment, privateTargetsAllowed: boolean) {
  const test = environment === 'test';
  return {
    httpAllowed: test,
    loopbackAllowed: test || privateTargetsAllowed,
    privateAllowed: privateTargetsAllowed,
  } satisfies TargetPolicy;
}

// Cloud metadata services; never a webhook receiver, whatever the policy.
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);
const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'carrierGradeNat']);

// True when a webhook may connect to this IP address under the policy.
export function addressAllowed(address: string, policy: TargetPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString())) return false;
  if (METADATA_ADDRESSES.has(parsed.toString())) return false;
  const range = parsed.range();
  if (range === 'unicast') return true;
  if (range === 'loopback') return policy.loopbackAllowed;
  if (PRIVATE_RANGES.has(range)) return policy.privateAllowed;
  // Link-local, unspecified, multicast, broadcast, reserved, and IPv6 ranges that embed an IPv4
  // address (6to4, Teredo, NAT64) are never webhook receivers.
  return false;
}

type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

// A bracketed IPv6 literal in a URL, or the hostname as it is.
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function checkUrlShape(text: string, policy: TargetPolicy): UrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'is not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: 'must use https' };
  }
  if (url.protocol === 'http:' && !policy.httpAllowed) {
    return { ok: false, reason: 'must use https with a live key' };
  }
  if (url.username || url.password) return { ok: false, reason: 'must not contain credentials' };
  if (url.hash) return { ok: false, reason: 'must not contain a fragment' };
  return { ok: true, url };
}

// How long resolving an endpoint's host may take when it is saved.
const RESOLVE_TIMEOUT_MS = 5_000;

async function resolveBounded(resolveHost: ResolveHost, host: string) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('resolve timeout')), RESOLVE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([resolveHost(host), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// Checks a URL when an endpoint is saved: its shape, then every address its host resolves to.
export async function checkTargetUrl(
  text: string,
  policy: TargetPolicy,
  resolveHost: ResolveHost,
): Promise<UrlCheck> {
  const shape = checkUrlShape(text, policy);
  if (!shape.ok) return shape;
  const host = hostOf(shape.url);
  if (net.isIP(host) !== 0) {
    return addressAllowed(host, policy)
      ? shape
      : { ok: false, reason: 'targets an address that is not allowed' };
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await resolveBounded(resolveHost, host);
  } catch {
    return { ok: false, reason: 'has a host that does not resolve' };
  }
  if (addresses.length === 0) return { ok: false, reason: 'has a host that does not resolve' };
  if (!addresses.every((entry) => addressAllowed(entry.address, policy))) {
    return { ok: false, reason: 'resolves to an address that is not allowed' };
  }
  return shape;
}

export class TargetRefusedError extends Error {
  readonly code = 'ETAX_TARGET_REFUSED';
  constructor(host: string) {
    super(`${host} resolves to an address that is not allowed`);
    this.name = 'TargetRefusedError';
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

// A `lookup` for net/tls.connect (undici's `connect` option) that resolves with resolveHost and
// fails the connection when any address is not allowed, so the address checked is the address
// connected to. IP literals never reach a lookup; the deliverer checks those itself.
export function guardedLookup(policy: TargetPolicy, resolveHost: ResolveHost) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    resolveHost(hostname).then((addresses) => {
      const usable = addresses.filter((entry) => options.family === undefined ||
        options.family === 0 || entry.family === options.family);
      if (usable.length === 0) {
        const error: NodeJS.ErrnoException = new Error(`${hostname} does not resolve`);
        error.code = 'ENOTFOUND';
        callback(error, []);
        return;
      }
      if (!usable.every((entry) => addressAllowed(entry.address, policy))) {
        callback(new TargetRefusedError(hostname), []);
        return;
      }
      if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    }, (error: NodeJS.ErrnoException) => callback(error, []));
  };
}
