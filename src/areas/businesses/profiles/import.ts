import {
  hasAssignablePrefix,
  hasValidChecksum,
  normalizeBusinessRegistrationNumber,
} from '../../../domain/business-registration-number.ts';
import {
  isValidCorporateRegistrationNumber,
} from '../../../domain/corporate-registration-number.ts';
import { findKsicSection, KSIC_SUB_SUBCLASS_PATTERN } from '../../../domain/ksic.ts';
import { isCalendarDate } from '../../../domain/business-days.ts';
import type { Db } from '../../../platform/db/connect.ts';
import {
  BUSINESS_KINDS,
  REGISTRATION_STATUSES,
  TAX_TYPES,
} from '../../../upstream/business-profiles/index.ts';
import {
  FORMER_NAMES_PER_PROFILE_MAX,
  upsertProfileRows,
  type BusinessProfileInsert,
  type FormerNameRow,
} from './store.ts';

// Rules of `etax import profiles` (docs/business-profiles.md § Import and generate): the flat
// columns of a profile file, the validation of one row with reasons, and the batched upsert.
// Reading files is the CLI's job (src/cli/profiles.ts); this works on one record at a time.

// Every profile field as one flat column, in file order. `websites` and `formerNames` are lists.
export const PROFILE_COLUMNS = [
  'businessRegistrationNumber', 'corporateRegistrationNumber', 'businessKind',
  'commercialSalesNumber', 'organizationName', 'organizationNameEnglish', 'formerNames',
  'representativeName', 'roadAddress', 'postalCode', 'sidoCode', 'sigunguCode', 'phone', 'email',
  'websites', 'businessType', 'businessItem', 'standardIndustryCode', 'standardIndustryName',
  'categoryCode', 'openedOn', 'businessRegisteredOn', 'corporationEstablishedOn',
  'registrationStatus', 'registrationClosedOn', 'registrationCheckedAt', 'taxationType',
] as const;
export type ProfileColumn = (typeof PROFILE_COLUMNS)[number];

const COLUMN_SET: ReadonlySet<string> = new Set(PROFILE_COLUMNS);
export function isProfileColumn(name: string): name is ProfileColumn {
  return COLUMN_SET.has(name);
}

// One row as read from a file: a CSV row (strings) or a parsed JSON Lines object (any JSON).
export type RawRecord = Record<string, unknown>;

export type ValidProfile = { profile: BusinessProfileInsert; formerNames: FormerNameRow[] };
type ValidationResult =
  | { ok: true; value: ValidProfile }
  | { ok: false; reasons: string[] };

// Upper bounds of the database's CHECK constraints (business_profiles_text_length).
const TEXT_LENGTH_MAX: Partial<Record<ProfileColumn, number>> = {
  commercialSalesNumber: 50, organizationName: 200, organizationNameEnglish: 200,
  representativeName: 100, roadAddress: 300, phone: 30, email: 254, businessType: 200,
  businessItem: 200, standardIndustryName: 200,
};
const WEBSITES_PER_PROFILE_MAX = 20;
const WEBSITE_LENGTH_MAX = 2048;
const FORMER_NAME_LENGTH_MAX = 200;

// Province codes, with the legacy 42 (Gangwon) and 45 (Jeonbuk).
const SIDO_CODES: readonly string[] = [
  '11', '26', '27', '28', '29', '30', '31', '36', '41', '42', '43', '44', '45', '46', '47', '48',
  '50', '51', '52',
];

// Gangwon and Jeonbuk changed code (51 was 42, 52 was 45): old district codes stay valid.
const LEGACY_SIDO_CODES: Readonly<Record<string, string>> = { '51': '42', '52': '45' };

const DATE_TIME_PATTERN =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?(Z|[+-][0-9]{2}:[0-9]{2})$/;
const PHONE_PATTERN = /^[0-9]{2,4}(-[0-9]{3,4}){1,2}$/;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const WEBSITE_PATTERN = /^https?:\/\/[^\s]+$/;

