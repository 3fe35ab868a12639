import type { RegistrationStatus, TaxType } from '../business-profiles/index.ts';

// The tax authority's business-status service, as the registration status operations see it
// (docs/registration-status.md): one call answers 1 to 100 numbers at once. Trouble of any kind
// (an error status, its error envelope, a malformed answer, a timeout or an abort) is the
// `unavailable` result, never an exception and never a per-number `UNKNOWN`: the API makes a
// communication failure a 503. Two implementations exist: sandbox.ts for test keys and live.ts
// for live keys; the choice is made once per request from the key's environment.

// The tax authority's batch limit, and the API's.
export const NUMBERS_PER_CALL_MAX = 100;

export type StatusOfNumber = {
  status: RegistrationStatus;
  // `YYYY-MM-DD`; null unless `status` is CLOSED.
  closedOn: string | null;
  // Null when the authority reports no tax type (e.g. an unregistered number).
  taxType: TaxType | null;
};

export type StatusCheckResult =
  // One entry per distinct number asked, keyed by the ten-digit number.
  | { kind: 'answered'; results: Map<string, StatusOfNumber> }
  | { kind: 'unavailable' };

export type TaxAuthority = {
  // `numbers`: 1 to 100 distinct, normalised ten-digit numbers with valid checksums.
  checkStatuses(numbers: string[], signal: AbortSignal): Promise<StatusCheckResult>;
};

export const UNAVAILABLE: StatusCheckResult = Object.freeze({ kind: 'unavailable' });

// Resolves to `unavailable` when the signal aborts, so a call can be raced against its timeout.
export function unavailableOnAbort(signal: AbortSignal): Promise<StatusCheckResult> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(UNAVAILABLE);
      return;
    }
    signal.addEventListener('abort', () => resolve(UNAVAILABLE), { once: true });
  });
}

// The tax authority's authenticity check of a registration certificate (진위확인, `/validate`),
// as certificate verification sees it (docs/certificate-verification.md): one business per call.
// The number, the opening date and the representative are required; every other field is
// compared only when given. Like the status check, trouble of any kind is `unavailable`.
export type CertificateFacts = {
  // Ten digits with a valid checksum.
  businessRegistrationNumber: string;
  // `YYYY-MM-DD`.
  openedOn: string;
  representativeName: string;
  organizationName?: string;
  // Thirteen digits.
  corporateRegistrationNumber?: string;
  businessType?: string;
  businessItem?: string;
  address?: string;
};

export type CertificateCheckResult =
  // `matches`: the authority's records agree with every field sent. `status` is the current
  // registration state, given only on a match.
  | { kind: 'answered'; matches: true; status: StatusOfNumber }
  | { kind: 'answered'; matches: false; status: null }
  | { kind: 'unavailable' };

export type CertificateValidator = {
  validateCertificate(facts: CertificateFacts, signal: AbortSignal):
    Promise<CertificateCheckResult>;
};

export const CERTIFICATE_CHECK_UNAVAILABLE: CertificateCheckResult =
  Object.freeze({ kind: 'unavailable' });

// Resolves to `unavailable` when the signal aborts, so a check can be raced against its timeout.
export function certificateCheckUnavailableOnAbort(
  signal: AbortSignal,
): Promise<CertificateCheckResult> {
  return unavailableOnAbort(signal).then(() => CERTIFICATE_CHECK_UNAVAILABLE);
}
