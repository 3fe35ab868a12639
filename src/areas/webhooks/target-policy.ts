import dns from 'node:dns';
import net from 'node:net';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { ResolveHost } from '../../platform/outside.ts';
import { addressKind, type AddressKind } from './address-kind.ts';

// Where webhooks may be sent (docs/webhooks.md § Allowed URLs). A webhook makes our server send
// a request to an address the client chose, so an address inside our own network (loopback,
// private ranges, link-local and cloud metadata) would let a client reach services that trust
// that network. The check runs when an endpoint is saved and again on every connection, against
// the address actually connected to, so a name that later resolves elsewhere (DNS rebinding)
// is refused too.

export type TargetPolicy = {
  // http:// as well as https://.
  httpAllowed: boolean;
  // Loopback, private, unique-local and carrier-grade NAT addresses: self-hosted setups whose
  // receivers live on the same machine or private network (WEBHOOK_PRIVATE_TARGETS_ALLOWED).
  privateAllowed: boolean;
};

// Test keys may use plain http; live keys need https. Neither may reach our own machine or
// network unless the operator allows it for every key: a test key is as easy to get as a
// sign-up, so a loopback receiver for test keys alone would still let anyone probe the server's
// own ports.
export function targetPolicyFor(environment: Environment, privateTargetsAllowed: boolean) {
  return {
    httpAllowed: environment === 'test',
    privateAllowed: privateTargetsAllowed,
  } satisfies TargetPolicy;
}

type Refusal = Exclude<AddressKind, 'public'>;

// The kind of address the policy refuses, or null when a webhook may connect to it.
function refusalOf(address: string, policy: TargetPolicy): Refusal | null {
  const kind = addressKind(address);
  if (kind === 'public') return null;
  if (kind === 'internal' && policy.privateAllowed) return null;
  return kind;
}

// True when a webhook may connect to this IP address under the policy.
export function addressAllowed(address: string, policy: TargetPolicy): boolean {
  return refusalOf(address, policy) === null;
}

// What a refused URL is told, after "targets" or "resolves to".
const REFUSED_ADDRESS: Record<Refusal, string> = {
  internal: 'a loopback or private address; the server allows those only when it sets ' +
    'WEBHOOK_PRIVATE_TARGETS_ALLOWED=true, for receivers on its own machine or network',
  embedsIPv4: 'an IPv6 address that embeds an IPv4 address (IPv4-mapped or -compatible, ' +
    'NAT64, 6to4, Teredo or ISATAP), which is never allowed',
  never: 'a link-local, metadata, unspecified, multicast, broadcast or reserved address, ' +
    'which is never allowed',
};

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
    const refusal = refusalOf(host, policy);
    return refusal === null ? shape : { ok: false, reason: `targets ${REFUSED_ADDRESS[refusal]}` };
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await resolveBounded(resolveHost, host);
  } catch {
    return { ok: false, reason: 'has a host that does not resolve' };
  }
  if (addresses.length === 0) return { ok: false, reason: 'has a host that does not resolve' };
  const refusal = addresses.map((entry) => refusalOf(entry.address, policy))
    .find((found) => found !== null);
  if (refusal !== undefined) {
    return { ok: false, reason: `resolves to ${REFUSED_ADDRESS[refusal]}` };
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
