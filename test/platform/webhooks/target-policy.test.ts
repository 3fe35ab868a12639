// The target policy: which addresses a webhook may reach for test and live keys, with and
// without WEBHOOK_PRIVATE_TARGETS_ALLOWED, and the connect-time lookup that refuses a name
// resolving to a forbidden address.
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
const selfHosted = targetPolicyFor('live', true);

describe('addressAllowed', () => {
  it.each([
    ['93.184.215.14', true, true, true],
    ['2606:4700::6810:84e5', true, true, true],
    ['127.0.0.1', false, true, true],
    ['::1', false, true, true],
    ['::ffff:127.0.0.1', false, true, true],
    ['10.0.0.1', false, false, true],
    ['172.16.5.4', false, false, true],
    ['192.168.1.1', false, false, true],
    ['fd12::1', false, false, true],
    ['100.64.0.1', false, false, true],
    ['169.254.169.254', false, false, false],
    ['fd00:ec2::254', false, false, false],
    ['100.100.100.200', false, false, false],
    ['fe80::1', false, false, false],
    ['0.0.0.0', false, false, false],
    ['224.0.0.1', false, false, false],
    ['255.255.255.255', false, false, false],
    ['2002:7f00:1::', false, false, false],
    ['not an address', false, false, false],
  ])('%s: live %s, test %s, self-hosted %s', (address, liveAllowed, testAllowed, selfAllowed) => {
    expect(addressAllowed(address, live)).toBe(liveAllowed);
    expect(addressAllowed(address, test)).toBe(testAllowed);
    expect(addressAllowed(address, selfHosted)).toBe(selfAllowed);
  });

  it('requires https for live keys, even self-hosted, and allows http for test keys', () => {
    expect(live.httpAllowed).toBe(false);
    expect(selfHosted.httpAllowed).toBe(false);
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
});
