import { corporationKindOf, type CorporationKind } from '../../../domain/corporation-kinds.ts';
import {
  isValidCorporateRegistrationNumber,
} from '../../../domain/corporate-registration-number.ts';
import {
  businessRegistrationNumberDefect,
  normalizeBusinessRegistrationNumber,
} from '../../../domain/business-registration-number.ts';
import { ApiError } from '../../../platform/errors.ts';
import type {
  CivilDocumentOptions,
  PaymentPayer,
} from '../../../upstream/civil-documents/index.ts';
import {
  REGISTRY_TYPES,
  type IssueDocumentBody,
  type RegistryType,
  type TaxAuthorityType,
} from '../schemas.ts';

// The rules of a document request beyond its schema (docs/documents.md § Types and options):
// which options each type takes and needs, and the values that depend on today or on each
// other. Everything here is checked before anything is charged.

export type ValidatedRequest =
  | { kind: 'taxAuthority'; type: TaxAuthorityType; options: CivilDocumentOptions }
  | { kind: 'registry'; type: RegistryType; corporationNumber: string;
    corporationKind: CorporationKind;
    options: { registryScope: 'ALL' | 'PART';
      registryEntries: 'CURRENT' | 'INCLUDING_STRUCK_OUT' } };

type OptionName = Exclude<keyof IssueDocumentBody, 'type'>;

const COMMON_TAX_OPTIONS: OptionName[] = ['showAddress', 'showResidentNumber', 'purpose'];
const WITH_LANGUAGE: OptionName[] = [...COMMON_TAX_OPTIONS, 'language'];

// The options each type takes; the ones it needs are listed in REQUIRED.
const ALLOWED: Record<IssueDocumentBody['type'], OptionName[]> = {
  BUSINESS_REGISTRATION_CERTIFICATE: WITH_LANGUAGE,
  TAX_PAYMENT_CERTIFICATE: [...WITH_LANGUAGE, 'submissionPurpose', 'payer'],
  VAT_TAX_BASE_CERTIFICATE: [...WITH_LANGUAGE, 'startYearMonth', 'endYearMonth'],
  INCOME_AMOUNT_CERTIFICATE: [...WITH_LANGUAGE, 'taxYear', 'incomeCertificateKind'],
  STANDARD_FINANCIAL_STATEMENTS: [...COMMON_TAX_OPTIONS, 'fiscalYearEndMonth'],
  BUSINESS_CLOSURE_FACT_CERTIFICATE: COMMON_TAX_OPTIONS,
  BUSINESS_SUSPENSION_FACT_CERTIFICATE: COMMON_TAX_OPTIONS,
  CORPORATE_REGISTRY_VIEW: ['corporationNumber', 'registryScope', 'registryEntries'],
  CORPORATE_REGISTRY_SUBMISSION: ['corporationNumber', 'registryScope', 'registryEntries'],
};

// The options a type takes and the ones it needs, for forms that offer exactly those.
export function documentOptionsOf(type: IssueDocumentBody['type']) {
  return { allowed: ALLOWED[type], required: REQUIRED[type] ?? [] };
}

const REQUIRED: Partial<Record<IssueDocumentBody['type'], OptionName[]>> = {
  VAT_TAX_BASE_CERTIFICATE: ['startYearMonth', 'endYearMonth'],
  INCOME_AMOUNT_CERTIFICATE: ['taxYear', 'incomeCertificateKind'],
  STANDARD_FINANCIAL_STATEMENTS: ['fiscalYearEndMonth'],
  CORPORATE_REGISTRY_VIEW: ['corporationNumber'],
  CORPORATE_REGISTRY_SUBMISSION: ['corporationNumber'],
};

// The longest VAT period one certificate covers.
const VAT_PERIOD_MONTHS_MAX = 60;

const invalid = (message: string) => new ApiError('INVALID_REQUEST', message);

// Months since year 0, so year-months compare and subtract as numbers.
function monthIndex(yearMonth: string): number {
  return Number(yearMonth.slice(0, 4)) * 12 + Number(yearMonth.slice(5, 7)) - 1;
}