// Collects the reasons of one row; each field reader returns its value or null.
class Reasons {
  readonly list: string[] = [];
  add(column: string, reason: string) {
    this.list.push(`${column}: ${reason}`);
  }
}

// A scalar column: a string (trimmed, empty = null) or null/absent; anything else is a reason.
function text(raw: RawRecord, column: ProfileColumn, reasons: Reasons): string | null {
  const value = raw[column];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    reasons.add(column, 'must be a string or null');
    return null;
  }
  const trimmed = value.trim();
  if (trimmed === '') return null;
  if (trimmed.includes('\u0000')) {
    reasons.add(column, 'contains a NUL character');
    return null;
  }
  const max = TEXT_LENGTH_MAX[column];
  if (max !== undefined && trimmed.length > max) {
    reasons.add(column, `too long (${trimmed.length} characters, at most ${max})`);
    return null;
  }
  return trimmed;
}

// True when a column holds something: for pairs that go together whatever their validity.
function present(raw: RawRecord, column: ProfileColumn): boolean {
  const value = raw[column];
  if (value === undefined || value === null) return false;
  return typeof value !== 'string' || value.trim() !== '';
}

function matching(
  raw: RawRecord, column: ProfileColumn, pattern: RegExp, what: string, reasons: Reasons,
): string | null {
  const value = text(raw, column, reasons);
  if (value !== null && !pattern.test(value)) {
    reasons.add(column, what);
    return null;
  }
  return value;
}

function choice<T extends string>(
  raw: RawRecord, column: ProfileColumn, choices: readonly T[], reasons: Reasons,
): T | null {
  const value = text(raw, column, reasons);
  if (value !== null && !(choices as readonly string[]).includes(value)) {
    reasons.add(column, `unknown value "${value}" (one of ${choices.join(', ')})`);
    return null;
  }
  return value as T | null;
}

function dateColumn(raw: RawRecord, column: ProfileColumn, reasons: Reasons): string | null {
  const value = text(raw, column, reasons);
  if (value !== null && !isCalendarDate(value)) {
    reasons.add(column, `bad date "${value}" (YYYY-MM-DD)`);
    return null;
  }
  return value;
}

function checkedAt(raw: RawRecord, reasons: Reasons): Date | null {
  const value = text(raw, 'registrationCheckedAt', reasons);
  if (value === null) return null;
  const parsed = new Date(value);
  if (!DATE_TIME_PATTERN.test(value) || Number.isNaN(parsed.getTime()) ||
    !isCalendarDate(value.slice(0, 10))) {
    reasons.add('registrationCheckedAt', `bad date-time "${value}" (ISO 8601 with a time zone)`);
    return null;
  }
  return parsed;
}

function registrationNumber(raw: RawRecord, reasons: Reasons): string | null {
  const value = text(raw, 'businessRegistrationNumber', reasons);
  if (value === null) {
    reasons.add('businessRegistrationNumber', 'missing');
    return null;
  }
  const digits = normalizeBusinessRegistrationNumber(value);
  if (digits === null) {
    reasons.add('businessRegistrationNumber', `not ten digits "${value}"`);
  } else if (!hasValidChecksum(digits)) {
    reasons.add('businessRegistrationNumber', `bad checksum "${value}"`);
    return null;
  } else if (!hasAssignablePrefix(digits)) {
    reasons.add('businessRegistrationNumber', `unassigned tax office code "${value}"`);
    return null;
  }
  return digits;
}

function corporateNumber(raw: RawRecord, reasons: Reasons): string | null {
  const value = text(raw, 'corporateRegistrationNumber', reasons);
  if (value === null) return null;
  const digits = value.replaceAll('-', '');
  if (!/^[0-9]{13}$/.test(digits)) {
    reasons.add('corporateRegistrationNumber', `not 13 digits "${value}"`);
    return null;
  }
  if (!isValidCorporateRegistrationNumber(digits)) {
    reasons.add('corporateRegistrationNumber', `bad checksum "${value}"`);
    return null;
  }
  return digits;
}

