import ipaddr from 'ipaddr.js';

// What kind of host an IP address names, as far as sending a webhook to it goes
// (docs/webhooks.md § Allowed URLs). Only the kind is decided here; target-policy.ts decides
// which kinds a key may reach.
//
//   public       an ordinary internet address
//   internal     loopback, private, unique-local and carrier-grade NAT: our own machine or network
//   embedsIPv4   an IPv6 address that carries an IPv4 address, which some translator, tunnel or
//                dual-stack socket may turn into a connection to that IPv4 address
//   never        link-local, cloud metadata, unspecified, multicast, broadcast, reserved, not an
//                address at all
export type AddressKind = 'public' | 'internal' | 'embedsIPv4' | 'never';

// Cloud metadata services; never a webhook receiver, whatever the policy.
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

const INTERNAL_IPV4_RANGES = new Set(['loopback', 'private', 'carrierGradeNat']);
const INTERNAL_IPV6_RANGES = new Set(['loopback', 'uniqueLocal']);

// IPv6 prefixes whose addresses embed an IPv4 address. The check for these comes before any
// other, so that, say, ::ffff:127.0.0.1 is refused for what it is and not judged as 127.0.0.1
// under a lenient policy.
const EMBEDDED_IPV4_PREFIXES = [
  '::/96', // IPv4-compatible (::127.0.0.1), deprecated by RFC 4291; :: and ::1 are handled first
  '::ffff:0:0/96', // IPv4-mapped
  '::ffff:0:0:0/96', // IPv4-translated (RFC 6145)
  '64:ff9b::/96', // NAT64, well-known prefix (RFC 6052)
  '64:ff9b:1::/48', // NAT64, local-use prefix (RFC 8215)
  '2002::/16', // 6to4 (RFC 3056)
  '2001::/32', // Teredo (RFC 4380)
].map((prefix) => ipaddr.IPv6.parseCIDR(prefix));

// ISATAP (RFC 5214) puts the IPv4 address in the interface identifier of any prefix, after
// 0000:5efe or 0200:5efe (the universal/local and group bits may vary).
function isIsatap(address: ipaddr.IPv6): boolean {
  const [fifth, sixth] = [address.parts[4]!, address.parts[5]!];
  return (fifth & 0xfcff) === 0 && sixth === 0x5efe;
}

function ipv6Kind(address: ipaddr.IPv6): AddressKind {
  const range = address.range();
  if (range === 'unspecified') return 'never';
  if (range === 'loopback') return 'internal';
  if (EMBEDDED_IPV4_PREFIXES.some((prefix) => address.match(prefix)) || isIsatap(address)) {
    return 'embedsIPv4';
  }
  if (METADATA_ADDRESSES.has(address.toNormalizedString()) ||
    METADATA_ADDRESSES.has(address.toString())) return 'never';
  if (INTERNAL_IPV6_RANGES.has(range)) return 'internal';
  return range === 'unicast' ? 'public' : 'never';
}

function ipv4Kind(address: ipaddr.IPv4): AddressKind {
  if (METADATA_ADDRESSES.has(address.toString())) return 'never';
  const range = address.range();
  if (INTERNAL_IPV4_RANGES.has(range)) return 'internal';
  return range === 'unicast' ? 'public' : 'never';
}

// The kind of a textual IP address in its standard form (dotted-quad IPv4 or IPv6 without
// brackets), as URLs and resolvers give them. Anything else, including the shorthand IPv4
// forms (127.1, 0x7f000001) that URL parsing has already turned into dotted quads, is 'never'.
export function addressKind(text: string): AddressKind {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipv4Kind(ipaddr.IPv4.parse(text));
  if (ipaddr.IPv6.isValid(text)) return ipv6Kind(ipaddr.IPv6.parse(text));
  return 'never';
}
