// The bank service's phases without HTTP or a database: a fake bank adapter counts the calls in
// flight, so these tests prove that a bulk lookup never runs more than `concurrency` bank calls
// at once yet does run that many, that the same account is asked once, that an adapter which
// ignores its signal cannot hold a request past the timeout, and what reaches the charger.
import { describe, expect, it } from 'vitest';
import { createBankService } from '../../../src/areas/bank/service.ts';
import { ApiError } from '../../../src/platform/errors.ts';
import type { Charger } from '../../../src/platform/points/charge.ts';
import type { BankAdapter, HolderLookupResult } from '../../../src/upstream/banks/index.ts';

const caller = { accountId: 'acc_test', environment: 'test' as const };

type ChargeCall = { unitsMax: number; chargedUnits: number | null; failed: boolean };

// Runs the work as the real charger does, recording what would be reserved and captured.
function recordingCharger(calls: ChargeCall[]): Charger {
  return async (options, work) => {
    const call: ChargeCall = { unitsMax: options.unitsMax, chargedUnits: null, failed: false };
    calls.push(call);
    try {
      const { value, chargedUnits } = await work(null);
      call.chargedUnits = chargedUnits;
      return { value, settlement: null };
    } catch (error) {
      call.failed = true;
      throw error;
    }
  };
}

// A bank that answers after `delayMs`, counting how many calls overlap.
function countingBank(delayMs: number, answer: (accountNumber: string) => HolderLookupResult) {
  const stats = { inFlight: 0, inFlightMax: 0, callCount: 0 };
  const banks: BankAdapter = {
    async lookupHolder({ accountNumber }) {
      stats.callCount += 1;
      stats.inFlight += 1;
      stats.inFlightMax = Math.max(stats.inFlightMax, stats.inFlight);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      stats.inFlight -= 1;
      return answer(accountNumber);
    },
  };
  return { banks, stats };
}

type BankServiceOptions = Parameters<typeof createBankService>[0];

// A service with every bank network configured, whose charges are recorded in `calls`.
function bankService(options: Pick<BankServiceOptions, 'banksFor' | 'concurrency' | 'timeoutMs'>
  & { calls: ChargeCall[] }) {
  return createBankService({
    charge: recordingCharger(options.calls),
    banksConfigured: () => true,
    banksFor: options.banksFor,
    concurrency: options.concurrency,
    timeoutMs: options.timeoutMs,
  });
}

const found = (): HolderLookupResult => ({ kind: 'found', holderName: '홍길동' });
const accounts = (count: number) => Array.from({ length: count }, (_, index) => ({
  bankCode: '004',
  accountNumber: String(1_000_000_000 + index),
}));

describe('bank service', () => {
  it('runs at most `concurrency` bank calls at once, and exactly that many under load',
    async () => {
      const { banks, stats } = countingBank(10, found);
      const calls: ChargeCall[] = [];
      const service = bankService({ calls, banksFor: () => banks, concurrency: 7,
        timeoutMs: 5_000 });
      const { results } = await service.inquireHolders({ caller, accounts: accounts(100) });
      expect(results).toHaveLength(100);
      expect(stats.callCount).toBe(100);
      expect(stats.inFlightMax).toBe(7);
      expect(calls).toEqual([{ unitsMax: 100, chargedUnits: 100, failed: false }]);
    });

  it('asks the bank once for an account sent twice, and charges it once', async () => {
    const { banks, stats } = countingBank(1, found);
    const calls: ChargeCall[] = [];
    const service = bankService({ calls, banksFor: () => banks, concurrency: 20,
      timeoutMs: 5_000 });
    const twice = [
      { bankCode: '004', accountNumber: '123-456-7890' },
      { bankCode: '004', accountNumber: '1234567890' },
      { bankCode: '088', accountNumber: '1234567890' },
    ];
    const { results } = await service.inquireHolders({ caller, accounts: twice });
    expect(results.map((item) => item.accountNumber)).toEqual(
      ['123-456-7890', '1234567890', '1234567890'],
    );
    expect(stats.callCount).toBe(2);
    expect(calls).toEqual([{ unitsMax: 2, chargedUnits: 2, failed: false }]);
  });

  it('ends a call whose adapter ignores its signal at the timeout, as BANK_UNAVAILABLE',
    async () => {
      const deaf: BankAdapter = {
        lookupHolder: (lookup) => lookup.accountNumber === '1000000000'
          ? new Promise(() => {})
          : Promise.resolve(found()),
      };
      const service = bankService({ calls: [], banksFor: () => deaf, concurrency: 20,
        timeoutMs: 50 });
      const { results } = await service.inquireHolders({ caller, accounts: accounts(2) });
      expect(results.map((item) => item.error?.code ?? null)).toEqual(['BANK_UNAVAILABLE', null]);
    });

  it('picks the bank network once per request from the caller\'s environment', async () => {
    const chosen: string[] = [];
    const { banks } = countingBank(0, found);
    const service = createBankService({
      charge: recordingCharger([]),
      banksConfigured: () => true,
      banksFor: (environment) => {
        chosen.push(environment);
        return banks;
      },
      concurrency: 20,
      timeoutMs: 1_000,
    });
    await service.inquireHolders({ caller, accounts: accounts(5) });
    await service.inquireHolders({
      caller: { ...caller, environment: 'live' },
      accounts: accounts(3),
    });
    expect(chosen).toEqual(['test', 'live']);
  });

  it('neither charges nor asks the bank when every account is malformed', async () => {
    const { banks, stats } = countingBank(0, found);
    const calls: ChargeCall[] = [];
    const service = bankService({ calls, banksFor: () => banks, concurrency: 20,
      timeoutMs: 1_000 });
    const { results } = await service.inquireHolders({
      caller,
      accounts: [
        { bankCode: '4', accountNumber: '1234567890' },
        { bankCode: '004', accountNumber: '12' },
      ],
    });
    expect(results.map((item) => item.error?.code)).toEqual(
      ['INVALID_BANK_CODE', 'INVALID_ACCOUNT_NUMBER'],
    );
    expect(stats.callCount).toBe(0);
    expect(calls).toEqual([]);
  });

  it('fails the charged work with LOOKUP_UNAVAILABLE when no bank answered', async () => {
    const { banks } = countingBank(0, () => ({ kind: 'unavailable' }));
    const calls: ChargeCall[] = [];
    const service = bankService({ calls, banksFor: () => banks, concurrency: 20,
      timeoutMs: 1_000 });
    const refused = service.inquireHolders({ caller, accounts: accounts(3) });
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ code: 'LOOKUP_UNAVAILABLE', status: 503 });
    expect(calls).toEqual([{ unitsMax: 3, chargedUnits: null, failed: true }]);
  });
});
