// The sandbox bank network answers every documented test account (docs/sandbox.md) the same way
// every time, with any bank code; other accounts get a deterministic Korean holder name. Its
// simulated latency and the hanging account both end when the call's signal aborts.
import { describe, expect, it } from 'vitest';
import {
  createSandboxBanks,
  SANDBOX_ACCOUNTS,
  SANDBOX_HOLDER_NAMES,
  sandboxHolderName,
} from '../../../src/upstream/banks/sandbox.ts';

const open = () => new AbortController().signal;

describe('the sandbox bank network', () => {
  const banks = createSandboxBanks({ latencyMs: 0 });

  it.each([
    [SANDBOX_ACCOUNTS.amountRequired, 'amountRequired'],
    [SANDBOX_ACCOUNTS.notFound, 'notFound'],
    [SANDBOX_ACCOUNTS.closed, 'closed'],
    [SANDBOX_ACCOUNTS.unavailable, 'unavailable'],
  ])('answers test account %s with %s for any bank', async (accountNumber, kind) => {
    for (const bankCode of ['004', '088', '240']) {
      const result = await banks.lookupHolder({ bankCode, accountNumber, signal: open() });
      expect(result).toEqual({ kind });
    }
  });

  it('documents the test accounts as 9990000001 to 9990000005', () => {
    expect(Object.values(SANDBOX_ACCOUNTS).sort()).toEqual(
      ['9990000001', '9990000002', '9990000003', '9990000004', '9990000005'],
    );
  });

  it('finds a holder for any other account, the same name on every call', async () => {
    const lookup = { bankCode: '004', accountNumber: '123456789012', signal: open() };
    const first = await banks.lookupHolder(lookup);
    const second = await banks.lookupHolder({ ...lookup, signal: open() });
    expect(first).toEqual({ kind: 'found', holderName: sandboxHolderName('004', '123456789012') });
    expect(second).toEqual(first);
    if (first.kind !== 'found') throw new Error('expected a holder');
    expect(SANDBOX_HOLDER_NAMES).toContain(first.holderName);
  });

  it('spreads holder names over the list by bank code and account number', () => {
    const names = new Set<string>();
    for (let index = 0; index < 200; index += 1) {
      names.add(sandboxHolderName('088', String(1_000_000_000 + index)));
    }
    expect(names.size).toBeGreaterThan(8);
    expect(SANDBOX_HOLDER_NAMES).toContain('홍길동');
  });

  it('leaves the hanging account unanswered until its signal aborts, then is unavailable',
    async () => {
      const controller = new AbortController();
      let settled = false;
      const pending = banks.lookupHolder({
        bankCode: '004',
        accountNumber: SANDBOX_ACCOUNTS.hanging,
        signal: controller.signal,
      }).finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(settled).toBe(false);
      controller.abort();
      expect(await pending).toEqual({ kind: 'unavailable' });
    });

  it('answers after its latency, and is unavailable when aborted while waiting', async () => {
    const slow = createSandboxBanks({ latencyMs: 60_000 });
    const controller = new AbortController();
    const pending = slow.lookupHolder({
      bankCode: '004',
      accountNumber: '123456789012',
      signal: controller.signal,
    });
    controller.abort();
    expect(await pending).toEqual({ kind: 'unavailable' });
    const brief = createSandboxBanks({ latencyMs: 5 });
    const answer = await brief.lookupHolder({
      bankCode: '004',
      accountNumber: '123456789012',
      signal: open(),
    });
    expect(answer.kind).toBe('found');
  });

  it('is unavailable for an already aborted signal', async () => {
    const result = await banks.lookupHolder({
      bankCode: '004',
      accountNumber: '123456789012',
      signal: AbortSignal.abort(),
    });
    expect(result).toEqual({ kind: 'unavailable' });
  });
});