// JSON Lines carries a list as an array; CSV as text: websites `|`-separated, formerNames JSON.
function list(raw: RawRecord, column: ProfileColumn, reasons: Reasons): unknown[] {
  const value = raw[column];
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') {
    reasons.add(column, 'must be an array');
    return [];
  }
  if (value.trim() === '') return [];
  if (column === 'websites') return value.split('|').map((part) => part.trim());
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed)) return parsed;
  } catch {
    // Reported below, like any other non-array.
  }
  reasons.add(column, 'must be a JSON array of {"name", "changedOn"}');
  return [];
}

function websites(raw: RawRecord, reasons: Reasons): string[] {
  const values = list(raw, 'websites', reasons);
  if (values.length > WEBSITES_PER_PROFILE_MAX) {
    reasons.add('websites', `too many (${values.length}, at most ${WEBSITES_PER_PROFILE_MAX})`);
    return [];
  }
  const result: string[] = [];
  for (const value of values) {
    if (typeof value !== 'string' || !WEBSITE_PATTERN.test(value) ||
      value.length > WEBSITE_LENGTH_MAX) {
      reasons.add('websites', `bad URL ${JSON.stringify(value)} (http or https)`);
    } else {
      result.push(value);
    }
  }
  return result;
}

function formerName(value: unknown, reasons: Reasons): FormerNameRow | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    reasons.add('formerNames', 'each entry must be an object {"name", "changedOn"}');
    return null;
  }
  const { name, changedOn } = value as Record<string, unknown>;
  if (typeof name !== 'string' || name.trim().length === 0 ||
    name.trim().length > FORMER_NAME_LENGTH_MAX) {
    reasons.add('formerNames', `name must be 1 to ${FORMER_NAME_LENGTH_MAX} characters`);
    return null;
  }
  if (changedOn !== undefined && changedOn !== null &&
    (typeof changedOn !== 'string' || !isCalendarDate(changedOn))) {
    reasons.add('formerNames', `bad date ${JSON.stringify(changedOn)} (YYYY-MM-DD)`);
    return null;
  }
  return { name: name.trim(), changedOn: (changedOn as string | null | undefined) ?? null };
}

function formerNames(raw: RawRecord, reasons: Reasons): FormerNameRow[] {
  const values = list(raw, 'formerNames', reasons);
  if (values.length > FORMER_NAMES_PER_PROFILE_MAX) {
    reasons.add('formerNames',
      `too many (${values.length}, at most ${FORMER_NAMES_PER_PROFILE_MAX})`);
    return [];
  }
  return values.map((value) => formerName(value, reasons))
    .filter((value): value is FormerNameRow => value !== null);
}

function address(raw: RawRecord, reasons: Reasons) {
  const roadAddress = text(raw, 'roadAddress', reasons);
  const postalCode = matching(raw, 'postalCode', /^[0-9]{5}$/, 'bad postal code (five digits)',
    reasons);
  const sidoCode = text(raw, 'sidoCode', reasons);
  if (sidoCode !== null && !SIDO_CODES.includes(sidoCode)) {
    reasons.add('sidoCode', `unknown province code "${sidoCode}"`);
  }
  const sigunguCode = matching(raw, 'sigunguCode', /^[0-9]{5}$/,
    'bad district code (five digits)', reasons);
  if (sidoCode !== null && sigunguCode !== null && !sigunguCode.startsWith(sidoCode) &&
    !sigunguCode.startsWith(LEGACY_SIDO_CODES[sidoCode] ?? sidoCode)) {
    reasons.add('sigunguCode', `does not start with the province code ${sidoCode}`);
  }
  return { roadAddress, postalCode, sidoCode, sigunguCode };
}

