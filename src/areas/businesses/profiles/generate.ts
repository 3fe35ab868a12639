import { businessRegistrationCheckDigit } from '../../../domain/business-registration-number.ts';
import {
  corporateRegistrationCheckDigit,
} from '../../../domain/corporate-registration-number.ts';
import { PROFILE_COLUMNS, type ProfileColumn } from './import.ts';

// `etax generate profiles`: a deterministic synthetic profile data set in the columns of
// `etax import profiles` (docs/business-profiles.md § Import and generate). The same count and
// seed give the same rows, byte for byte: a seeded PRNG (mulberry32), no clock, no locale.

export const GENERATE_COUNT_MAX = 10_000_000;

type FormerName = { name: string; changedOn: string | null };
type ProfileFileRecord = Record<ProfileColumn, string | null | string[] | FormerName[]>;
export type ProfileFileFormat = 'csv' | 'jsonl';

// mulberry32: a tiny 32-bit PRNG, plenty for test data. Returns floats in [0, 1).
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// FNV-1a of the seed text, so any seed string (e.g. `42` or `bench`) picks a generator.
export function seedFromText(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  }
  return hash;
}

class Random {
  constructor(readonly next: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(probability: number): boolean {
    return this.next() < probability;
  }
  pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.next() * values.length)]!;
  }
  digits(count: number): string {
    let result = '';
    for (let index = 0; index < count; index += 1) result += String(this.int(0, 9));
    return result;
  }
}

// Distinct numbers without remembering them: index → (index × A + offset) mod N is a bijection
// on 0…N−1 because A is prime and divides no factor of N (799 × 10^6 = 17 × 47 × 10^6). The
// first three digits run 101–899, so no generated number is a sandbox number (999-99-…).
const NUMBER_SPACE = 799_000_000;
const NUMBER_MULTIPLIER = 1_000_003;

export function generatedRegistrationNumber(index: number, offset: number): string {
  const value = (index * NUMBER_MULTIPLIER + offset) % NUMBER_SPACE;
  const nine = String(101 + Math.floor(value / 1_000_000)) +
    String(value % 1_000_000).padStart(6, '0');
  return nine + String(businessRegistrationCheckDigit(nine));
}

const SURNAMES = ['김', '이', '박', '최', '정', '강', '조', '윤', '장', '임', '한', '오', '서'];
const GIVEN_NAMES = ['민준', '서연', '도윤', '지우', '하준', '서윤', '지호', '수아', '현우',
  '지민', '영수', '미경', '성호', '은정', '동현'];
const NAME_STEMS: ReadonlyArray<readonly [string, string]> = [
  ['한빛', 'Hanbit'], ['누리', 'Nuri'], ['가온', 'Gaon'], ['다온', 'Daon'], ['새솔', 'Saesol'],
  ['푸른', 'Pureun'], ['바른', 'Bareun'], ['온누리', 'Onnuri'], ['해솔', 'Haesol'],
  ['미래', 'Mirae'], ['대한', 'Daehan'], ['세움', 'Seum'], ['하늘', 'Haneul'], ['별빛', 'Byeolbit'],
];
const NAME_SUFFIXES = ['테크', '상사', '물산', '산업', '솔루션', '시스템', '유통', '건설', '푸드'];
const SHOP_SUFFIXES = ['상회', '식당', '마트', '공방', '스튜디오', '카페', '약국', '세탁소'];
// [sido code, province, area code, [sigungu code, district] …].
type Province = readonly [string, string, string, ReadonlyArray<readonly [string, string]>];
const PROVINCES: readonly Province[] = [
  ['11', '서울특별시', '02', [['11680', '강남구'], ['11440', '마포구'], ['11110', '종로구']]],
  ['26', '부산광역시', '051', [['26350', '해운대구'], ['26230', '부산진구']]],
  ['27', '대구광역시', '053', [['27110', '중구'], ['27260', '수성구']]],
  ['28', '인천광역시', '032', [['28185', '연수구'], ['28237', '부평구']]],
  ['30', '대전광역시', '042', [['30200', '유성구']]],
  ['41', '경기도', '031', [['41135', '성남시 분당구'], ['41117', '수원시 영통구']]],
  ['50', '제주특별자치도', '064', [['50110', '제주시']]],
];
const ROADS = ['테헤란로', '중앙대로', '세종대로', '해운대로', '판교역로', '월드컵로', '시청로'];
// [KSIC sub-subclass, its name, section, business type, business item]
const INDUSTRIES: ReadonlyArray<readonly [string, string, string, string, string]> = [
  ['58222', '응용 소프트웨어 개발 및 공급업', 'J', '정보통신업', '응용 소프트웨어 개발'],
  ['62010', '컴퓨터 프로그래밍 서비스업', 'J', '서비스', '소프트웨어 개발'],
  ['47190', '기타 대형 종합 소매업', 'G', '소매', '종합 소매'],
  ['46510', '컴퓨터 및 주변장치, 소프트웨어 도매업', 'G', '도매', '컴퓨터 및 주변기기'],
  ['56111', '한식 일반 음식점업', 'I', '음식점업', '한식'],
  ['56221', '커피 전문점', 'I', '음식점업', '커피'],
  ['41221', '도로 건설업', 'F', '건설업', '토목 공사'],
  ['10712', '떡, 빵 및 과자류 제조업', 'C', '제조업', '제과'],
  ['68112', '비주거용 건물 임대업', 'L', '부동산업', '부동산 임대'],
  ['71201', '회계 및 세무 관련 서비스업', 'M', '서비스', '세무 대리'],
  ['85501', '일반 교습 학원', 'P', '교육 서비스업', '입시 학원'],
  ['86201', '일반 의원', 'Q', '보건업', '의원'],
];
// Weighted by repetition: mostly active businesses.
const STATUSES = ['ACTIVE', 'ACTIVE', 'ACTIVE', 'ACTIVE', 'ACTIVE', 'ACTIVE', 'SUSPENDED',
  'CLOSED'];
