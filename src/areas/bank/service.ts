import assert from 'node:assert/strict';
import pLimit from 'p-limit';
import { findBank, normalizeAccountNumber } from '../../domain/bank-codes.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import { ApiError } from '../../platform/errors.ts';
import { notConfiguredMessage } from '../../platform/live-services.ts';
import type { Charger } from '../../platform/points/charge.ts';
import type { Scope } from '../../platform/scope.ts';
import {
  unavailableOnAbort,
  type BankAdapter,
  type HolderLookupResult,
} from '../../upstream/banks/index.ts';

// Bank account holder lookup (docs/bank-account-holders.md). The phases of one request:
//   1. validate every account locally; malformed ones get an item error and no bank call;
//   2. reserve 50 points per distinct well-formed account (nothing when there is none);
//   3. ask the bank network, at most `concurrency` calls at once, each bounded by `timeoutMs`;
//   4. if every account that went to the bank network is unavailable, answer 503
//      LOOKUP_UNAVAILABLE and release the reservation; otherwise capture 50 points per distinct
//      account that returned a holder name and release the rest.
// The same account sent twice is asked once and charged once; both items get the answer.

// The price row of both operations: 50 points per account returning a holder name.
const PRICE_ROW = 'bank.holders.inquire';

export type AccountRef = { bankCode: string; accountNumber: string };

export const ITEM_ERROR_CODES = [
  'INVALID_BANK_CODE',
  'INVALID_ACCOUNT_NUMBER',
  'ACCOUNT_NOT_FOUND',
  'ACCOUNT_CLOSED',
  'AMOUNT_REQUIRED',
  'BANK_UNAVAILABLE',
] as const;
type ItemErrorCode = (typeof ITEM_ERROR_CODES)[number];

const ITEM_ERROR_MESSAGES: Readonly<Record<ItemErrorCode, string>> = Object.freeze({
  INVALID_BANK_CODE: 'The bank code is not a known three-digit bank code.',
  INVALID_ACCOUNT_NUMBER:
    'The account number must have 8 to 16 digits once hyphens and spaces are removed.',
  ACCOUNT_NOT_FOUND: 'The bank has no account with this number.',
  ACCOUNT_CLOSED: 'The account is closed.',
  AMOUNT_REQUIRED:
    'The account is a virtual account with a fixed deposit amount. Look the holder up again ' +
    'after the total payment amount is entered.',
  BANK_UNAVAILABLE: 'The bank did not answer in time. Retry later.',
});

type HolderItem = AccountRef & {
  holderName: string | null;
  error: { code: ItemErrorCode; message: string } | null;
};

type BankServiceDeps = {
  charge: Charger;
  // The bank network of an environment: test keys get the sandbox, live keys the gateway.
  banksFor: (environment: Environment) => BankAdapter;
  // Whether the environment's bank network is connected: live keys need the gateway.
  banksConfigured: (environment: Environment) => boolean;
  // Bank calls one request runs at once.
  concurrency: number;
  // The longest one bank call may take before its account is BANK_UNAVAILABLE.
  timeoutMs: number;
};

// A well-formed account: the bank code is known and the account number normalised.
type Lookup = { bankCode: string; accountNumber: string; lookupKey: string };

// Validates an account locally; returns the lookup or the item error that answers it.
function checkAccount(account: AccountRef): Lookup | ItemErrorCode {
  if (findBank(account.bankCode) === null) return 'INVALID_BANK_CODE';
  const accountNumber = normalizeAccountNumber(account.accountNumber);
  if (accountNumber === null) return 'INVALID_ACCOUNT_NUMBER';
  const lookupKey = `${account.bankCode}:${accountNumber}`;
  return { bankCode: account.bankCode, accountNumber, lookupKey };
}

type FailedKind = Exclude<HolderLookupResult['kind'], 'found'>;

const ERROR_OF_RESULT: Readonly<Record<FailedKind, ItemErrorCode>> = Object.freeze({
  notFound: 'ACCOUNT_NOT_FOUND',
  closed: 'ACCOUNT_CLOSED',
  amountRequired: 'AMOUNT_REQUIRED',
  unavailable: 'BANK_UNAVAILABLE',
});

function toItem(account: AccountRef, answer: HolderLookupResult | ItemErrorCode): HolderItem {
  const echo = { bankCode: account.bankCode, accountNumber: account.accountNumber };
  if (typeof answer !== 'string' && answer.kind === 'found') {
    return { ...echo, holderName: answer.holderName, error: null };
  }
  const code = typeof answer === 'string' ? answer : ERROR_OF_RESULT[answer.kind];
  return { ...echo, holderName: null, error: { code, message: ITEM_ERROR_MESSAGES[code] } };
}