// Today's year and month in Korea, where the tax authority counts years.
function seoulMonthIndex(now: Date): number {
  const seoul = new Date(now.getTime() + 9 * 3_600_000);
  return seoul.getUTCFullYear() * 12 + seoul.getUTCMonth();
}

function checkOptionsOfType(body: IssueDocumentBody): void {
  const allowed = new Set(ALLOWED[body.type]);
  for (const name of Object.keys(body) as Array<keyof IssueDocumentBody>) {
    if (name !== 'type' && !allowed.has(name)) {
      throw invalid(`body.${name} does not apply to ${body.type}.`);
    }
  }
  for (const name of REQUIRED[body.type] ?? []) {
    if (body[name] === undefined) throw invalid(`body.${name} is required for ${body.type}.`);
  }
}

function checkPeriods(body: IssueDocumentBody, now: Date): void {
  const thisMonth = seoulMonthIndex(now);
  if (body.startYearMonth !== undefined && body.endYearMonth !== undefined) {
    const start = monthIndex(body.startYearMonth);
    const end = monthIndex(body.endYearMonth);
    if (end < start) throw invalid('body.endYearMonth must not be before body.startYearMonth.');
    if (end - start + 1 > VAT_PERIOD_MONTHS_MAX) {
      throw invalid(`body.startYearMonth to body.endYearMonth spans more than ` +
        `${VAT_PERIOD_MONTHS_MAX} months.`);
    }
    if (end > thisMonth) throw invalid('body.endYearMonth must not be in the future.');
  }
  if (body.taxYear !== undefined && body.taxYear >= Math.floor(thisMonth / 12)) {
    throw invalid('body.taxYear must be a year before the current one: its return is filed ' +
      'the following year.');
  }
  if (body.fiscalYearEndMonth !== undefined && monthIndex(body.fiscalYearEndMonth) >= thisMonth) {
    throw invalid('body.fiscalYearEndMonth must be before the current month.');
  }
}

function checkCorporationNumber(input: string): { digits: string; kind: CorporationKind } {
  const digits = input.replace('-', '');
  if (!/^[0-9]{13}$/.test(digits)) {
    throw invalid('body.corporationNumber must have thirteen digits once the hyphen is removed.');
  }
  if (!isValidCorporateRegistrationNumber(digits)) {
    throw new ApiError('INVALID_CORPORATE_REGISTRATION_NUMBER');
  }
  const kind = corporationKindOf(digits);
  if (kind === null) {
    throw new ApiError('CORPORATION_TYPE_NOT_SUPPORTED', `The kind of corporation of ` +
      `body.corporationNumber (digits 5–6: ${digits.slice(4, 6)}) has no registry copies ` +
      'here. Supported: stock, limited, general and limited partnership, limited liability ' +
      'companies, incorporated associations and foundations, medical corporations, ' +
      'cooperatives and other corporate entities.');
  }
  return { digits, kind };
}

// A 납세증명서 submitted to receive a payment (대금수령, 국세징수법 제107조①1) names its payer,
// and only then; the payer's number, when given, is a number that could have been issued.
function checkPayer(body: IssueDocumentBody): PaymentPayer | null {
  if (body.submissionPurpose === 'PAYMENT_RECEIPT' && body.payer === undefined) {
    throw invalid('body.payer is required when body.submissionPurpose is PAYMENT_RECEIPT ' +
      '(대금수령): the certificate names who pays.');
  }
  if (body.payer === undefined) return null;
  if (body.submissionPurpose !== 'PAYMENT_RECEIPT') {
    throw invalid('body.payer applies only when body.submissionPurpose is PAYMENT_RECEIPT.');
  }
  const given = body.payer.businessRegistrationNumber;
  if (given === undefined) return { name: body.payer.name, businessRegistrationNumber: null };
  const digits = normalizeBusinessRegistrationNumber(given);
  if (digits === null) {
    throw invalid('body.payer.businessRegistrationNumber must have ten digits once hyphens ' +
      'are removed.');
  }
  const defect = businessRegistrationNumberDefect(digits);
  if (defect !== null) {
    throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER',
      `body.payer.businessRegistrationNumber ${defect}.`);
  }
  return { name: body.payer.name, businessRegistrationNumber: digits };
}

