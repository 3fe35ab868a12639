import assert from 'node:assert/strict';
import {
  businessRegistrationNumberDefect,
  normalizeBusinessRegistrationNumber,
} from '../../../domain/business-registration-number.ts';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Executor } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import { notConfiguredMessage } from '../../../platform/live-services.ts';
import type { Charger } from '../../../platform/points/charge.ts';
import type { Scope } from '../../../platform/scope.ts';
import {
  unavailableOnAbort,
  type StatusOfNumber,
  type TaxAuthority,
} from '../../../upstream/tax-authority/index.ts';
import { storeRegistrationChecks } from './store.ts';

// Business registration status (docs/registration-status.md). The phases of
// one request:
//   1. check every number: ten digits once hyphens are removed, else 400 INVALID_REQUEST; a
//      matching checksum, else 400 INVALID_BUSINESS_REGISTRATION_NUMBER. In a bulk request one
//      bad number refuses the whole request (the message names its index): a result item has no
//      room for an error, and nothing has been asked or charged yet;
//   2. reserve 10 points per distinct number (402/409 from the ledger);
//   3. ask the tax authority once for all distinct numbers, bounded by `timeoutMs`;
//   4. unavailable: 503 LOOKUP_UNAVAILABLE, never UNKNOWN, and the reservation is released;
//      answered: with a live key, store each result as the profile's registration/taxation
//      when a profile exists, then capture 10 points per distinct number answered.
// The same number sent twice is asked once and charged once; both items get the answer.

const PRICE_ROW = 'businesses.registrationStatus.inquire';

type RegistrationStatusItem = StatusOfNumber & {
  businessRegistrationNumber: string;
  checkedAt: string;
};

type RegistrationStatusDeps = {
  charge: Charger;
  // The tax authority of an environment: test keys get the sandbox, live keys the public API.
  authorityFor: (environment: Environment) => TaxAuthority;
  // Whether the environment's tax authority is connected: live keys need a service key.
  authorityConfigured: (environment: Environment) => boolean;
  // The profile store results are written back to. Only live results are stored: the store is
  // shared by every account, and sandbox answers are not facts about real businesses.
  db: Executor | null;
  // The longest the tax-authority call may take before the request is 503.
  timeoutMs: number;
  now: () => Date;
};

// Returns the ten-digit number, or throws the 400 that answers it. `field` names the input in
// the message.
function checkStatusNumber(input: string, field: string): string {
  const digits = normalizeBusinessRegistrationNumber(input);
  if (digits === null) {
    throw new ApiError(
      'INVALID_REQUEST',
      `${field} must have ten digits once hyphens are removed.`,
    );
  }
  const defect = businessRegistrationNumberDefect(digits);
  if (defect !== null) {
    throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER', `${field} ${defect}.`);
  }
  return digits;
}

export function createRegistrationStatusService(deps: RegistrationStatusDeps) {
  assert(Number.isSafeInteger(deps.timeoutMs) && deps.timeoutMs >= 1);

  // One call for every distinct number, never longer than timeoutMs.
  async function ask(authority: TaxAuthority, numbers: string[]) {
    const signal = AbortSignal.timeout(deps.timeoutMs);
    const result = await Promise.race([
      authority.checkStatuses(numbers, signal),
      unavailableOnAbort(signal),
    ]);
    if (result.kind === 'unavailable') {
      throw new ApiError('LOOKUP_UNAVAILABLE', 'The tax authority did not answer. Retry later.');
    }
    for (const number of numbers) assert(result.results.has(number), 'every number answered');
    return result.results;
  }

  async function storeBack(results: Map<string, StatusOfNumber>, checkedAt: Date) {
    if (deps.db === null) return;
    const checks = [...results].map(([businessRegistrationNumber, result]) => ({
      businessRegistrationNumber,
      status: result.status,
      closedOn: result.status === 'CLOSED' ? result.closedOn : null,
      taxType: result.taxType,
    }));
    await storeRegistrationChecks(deps.db, checks, checkedAt);
  }

  // Checks the given ten-digit numbers; one item per number, in the order given.
  async function check(caller: Scope, numbers: string[]): Promise<RegistrationStatusItem[]> {
    const distinct = [...new Set(numbers)];
    if (!deps.authorityConfigured(caller.environment)) {
      throw new ApiError('LOOKUP_UNAVAILABLE', notConfiguredMessage('TAX_AUTHORITY'));
    }
    const authority = deps.authorityFor(caller.environment);
    const { value } = await deps.charge(
      { scope: caller, operation: PRICE_ROW, unitsMax: distinct.length },
      async () => {
        const results = await ask(authority, distinct);
        const checkedAt = deps.now();
        if (caller.environment === 'live') await storeBack(results, checkedAt);
        const items = numbers.map((businessRegistrationNumber) => ({
          businessRegistrationNumber,
          ...results.get(businessRegistrationNumber)!,
          checkedAt: checkedAt.toISOString(),
        }));
        return { value: items, chargedUnits: distinct.length };
      },
    );
    return value;
  }

  // 1 to 100 numbers, hyphens allowed; duplicates allowed.
  type BulkInput = { caller: Scope; businessRegistrationNumbers: string[] };
  async function inquireStatuses(input: BulkInput) {
    const numbers = input.businessRegistrationNumbers.map((number, index) =>
      checkStatusNumber(number, `body.businessRegistrationNumbers[${index}]`));
    return { results: await check(input.caller, numbers) };
  }

  async function inquireStatus(input: { caller: Scope; businessRegistrationNumber: string }) {
    const digits = checkStatusNumber(
      input.businessRegistrationNumber,
      'params.businessRegistrationNumber',
    );
    const [item] = await check(input.caller, [digits]);
    return item!;
  }

  return { inquireStatuses, inquireStatus };
}

export type RegistrationStatusService = ReturnType<typeof createRegistrationStatusService>;