const TAX_TYPES = ['GENERAL', 'GENERAL', 'GENERAL', 'SIMPLIFIED_RECEIPT_ISSUER',
  'SIMPLIFIED_TAX_INVOICE_ISSUER', 'TAX_FREE', 'NONPROFIT'];
// Check times are fixed offsets from this instant, never the clock.
const CHECKED_BASE_MS = Date.UTC(2025, 0, 1);
const DAY_MS = 86_400_000;
const NAMES_CHANGED_BY = '2024-12-31';

function dateFrom(base: string, days: number): string {
  return new Date(Date.parse(`${base}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function randomDate(random: Random, fromYear: number, toYear: number): string {
  const days = random.int(0, (toYear - fromYear) * 365);
  return dateFrom(`${fromYear}-01-01`, days);
}

function names(random: Random, corporate: boolean) {
  const [stem, roman] = random.pick(NAME_STEMS);
  if (!corporate) {
    return { organizationName: `${stem}${random.pick(SHOP_SUFFIXES)}`, english: null, roman };
  }
  const core = `${stem}${random.pick(NAME_SUFFIXES)}`;
  const organizationName = random.chance(0.5) ? `주식회사 ${core}` : `${core} 주식회사`;
  const english = random.chance(0.6) ? `${roman} Co., Ltd.` : null;
  return { organizationName, english, roman };
}

function representative(random: Random): string {
  const given = random.pick(GIVEN_NAMES);
  const name = `${random.pick(SURNAMES)}${given}`;
  // Some sources mask the middle character; a masked value stays masked.
  return random.chance(0.1) ? `${name[0]}*${name.slice(2)}` : name;
}

function addressAndContact(random: Random, roman: string) {
  const [sidoCode, province, areaCode, districts] = random.pick(PROVINCES);
  const [sigunguCode, district] = random.pick(districts);
  const hasAddress = random.chance(0.9);
  const websites = random.chance(0.3) ? [`https://www.${roman.toLowerCase()}.example`] : [];
  if (websites.length > 0 && random.chance(0.3)) {
    websites.push(`https://blog.${roman.toLowerCase()}.example`);
  }
  return {
    roadAddress: hasAddress ? `${province} ${district} ${random.pick(ROADS)} ` +
      `${random.int(1, 500)}` : null,
    postalCode: hasAddress ? random.digits(5) : null,
    sidoCode: hasAddress ? sidoCode : null,
    sigunguCode: hasAddress ? sigunguCode : null,
    phone: random.chance(0.7) ? `${areaCode}-${random.int(200, 999)}-${random.digits(4)}` : null,
    email: random.chance(0.5) ? `info@${roman.toLowerCase()}.example` : null,
    websites,
  };
}

function industry(random: Random) {
  if (random.chance(0.1)) {
    return {
      businessType: null, businessItem: null, standardIndustryCode: null,
      standardIndustryName: null, categoryCode: null,
    };
  }
  const [code, name, section, businessType, businessItem] = random.pick(INDUSTRIES);
  return {
    businessType, businessItem, standardIndustryCode: code, standardIndustryName: name,
    categoryCode: section,
  };
}

function registration(random: Random, openedOn: string) {
  if (random.chance(0.2)) {
    return {
      registrationStatus: null, registrationClosedOn: null, registrationCheckedAt: null,
      taxationType: null,
    };
  }
  const status = random.pick(STATUSES);
  const checkedAt = new Date(CHECKED_BASE_MS + random.int(0, 365 * 86_400) * 1000);
  // Closed between opening and the check.
  const span = Math.max(0, Math.floor((checkedAt.getTime() - Date.parse(openedOn)) / DAY_MS) - 1);
  return {
    registrationStatus: status,
    registrationClosedOn: status === 'CLOSED' ? dateFrom(openedOn, random.int(0, span)) : null,
    registrationCheckedAt: checkedAt.toISOString(),
    taxationType: random.pick(TAX_TYPES),
  };
}

function formerNames(random: Random, openedOn: string): FormerName[] {
  if (!random.chance(0.15)) return [];
  const count = random.int(1, 3);
  // Changes fall between opening and the end of 2024, most recent first.
  const span = Math.max(count, (Date.parse(NAMES_CHANGED_BY) - Date.parse(openedOn)) / DAY_MS);
  const result: FormerName[] = [];
  for (let index = 0; index < count; index += 1) {
    const [stem] = random.pick(NAME_STEMS);
    const days = Math.floor((span * (count - index)) / (count + 1));
    const changedOn = random.chance(0.9) ? dateFrom(openedOn, days) : null;
    result.push({ name: `${stem}${random.pick(NAME_SUFFIXES)}`, changedOn });
  }
  return result;
}

// A Seoul stock company's number (registry office 1101, kind 11) from seven random digits: the
// last is replaced by the check digit, so the random stream is drawn as before.
function corporateNumber(sevenDigits: string): string {
  const twelve = `110111${sevenDigits.slice(0, 6)}`;
  return `${twelve}${corporateRegistrationCheckDigit(twelve)}`;
}

// The profile at one index of a data set. Each index has its own PRNG stream, so a row does not
// depend on the rows before it.
function generateProfile(index: number, seed: number): ProfileFileRecord {
  const random = new Random(mulberry32(Math.imul(index + 1, 0x9e3779b1) ^ seed));
  const corporate = random.chance(0.4);
  const { organizationName, english, roman } = names(random, corporate);
  const openedOn = randomDate(random, 1990, 2024);
  return {
    businessRegistrationNumber: generatedRegistrationNumber(index, seed % NUMBER_SPACE),
    corporateRegistrationNumber: corporate ? corporateNumber(random.digits(7)) : null,
    businessKind: corporate ? 'CORPORATE' : 'INDIVIDUAL',
    commercialSalesNumber: random.chance(0.2)
      ? `${random.int(2010, 2024)}-서울강남-${random.digits(5)}` : null,
    organizationName,
    organizationNameEnglish: english,
    formerNames: formerNames(random, openedOn),
    representativeName: representative(random),
    ...addressAndContact(random, roman),
    ...industry(random),
    openedOn,
    businessRegisteredOn: dateFrom(openedOn, random.int(0, 30)),
    corporationEstablishedOn: corporate ? dateFrom(openedOn, -random.int(0, 60)) : null,
    ...registration(random, openedOn),
  };
}

export function* generateProfiles(count: number, seed: number): Generator<ProfileFileRecord> {
  for (let index = 0; index < count; index += 1) yield generateProfile(index, seed);
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. Null is empty.
function csvField(value: string | null): string {
  if (value === null) return '';
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function csvHeader(): string {
  return `${PROFILE_COLUMNS.join(',')}\r\n`;
}

// One line of the file, with its line ending: CSV (CRLF, RFC 4180) or JSON Lines (LF).
export function formatProfileRecord(record: ProfileFileRecord, format: ProfileFileFormat): string {
  if (format === 'jsonl') return `${JSON.stringify(record)}\n`;
  const fields = PROFILE_COLUMNS.map((column) => {
    const value = record[column];
    if (column === 'websites') return csvField((value as string[]).join('|') || null);
    if (column === 'formerNames') {
      const list = value as FormerName[];
      return csvField(list.length === 0 ? null : JSON.stringify(list));
    }
    return csvField(value as string | null);
  });
  return `${fields.join(',')}\r\n`;
}
