import { parseJsonObject, postJson } from '../http.ts';
import type { RegistrationStatus, TaxType } from '../business-profiles/index.ts';
import {
  CERTIFICATE_CHECK_UNAVAILABLE, NUMBERS_PER_CALL_MAX, UNAVAILABLE, type CertificateCheckResult,
  type CertificateFacts, type CertificateValidator, type StatusCheckResult, type StatusOfNumber,
  type TaxAuthority,
} from './index.ts';

// The tax authority of live keys: the public business-status API (국세청 사업자등록정보
// 상태조회), one call per request:
//   POST {TAX_AUTHORITY_BASE_URL}/status?serviceKey={TAX_AUTHORITY_SERVICE_KEY}
//   {"b_no":["1234567890", …]}                       (up to 100 numbers)
//   200 {"status_code":"OK","request_cnt":n,"data":[{"b_no","b_stt_cd","tax_type","tax_type_cd",
//        "end_dt",…}, …]}                            (one entry per number)
// An unregistered number is data: empty `b_stt_cd` and `tax_type_cd`, and `tax_type` saying the
// number is not registered. Everything else (another status, a `status_code` other than OK such
// as TOO_LARGE_REQUEST, a gateway envelope {"code":-4,…}, an entry missing for a number, a
// network error, a timeout) is `unavailable`. Without a service key every call is `unavailable`.

// 100 entries of a few hundred bytes each; a larger body is not an answer and is not buffered.
const RESPONSE_BYTES_MAX = 1_048_576;

// The text the authority puts in `tax_type` for a number it has no registration of.
const NOT_REGISTERED_TEXT = '국세청에 등록되지 않은 사업자등록번호';

const STATUS_OF_CODE: Readonly<Record<string, RegistrationStatus>> = Object.freeze({
  '01': 'ACTIVE',
  '02': 'SUSPENDED',
  '03': 'CLOSED',
});

const TAX_TYPE_OF_CODE: Readonly<Record<string, TaxType>> = Object.freeze({
  '01': 'GENERAL',
  '02': 'SIMPLIFIED_RECEIPT_ISSUER',
  '03': 'SPECIAL_TAXPAYER',
  '04': 'TAX_FREE',
  '05': 'NONPROFIT',
  '06': 'UNIQUE_NUMBER_ORGANIZATION',
  '07': 'SIMPLIFIED_TAX_INVOICE_ISSUER',
});

type LiveOptions = {
  baseUrl: string;
  // Unset: no access to the public API, every call is unavailable.
  serviceKey: string | undefined;
  // Bounds the wait for the response headers and between body chunks; the caller's signal
  // bounds the whole call.
  timeoutMs: number;
};

type StatusEntry = {
  b_no?: unknown;
  b_stt_cd?: unknown;
  tax_type?: unknown;
  tax_type_cd?: unknown;
  end_dt?: unknown;
};

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

// `YYYYMMDD` → `YYYY-MM-DD`; null for anything else.
function dateOf(value: unknown): string | null {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(text(value));
  return match ? `${match[1]}-${match[2]}-${match[3]}` : null;
}

// One `data[]` entry as a status. An unknown status code is UNKNOWN; an unknown tax-type code
// is null (the response enum has no "other").
export function statusOfEntry(entry: StatusEntry): StatusOfNumber {
  const statusCode = text(entry.b_stt_cd);
  const taxType = TAX_TYPE_OF_CODE[text(entry.tax_type_cd)] ?? null;
  if (statusCode === '' && text(entry.tax_type).includes(NOT_REGISTERED_TEXT)) {
    return { status: 'NOT_REGISTERED', closedOn: null, taxType: null };
  }
  const status = STATUS_OF_CODE[statusCode] ?? 'UNKNOWN';
  return { status, closedOn: status === 'CLOSED' ? dateOf(entry.end_dt) : null, taxType };
}

// Parses a 200 answer for the numbers asked; null for anything outside the contract.
function parseStatusAnswer(body: string, numbers: string[]): StatusCheckResult | null {
  const parsed = parseJsonObject(body);
  if (parsed === null) return null;
  const { status_code: statusCode, data } = parsed;
  if (statusCode !== 'OK' || !Array.isArray(data)) return null;
  const asked = new Set(numbers);
  const results = new Map<string, StatusOfNumber>();
  for (const entry of data as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return null;
    const number = text((entry as StatusEntry).b_no).replaceAll('-', '');
    if (asked.has(number)) results.set(number, statusOfEntry(entry as StatusEntry));
  }
  // Every number asked must be answered; a partial answer is not trusted.
  if (results.size !== asked.size) return null;
  return { kind: 'answered', results };
}

type CallOptions = { url: string; timeoutMs: number; numbers: string[]; signal: AbortSignal };

