import { setTimeout as sleep } from 'node:timers/promises';
import type { BusinessProfile } from '../business-profiles/index.ts';
import {
  SANDBOX_CORPORATION,
  SANDBOX_SOLE_PROPRIETOR,
} from '../business-profiles/sandbox.ts';
import {
  UNAVAILABLE,
  type StatusCheckResult,
  type StatusOfNumber,
  type TaxAuthority,
} from './index.ts';

// The tax authority of test keys: deterministic answers from the documented test numbers
// (docs/sandbox.md § Business registration status). Every one has a valid checksum. The two
// sandbox profiles with a stored check (999-99-00005, 999-99-00010) answer with that check, so
// the sandbox agrees with itself; every other valid number is an ACTIVE general taxpayer.

export const SANDBOX_STATUS_NUMBERS = {
  activeGeneral: '9999901004',
  activeSimplifiedReceiptIssuer: '9999901019',
  activeSimplifiedTaxInvoiceIssuer: '9999901023',
  activeSpecialTaxpayer: '9999901038',
  activeTaxFree: '9999901042',
  activeNonprofit: '9999901057',
  activeUniqueNumberOrganization: '9999901061',
  suspended: '9999901076',
  closed: '9999901080',
  notRegistered: '9999901095',
  unknown: '9999901101',
  // The authority cannot be reached: the whole request is 503 LOOKUP_UNAVAILABLE.
  unavailable: '9999901116',
} as const;

export const SANDBOX_CLOSED_ON = '2024-06-30';

const active = (taxType: StatusOfNumber['taxType']): StatusOfNumber =>
  Object.freeze({ status: 'ACTIVE', closedOn: null, taxType });

const N = SANDBOX_STATUS_NUMBERS;
export const SANDBOX_STATUSES: Readonly<Record<string, StatusOfNumber>> = Object.freeze({
  [N.activeGeneral]: active('GENERAL'),
  [N.activeSimplifiedReceiptIssuer]: active('SIMPLIFIED_RECEIPT_ISSUER'),
  [N.activeSimplifiedTaxInvoiceIssuer]: active('SIMPLIFIED_TAX_INVOICE_ISSUER'),
  [N.activeSpecialTaxpayer]: active('SPECIAL_TAXPAYER'),
  [N.activeTaxFree]: active('TAX_FREE'),
  [N.activeNonprofit]: active('NONPROFIT'),
  [N.activeUniqueNumberOrganization]: active('UNIQUE_NUMBER_ORGANIZATION'),
  [N.suspended]: Object.freeze({ status: 'SUSPENDED', closedOn: null, taxType: 'GENERAL' }),
  [N.closed]: Object.freeze({ status: 'CLOSED', closedOn: SANDBOX_CLOSED_ON, taxType: 'GENERAL' }),
  [N.notRegistered]: Object.freeze({ status: 'NOT_REGISTERED', closedOn: null, taxType: null }),
  [N.unknown]: Object.freeze({ status: 'UNKNOWN', closedOn: null, taxType: null }),
});

function statusOfProfile(profile: BusinessProfile): StatusOfNumber {
  const { registration, taxation } = profile;
  return Object.freeze({
    status: registration?.status ?? 'UNKNOWN',
    closedOn: registration?.closedOn ?? null,
    taxType: taxation?.type ?? null,
  });
}

const PROFILE_STATUSES: Readonly<Record<string, StatusOfNumber>> = Object.freeze({
  [SANDBOX_CORPORATION.businessRegistrationNumber]: statusOfProfile(SANDBOX_CORPORATION),
  [SANDBOX_SOLE_PROPRIETOR.businessRegistrationNumber]: statusOfProfile(SANDBOX_SOLE_PROPRIETOR),
});

// The answer for any valid number outside the list.
const SANDBOX_DEFAULT_STATUS: StatusOfNumber = active('GENERAL');

function sandboxStatusOf(businessRegistrationNumber: string): StatusOfNumber {
  if (Object.hasOwn(SANDBOX_STATUSES, businessRegistrationNumber)) {
    return SANDBOX_STATUSES[businessRegistrationNumber]!;
  }
  if (Object.hasOwn(PROFILE_STATUSES, businessRegistrationNumber)) {
    return PROFILE_STATUSES[businessRegistrationNumber]!;
  }
  return SANDBOX_DEFAULT_STATUS;
}

type SandboxOptions = {
  // Simulated round trip of every call, so load tests see authority-like latency.
  latencyMs: number;
};

export function createSandboxTaxAuthority({ latencyMs }: SandboxOptions): TaxAuthority {
  return {
    async checkStatuses(numbers, signal): Promise<StatusCheckResult> {
      if (latencyMs > 0) {
        try {
          await sleep(latencyMs, undefined, { signal });
        } catch {
          return UNAVAILABLE;
        }
      }
      if (signal.aborted || numbers.includes(N.unavailable)) return UNAVAILABLE;
      return {
        kind: 'answered',
        results: new Map(numbers.map((number) => [number, sandboxStatusOf(number)])),
      };
    },
  };
}
