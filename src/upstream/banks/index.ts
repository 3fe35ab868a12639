// The bank network, as the bank account holder lookup sees it: one call per account, answered
// with a union result. Upstream trouble of any kind (an error status, a malformed answer, a
// timeout or an abort) is the `unavailable` result, never an exception, so a caller can treat
// each account on its own. Two implementations exist: sandbox.ts for test keys and live.ts for
// live keys; the choice is made once per request from the key's environment.

export type HolderLookup = {
  // A known three-digit bank code (src/domain/bank-codes.ts).
  bankCode: string;
  // Digits only, already normalised (normalizeAccountNumber).
  accountNumber: string;
  // Aborts the call; an aborted call resolves to `unavailable` promptly.
  signal: AbortSignal;
};

export type HolderLookupResult =
  | { kind: 'found'; holderName: string }
  | { kind: 'notFound' }
  | { kind: 'closed' }
  // A virtual account with a fixed deposit amount: ask again once the amount is entered.
  | { kind: 'amountRequired' }
  | { kind: 'unavailable' };

export type BankAdapter = {
  lookupHolder(lookup: HolderLookup): Promise<HolderLookupResult>;
};

export const UNAVAILABLE: HolderLookupResult = Object.freeze({ kind: 'unavailable' });

// Resolves to `unavailable` when the signal aborts, so a call can be raced against its timeout
// even when the work it waits for does not listen to the signal.
export function unavailableOnAbort(signal: AbortSignal): Promise<HolderLookupResult> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(UNAVAILABLE);
      return;
    }
    signal.addEventListener('abort', () => resolve(UNAVAILABLE), { once: true });
  });
}