function industry(raw: RawRecord, reasons: Reasons) {
  const businessType = text(raw, 'businessType', reasons);
  const businessItem = text(raw, 'businessItem', reasons);
  const standardIndustryCode = matching(raw, 'standardIndustryCode', KSIC_SUB_SUBCLASS_PATTERN,
    'bad KSIC code (five digits)', reasons);
  const standardIndustryName = text(raw, 'standardIndustryName', reasons);
  if (present(raw, 'standardIndustryCode') !== present(raw, 'standardIndustryName')) {
    reasons.add('standardIndustryName', 'code and name go together (both or neither)');
  }
  const categoryCode = text(raw, 'categoryCode', reasons);
  if (categoryCode !== null && findKsicSection(categoryCode) === null) {
    reasons.add('categoryCode', `unknown section "${categoryCode}" (A to U)`);
  }
  return { businessType, businessItem, standardIndustryCode, standardIndustryName, categoryCode };
}

function registration(raw: RawRecord, reasons: Reasons) {
  const registrationStatus = choice(raw, 'registrationStatus', REGISTRATION_STATUSES, reasons);
  const registrationClosedOn = dateColumn(raw, 'registrationClosedOn', reasons);
  const registrationCheckedAt = checkedAt(raw, reasons);
  if (present(raw, 'registrationStatus') !== present(raw, 'registrationCheckedAt')) {
    reasons.add('registrationCheckedAt', 'registrationStatus and registrationCheckedAt go ' +
      'together (both or neither)');
  }
  if (registrationClosedOn !== null && registrationStatus !== 'CLOSED') {
    reasons.add('registrationClosedOn', 'only for registrationStatus CLOSED');
  }
  const taxationType = choice(raw, 'taxationType', TAX_TYPES, reasons);
  return { registrationStatus, registrationClosedOn, registrationCheckedAt, taxationType };
}

// Validates one record; every problem is a reason ("column: what is wrong").
export function validateProfileRecord(raw: RawRecord): ValidationResult {
  const reasons = new Reasons();
  for (const name of Object.keys(raw)) {
    if (!isProfileColumn(name)) reasons.add(name, 'unknown column');
  }
  const businessRegistrationNumber = registrationNumber(raw, reasons);
  const profile = {
    corporateRegistrationNumber: corporateNumber(raw, reasons),
    businessKind: choice(raw, 'businessKind', BUSINESS_KINDS, reasons),
    commercialSalesNumber: text(raw, 'commercialSalesNumber', reasons),
    organizationName: text(raw, 'organizationName', reasons),
    organizationNameEnglish: text(raw, 'organizationNameEnglish', reasons),
    representativeName: text(raw, 'representativeName', reasons),
    ...address(raw, reasons),
    phone: matching(raw, 'phone', PHONE_PATTERN, 'bad phone number (e.g. 02-1234-5678)', reasons),
    email: matching(raw, 'email', EMAIL_PATTERN, 'bad email address', reasons),
    websites: websites(raw, reasons),
    ...industry(raw, reasons),
    openedOn: dateColumn(raw, 'openedOn', reasons),
    businessRegisteredOn: dateColumn(raw, 'businessRegisteredOn', reasons),
    corporationEstablishedOn: dateColumn(raw, 'corporationEstablishedOn', reasons),
    ...registration(raw, reasons),
  };
  const names = formerNames(raw, reasons);
  if (reasons.list.length > 0 || businessRegistrationNumber === null) {
    return { ok: false, reasons: reasons.list };
  }
  return {
    ok: true,
    value: { profile: { businessRegistrationNumber, ...profile }, formerNames: names },
  };
}

// Rows per transaction: bounded memory and bounded statement size (27 columns × 500 rows of
// parameters stays far below PostgreSQL's 65,535).
export const IMPORT_BATCH_SIZE = 500;

// Upserts one batch in one transaction. A number repeated within the batch keeps its last row,
// as if the rows had been applied one after another.
export async function importProfileBatch(db: Db, batch: ValidProfile[]): Promise<void> {
  const byNumber = new Map<string, ValidProfile>();
  for (const item of batch) byNumber.set(item.profile.businessRegistrationNumber, item);
  await db.transaction((tx) => upsertProfileRows(tx, [...byNumber.values()]));
}
