// The target policy: which addresses a webhook may reach for test and live keys, with and
// without WEBHOOK_PRIVATE_TARGETS_ALLOWED (loopback and private only with it, addresses that
// embed an IPv4 address never), and the connect-time lookup that refuses a name resolving to a
// forbidden address.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  addressAllowed,
  guardedLookup,
  targetPolicyFor,
  TargetRefusedError,
} from '../../../src/areas/webhooks/target-policy.ts';

const live = targetPolicyFor('live', false);
const test = targetPolicyFor('test', false);
const selfHostedLive = targetPolicyFor('live', true);
const selfHostedTest = targetPolicyFor('test', true);

// Allowed with default settings (test and live keys alike) and with
// WEBHOOK_PRIVATE_TARGETS_ALLOWED=true (test and live keys alike).
describe('addressAllowed', () => {
  it.each([
    ['93.184.215.14', true, true],
    ['2606:4700::6810:84e5', true, true],
    ['127.0.0.1', false, true],
    ['127.8.9.10', false, true],
    ['::1', false, true],
    ['10.0.0.1', false, true],
    ['172.16.5.4', false, true],
    ['192.168.1.1', false, true],
    ['fd12::1', false, true],
    ['100.64.0.1', false, true],
    ['169.254.169.254', false, false],
    ['fd00:ec2::254', false, false],
    ['100.100.100.200', false, false],
    ['fe80::1', false, false],
    ['0.0.0.0', false, false],
    ['::', false, false],
    ['224.0.0.1', false, false],
    ['255.255.255.255', false, false],
    // IPv6 addresses that carry an IPv4 address, public or not: never.
    ['::127.0.0.1', false, false],
    ['::7f00:1', false, false],
    ['::169.254.169.254', false, false],
    ['::93.184.215.14', false, false],
    ['::ffff:127.0.0.1', false, false],
    ['::ffff:10.0.0.1', false, false],
    ['::ffff:93.184.215.14', false, false],
    ['::ffff:0:7f00:1', false, false],
    ['64:ff9b::7f00:1', false, false],
    ['64:ff9b::a9fe:a9fe', false, false],
    ['64:ff9b::5db8:d70e', false, false],
    ['64:ff9b:1::7f00:1', false, false],
    ['2002:7f00:1::', false, false],
    ['2002:5db8:d70e::1', false, false],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', false, false],
    ['2606:4700::5efe:7f00:1', false, false],
    ['2606:4700::200:5efe:a00:1', false, false],
    // Shorthand IPv4 forms are not addresses here; URL parsing turns them into dotted quads.
    ['127.1', false, false],
    ['2130706433', false, false],
    ['0x7f000001', false, false],
    ['not an address', false, false],
  ])('%s: by default %s, with the setting %s', (address, byDefault, withSetting) => {
    expect(addressAllowed(address, live)).toBe(byDefault);
    expect(addressAllowed(address, test)).toBe(byDefault);
    expect(addressAllowed(address, selfHostedLive)).toBe(withSetting);
    expect(addressAllowed(address, selfHostedTest)).toBe(withSetting);
  });

  it('requires https for live keys, even self-hosted, and allows http for test keys', () => {
    expect(live.httpAllowed).toBe(false);
    expect(selfHostedLive.httpAllowed).toBe(false);
    expect(test.httpAllowed).toBe(true);
  });
});

function lookupWith(addresses: LookupAddress[], options: { all?: boolean; family?: number }) {
  const lookup = guardedLookup(live, async () => addresses);
  return new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) => {
    lookup('hooks.example.test', options, (error, address, family) =>
      resolve({ error, address, family }));
  });
}

describe('guardedLookup', () => {
  it('answers a public address in the form net.connect asked for', async () => {
    const addresses = [{ address: '93.184.215.14', family: 4 }];
    expect(await lookupWith(addresses, { all: true }))
      .toEqual({ error: null, address: addresses, family: undefined });
    expect(await lookupWith(addresses, {}))
      .toEqual({ error: null, address: '93.184.215.14', family: 4 });
  });

  it('fails the connection when any address is forbidden', async () => {
    const result = await lookupWith([
      { address: '93.184.215.14', family: 4 }, { address: '10.0.0.1', family: 4 },
    ], { all: true });
    expect(result.error).toBeInstanceOf(TargetRefusedError);
  });

  it.each(['::127.0.0.1', '::ffff:169.254.169.254', '64:ff9b::a00:1', '2002:a00:1::1'])(
    'fails the connection when a DNS answer embeds an IPv4 address: %s', async (address) => {
      const result = await lookupWith([{ address, family: 6 }], { all: true });
      expect(result.error).toBeInstanceOf(TargetRefusedError);
    });
});