// One bank call, never longer than timeoutMs: the race ends the wait even if an adapter ignored
// its signal. The clock starts when the call starts, not while it waits for a slot.
function lookupOne(banks: BankAdapter, lookup: Lookup, timeoutMs: number) {
  const signal = AbortSignal.timeout(timeoutMs);
  const { bankCode, accountNumber } = lookup;
  return Promise.race([
    banks.lookupHolder({ bankCode, accountNumber, signal }),
    unavailableOnAbort(signal),
  ]);
}

type LookupAllOptions = { banks: BankAdapter; lookups: Lookup[] } & BankServiceDeps;

// Asks the bank network once per distinct lookup, at most `concurrency` calls at once.
async function lookupAll({ banks, lookups, concurrency, timeoutMs }: LookupAllOptions) {
  const limit = pLimit(concurrency);
  const answers = await Promise.all(
    lookups.map((lookup) => limit(() => lookupOne(banks, lookup, timeoutMs))),
  );
  assert.equal(answers.length, lookups.length);
  return new Map(lookups.map((lookup, index) => [lookup.lookupKey, answers[index]!]));
}

export function createBankService(deps: BankServiceDeps) {
  assert(Number.isSafeInteger(deps.concurrency) && deps.concurrency >= 1);
  assert(Number.isSafeInteger(deps.timeoutMs) && deps.timeoutMs >= 1);

  // The bank network of the environment, refused before anything is reserved when live keys
  // have no gateway on this server.
  function connectedBanks(environment: Environment): BankAdapter {
    if (!deps.banksConfigured(environment)) {
      throw new ApiError('LOOKUP_UNAVAILABLE', notConfiguredMessage('BANK_HOLDER_LOOKUP'));
    }
    return deps.banksFor(environment);
  }

  // Looks up many accounts; one result item per account, in the order sent.
  async function inquireHolders(input: { caller: Scope; accounts: AccountRef[] }) {
    const checked = input.accounts.map(checkAccount);
    const distinct = new Map<string, Lookup>();
    for (const item of checked) {
      if (typeof item !== 'string') distinct.set(item.lookupKey, item);
    }
    const lookups = [...distinct.values()];
    const answerItems = (answers: Map<string, HolderLookupResult>) =>
      input.accounts.map((account, index) => {
        const item = checked[index]!;
        return toItem(account, typeof item === 'string' ? item : answers.get(item.lookupKey)!);
      });
    if (lookups.length === 0) return { results: answerItems(new Map()) };

    const banks = connectedBanks(input.caller.environment);
    const { value } = await deps.charge(
      { scope: input.caller, operation: PRICE_ROW, unitsMax: lookups.length },
      async () => {
        const answers = await lookupAll({ ...deps, banks, lookups });
        const results = [...answers.values()];
        if (results.every((result) => result.kind === 'unavailable')) {
          throw new ApiError('LOOKUP_UNAVAILABLE', 'No bank answered. Retry later.');
        }
        const foundCount = results.filter((result) => result.kind === 'found').length;
        return { value: answerItems(answers), chargedUnits: foundCount };
      },
    );
    return { results: value };
  }

  // Looks up one account; every outcome other than a holder name is an error response.
  async function inquireHolder(input: { caller: Scope; account: AccountRef }) {
    const lookup = checkAccount(input.account);
    if (lookup === 'INVALID_BANK_CODE') {
      throw new ApiError('INVALID_REQUEST', 'body.bankCode is not a known three-digit bank code.');
    }
    if (lookup === 'INVALID_ACCOUNT_NUMBER') {
      throw new ApiError(
        'INVALID_REQUEST',
        'body.accountNumber must have 8 to 16 digits once hyphens and spaces are removed.',
      );
    }
    assert(typeof lookup !== 'string');
    const banks = connectedBanks(input.caller.environment);
    const { value } = await deps.charge(
      { scope: input.caller, operation: PRICE_ROW, unitsMax: 1 },
      async () => {
        const result = await lookupOne(banks, lookup, deps.timeoutMs);
        return { value: holderNameOrThrow(result), chargedUnits: 1 };
      },
    );
    return { ...input.account, holderName: value };
  }

  return { inquireHolders, inquireHolder };
}

// The single lookup's error responses; each throw releases the reservation.
function holderNameOrThrow(result: HolderLookupResult): string {
  switch (result.kind) {
    case 'found':
      return result.holderName;
    case 'notFound':
      throw new ApiError('NOT_FOUND', ITEM_ERROR_MESSAGES.ACCOUNT_NOT_FOUND);
    case 'closed':
      throw new ApiError('NOT_FOUND', ITEM_ERROR_MESSAGES.ACCOUNT_CLOSED);
    case 'amountRequired':
      throw new ApiError('AMOUNT_REQUIRED');
    case 'unavailable':
      throw new ApiError('LOOKUP_UNAVAILABLE', ITEM_ERROR_MESSAGES.BANK_UNAVAILABLE);
  }
}

export type BankService = ReturnType<typeof createBankService>;
