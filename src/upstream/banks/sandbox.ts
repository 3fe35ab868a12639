import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  UNAVAILABLE,
  unavailableOnAbort,
  type BankAdapter,
  type HolderLookup,
  type HolderLookupResult,
} from './index.ts';

// The bank network of test keys: deterministic answers from the documented test accounts
// (docs/sandbox.md), with any bank code. Every other account has a holder, whose name is picked
// from a fixed list by a hash of the bank code and account number, so the same account always
// gets the same name.

export const SANDBOX_ACCOUNTS = {
  amountRequired: '9990000001',
  notFound: '9990000002',
  closed: '9990000003',
  unavailable: '9990000004',
  // Never answers: the call ends only when its signal aborts (the per-call timeout).
  hanging: '9990000005',
} as const;

export const SANDBOX_HOLDER_NAMES = Object.freeze([
  '홍길동', '김철수', '이영희', '박민준', '최서연', '정지훈', '강수진', '조현우',
  '윤하은', '장도윤', '임지아', '한승민', '오예린', '서준호', '신유나', '권태양',
]);

const FIXED_RESULTS: Readonly<Record<string, HolderLookupResult>> = Object.freeze({
  [SANDBOX_ACCOUNTS.amountRequired]: { kind: 'amountRequired' },
  [SANDBOX_ACCOUNTS.notFound]: { kind: 'notFound' },
  [SANDBOX_ACCOUNTS.closed]: { kind: 'closed' },
  [SANDBOX_ACCOUNTS.unavailable]: UNAVAILABLE,
});

export function sandboxHolderName(bankCode: string, accountNumber: string): string {
  const digest = createHash('sha256').update(`${bankCode}:${accountNumber}`).digest();
  return SANDBOX_HOLDER_NAMES[digest.readUInt32BE(0) % SANDBOX_HOLDER_NAMES.length]!;
}

function answer({ bankCode, accountNumber }: HolderLookup): HolderLookupResult {
  if (Object.hasOwn(FIXED_RESULTS, accountNumber)) return FIXED_RESULTS[accountNumber]!;
  return { kind: 'found', holderName: sandboxHolderName(bankCode, accountNumber) };
}

type SandboxOptions = {
  // Simulated round trip of every call, so load tests see bank-like latency.
  latencyMs: number;
};

export function createSandboxBanks({ latencyMs }: SandboxOptions): BankAdapter {
  return {
    async lookupHolder(lookup) {
      const { signal } = lookup;
      if (lookup.accountNumber === SANDBOX_ACCOUNTS.hanging) return unavailableOnAbort(signal);
      if (latencyMs > 0) {
        try {
          await sleep(latencyMs, undefined, { signal });
        } catch {
          // Aborted while waiting: the call timed out, like a slow bank.
          return UNAVAILABLE;
        }
      }
      if (signal.aborted) return UNAVAILABLE;
      return answer(lookup);
    },
  };
}