async function callStatus({ url, timeoutMs, numbers, signal }: CallOptions) {
  const body = await postJson({
    url,
    body: { b_no: numbers },
    signal,
    timeoutMs,
    responseBytesMax: RESPONSE_BYTES_MAX,
  });
  return body === null ? UNAVAILABLE : (parseStatusAnswer(body, numbers) ?? UNAVAILABLE);
}

// The authenticity check (진위확인), one business per call:
//   POST {TAX_AUTHORITY_BASE_URL}/validate?serviceKey={TAX_AUTHORITY_SERVICE_KEY}
//   {"businesses":[{"b_no","start_dt":"YYYYMMDD","p_nm", optional "b_nm","corp_no","b_sector",
//     "b_type","b_adr"}]}
//   200 {"status_code":"OK","data":[{"b_no","valid":"01"|"02","status":{…a /status entry…}}]}
// `valid` 01 is a match (with the current status), 02 is not; anything else is unavailable.
export function validateRequestEntry(facts: CertificateFacts): Record<string, string> {
  const entry: Record<string, string> = {
    b_no: facts.businessRegistrationNumber,
    start_dt: facts.openedOn.replaceAll('-', ''),
    p_nm: facts.representativeName,
  };
  if (facts.organizationName !== undefined) entry.b_nm = facts.organizationName;
  if (facts.corporateRegistrationNumber !== undefined) {
    entry.corp_no = facts.corporateRegistrationNumber;
  }
  if (facts.businessType !== undefined) entry.b_sector = facts.businessType;
  if (facts.businessItem !== undefined) entry.b_type = facts.businessItem;
  if (facts.address !== undefined) entry.b_adr = facts.address;
  return entry;
}

// Parses a 200 answer of /validate for the number asked; null for anything outside the contract.
export function parseValidateAnswer(body: string, number: string): CertificateCheckResult | null {
  const parsed = parseJsonObject(body);
  if (parsed === null) return null;
  const { status_code: statusCode, data } = parsed;
  if (statusCode !== 'OK' || !Array.isArray(data) || data.length !== 1) return null;
  const entry = data[0] as { b_no?: unknown; valid?: unknown; status?: unknown } | null;
  if (typeof entry !== 'object' || entry === null) return null;
  if (text(entry.b_no).replaceAll('-', '') !== number) return null;
  if (text(entry.valid) === '02') return { kind: 'answered', matches: false, status: null };
  if (text(entry.valid) !== '01') return null;
  const status = typeof entry.status === 'object' && entry.status !== null
    ? statusOfEntry(entry.status as StatusEntry)
    : { status: 'UNKNOWN' as const, closedOn: null, taxType: null };
  return { kind: 'answered', matches: true, status };
}

type ValidateOptions = { url: string; timeoutMs: number; facts: CertificateFacts;
  signal: AbortSignal };

async function callValidate({ url, timeoutMs, facts, signal }: ValidateOptions) {
  const body = await postJson({
    url,
    body: { businesses: [validateRequestEntry(facts)] },
    signal,
    timeoutMs,
    responseBytesMax: RESPONSE_BYTES_MAX,
  });
  if (body === null) return CERTIFICATE_CHECK_UNAVAILABLE;
  return parseValidateAnswer(body, facts.businessRegistrationNumber)
    ?? CERTIFICATE_CHECK_UNAVAILABLE;
}

export function createLiveTaxAuthority(options: LiveOptions): TaxAuthority & CertificateValidator {
  const { serviceKey, timeoutMs } = options;
  if (!serviceKey) {
    return {
      checkStatuses: async () => UNAVAILABLE,
      validateCertificate: async () => CERTIFICATE_CHECK_UNAVAILABLE,
    };
  }
  const base = options.baseUrl.replace(/\/+$/, '');
  const key = encodeURIComponent(serviceKey);
  const url = `${base}/status?serviceKey=${key}`;
  const validateUrl = `${base}/validate?serviceKey=${key}`;
  return {
    async checkStatuses(numbers, signal) {
      if (numbers.length === 0 || numbers.length > NUMBERS_PER_CALL_MAX) return UNAVAILABLE;
      if (signal.aborted) return UNAVAILABLE;
      try {
        return await callStatus({ url, timeoutMs, numbers, signal });
      } catch {
        // Refused connections, resets, timeouts and aborts all mean the authority did not answer.
        return UNAVAILABLE;
      }
    },
    async validateCertificate(facts, signal) {
      if (signal.aborted) return CERTIFICATE_CHECK_UNAVAILABLE;
      try {
        return await callValidate({ url: validateUrl, timeoutMs, facts, signal });
      } catch {
        return CERTIFICATE_CHECK_UNAVAILABLE;
      }
    },
  };
}
