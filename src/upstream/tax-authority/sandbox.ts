import { setTimeout as sleep } from 'node:timers/promises';
import type { BusinessProfile } from '../business-profiles/index.ts';
import {
  SANDBOX_BUSINESS_NUMBERS, SANDBOX_CORPORATION, SANDBOX_SOLE_PROPRIETOR,
} from '../business-profiles/sandbox.ts';
import {
  CERTIFICATE_CHECK_UNAVAILABLE, UNAVAILABLE, type CertificateCheckResult, type CertificateFacts,
  type CertificateValidator, type StatusCheckResult, type StatusOfNumber, type TaxAuthority,
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

// The authenticity check of test keys (docs/sandbox.md § Business registration certificates): the
// certificates of the two sandbox profiles match, a certificate of the profile number whose
// lookup is unavailable never gets an answer (the check times out), and every other
// certificate does not match. The sole proprietor's profile masks the representative's name;
// its certificate carries the full name.
export const SANDBOX_SOLE_PROPRIETOR_REPRESENTATIVE = '김철수';

type SandboxCertificate = Required<Omit<CertificateFacts, 'corporateRegistrationNumber'>> &
  { corporateRegistrationNumber: string | null };

function certificateOfProfile(profile: BusinessProfile, representativeName: string):
SandboxCertificate {
  return Object.freeze({
    businessRegistrationNumber: profile.businessRegistrationNumber,
    openedOn: profile.openedOn ?? '',
    representativeName,
    organizationName: profile.organizationName ?? '',
    corporateRegistrationNumber: profile.corporateRegistrationNumber,
    businessType: profile.industry.businessType ?? '',
    businessItem: profile.industry.businessItem ?? '',
    address: profile.address?.roadAddress ?? '',
  });
}

export const SANDBOX_CERTIFICATES: Readonly<Record<string, SandboxCertificate>> = Object.freeze({
  [SANDBOX_CORPORATION.businessRegistrationNumber]:
    certificateOfProfile(SANDBOX_CORPORATION, SANDBOX_CORPORATION.representativeName!),
  [SANDBOX_SOLE_PROPRIETOR.businessRegistrationNumber]:
    certificateOfProfile(SANDBOX_SOLE_PROPRIETOR, SANDBOX_SOLE_PROPRIETOR_REPRESENTATIVE),
});

// The certificate number the sandbox never answers for: the check times out.
export const SANDBOX_CERTIFICATE_TIMEOUT_NUMBER = SANDBOX_BUSINESS_NUMBERS.lookupUnavailable;

// The authority ignores whitespace and accepts `(주)`, full-width `（주）` and `주식회사` alike.
function comparableText(value: string): string {
  return value.normalize('NFKC').replace(/\s+/gu, '').replaceAll('(주)', '주식회사');
}

function certificateMatches(facts: CertificateFacts, record: SandboxCertificate): boolean {
  if (facts.openedOn !== record.openedOn) return false;
  if (comparableText(facts.representativeName) !== comparableText(record.representativeName)) {
    return false;
  }
  if (facts.corporateRegistrationNumber !== undefined
    && facts.corporateRegistrationNumber !== record.corporateRegistrationNumber) return false;
  const optional = ['organizationName', 'businessType', 'businessItem', 'address'] as const;
  return optional.every((field) => facts[field] === undefined
    || comparableText(facts[field]) === comparableText(record[field]));
}

async function sandboxValidate(facts: CertificateFacts, signal: AbortSignal):
Promise<CertificateCheckResult> {
  const number = facts.businessRegistrationNumber;
  if (number === SANDBOX_CERTIFICATE_TIMEOUT_NUMBER) {
    // Never answers: the caller's timeout ends the wait.
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return CERTIFICATE_CHECK_UNAVAILABLE;
  }
  const record = Object.hasOwn(SANDBOX_CERTIFICATES, number) ? SANDBOX_CERTIFICATES[number]! : null;
  if (record === null || !certificateMatches(facts, record)) {
    return { kind: 'answered', matches: false, status: null };
  }
  return { kind: 'answered', matches: true, status: sandboxStatusOf(number) };
}

export function createSandboxTaxAuthority({ latencyMs }: SandboxOptions):
TaxAuthority & CertificateValidator {
  async function wait(signal: AbortSignal): Promise<boolean> {
    if (latencyMs <= 0) return true;
    try {
      await sleep(latencyMs, undefined, { signal });
      return true;
    } catch {
      return false;
    }
  }
  return {
    async checkStatuses(numbers, signal): Promise<StatusCheckResult> {
      if (!(await wait(signal))) return UNAVAILABLE;
      if (signal.aborted || numbers.includes(N.unavailable)) return UNAVAILABLE;
      return {
        kind: 'answered',
        results: new Map(numbers.map((number) => [number, sandboxStatusOf(number)])),
      };
    },
    async validateCertificate(facts, signal) {
      if (!(await wait(signal)) || signal.aborted) return CERTIFICATE_CHECK_UNAVAILABLE;
      return sandboxValidate(facts, signal);
    },
  };
}