const isRegistryType = (type: IssueDocumentBody['type']): type is RegistryType =>
  (REGISTRY_TYPES as readonly string[]).includes(type);

export function validateDocumentRequest(body: IssueDocumentBody, now: Date): ValidatedRequest {
  checkOptionsOfType(body);
  checkPeriods(body, now);
  const payer = checkPayer(body);
  if (isRegistryType(body.type)) {
    const { digits, kind } = checkCorporationNumber(body.corporationNumber!);
    return { kind: 'registry', type: body.type, corporationNumber: digits, corporationKind: kind,
      options: { registryScope: body.registryScope ?? 'ALL',
        registryEntries: body.registryEntries ?? 'CURRENT' } };
  }
  return { kind: 'taxAuthority', type: body.type, options: {
    showAddress: body.showAddress ?? true,
    showResidentNumber: body.showResidentNumber ?? false,
    language: body.language ?? 'KO',
    purpose: body.purpose ?? null,
    startYearMonth: body.startYearMonth ?? null,
    endYearMonth: body.endYearMonth ?? null,
    taxYear: body.taxYear ?? null,
    incomeCertificateKind: body.incomeCertificateKind ?? null,
    fiscalYearEndMonth: body.fiscalYearEndMonth ?? null,
    ...(body.type === 'TAX_PAYMENT_CERTIFICATE'
      ? { submissionPurpose: body.submissionPurpose ?? null, payer } : {}),
  } };
}

// An individual's income tax return (종합소득세) for a year is filed in May of the next year
// (소득세법 §70①), so what certifies it exists from then on.
const RETURN_MONTH = 5;

// The rules that depend on the business the document is about (the owner business), checked
// once it is known and before anything is charged:
//   - 소득금액증명 is issued to individuals only (a corporation's income is certified otherwise),
//     and its 종합소득세 신고자용 kind only for a year whose return could be filed;
//   - an individual's 표준재무제표증명 is of a calendar business year, whose return is filed from
//     May of the next year.
export function checkForOwner(validated: ValidatedRequest, businessNumber: string,
  now: Date): void {
  if (validated.kind !== 'taxAuthority') return;
  const corporation = isCorporateBusinessNumber(businessNumber);
  const thisMonth = seoulMonthIndex(now);
  const { options } = validated;
  if (validated.type === 'INCOME_AMOUNT_CERTIFICATE') {
    if (corporation) {
      throw invalid('INCOME_AMOUNT_CERTIFICATE (소득금액증명) is issued to individuals only; ' +
        `the owner business ${businessNumber} is a corporation.`);
    }
    const filedFrom = (options.taxYear! + 1) * 12 + RETURN_MONTH - 1;
    if (options.incomeCertificateKind === 'GLOBAL_INCOME_TAX_RETURN' && thisMonth < filedFrom) {
      throw invalid(`body.taxYear ${options.taxYear}: its income tax return is filed from May ` +
        `${options.taxYear! + 1}, so a GLOBAL_INCOME_TAX_RETURN certificate of it cannot be ` +
        'issued before then.');
    }
  }
  if (validated.type === 'STANDARD_FINANCIAL_STATEMENTS' && !corporation) {
    const end = options.fiscalYearEndMonth!;
    if (!end.endsWith('-12')) {
      throw invalid('body.fiscalYearEndMonth must be a December: an individual\'s business ' +
        'year is the calendar year.');
    }
    const year = Number(end.slice(0, 4));
    if (thisMonth < (year + 1) * 12 + RETURN_MONTH - 1) {
      throw invalid(`body.fiscalYearEndMonth ${end}: an individual's return of ${year} is ` +
        `filed from May ${year + 1}, so its statements cannot be certified before then.`);
    }
  }
}

// A corporation's business number has 81 to 88 in its fourth and fifth digits; a corporation
// has no resident number to print.
export function isCorporateBusinessNumber(businessNumber: string): boolean {
  const middle = Number(businessNumber.slice(3, 5));
  return middle >= 81 && middle <= 88;
}
