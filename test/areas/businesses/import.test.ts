// Row validation of `etax import profiles` (src/areas/businesses/profiles/import.ts): a full
// valid row in both file shapes (CSV strings, JSON Lines values), then each rejection reason on
// its own.
import { describe, expect, it } from 'vitest';
import {
  PROFILE_COLUMNS,
  validateProfileRecord,
  type RawRecord,
} from '../../../src/areas/businesses/profiles/import.ts';

// A corporation with every column filled, as a JSON Lines object.
const FULL: RawRecord = {
  businessRegistrationNumber: '999-99-00005',
  corporateRegistrationNumber: '110111-1234569',
  businessKind: 'CORPORATE',
  commercialSalesNumber: '2024-서울강남-01234',
  organizationName: '주식회사 이택스샌드박스',
  organizationNameEnglish: 'eTax Sandbox Co., Ltd.',
  formerNames: [
    { name: '주식회사 이택스랩', changedOn: '2022-03-15' },
    { name: '이택스랩 주식회사', changedOn: null },
  ],
  representativeName: '홍길동',
  roadAddress: '서울특별시 강남구 테헤란로 123, 4층',
  postalCode: '06234',
  sidoCode: '11',
  sigunguCode: '11680',
  phone: '02-1234-5678',
  email: 'contact@sandbox.etax.example',
  websites: ['https://sandbox.etax.example'],
  businessType: '정보통신업',
  businessItem: '응용 소프트웨어 개발 및 공급',
  standardIndustryCode: '58222',
  standardIndustryName: '응용 소프트웨어 개발 및 공급업',
  categoryCode: 'J',
  openedOn: '2015-04-01',
  businessRegisteredOn: '2015-04-10',
  corporationEstablishedOn: '2015-03-20',
  registrationStatus: 'CLOSED',
  registrationClosedOn: '2024-12-31',
  registrationCheckedAt: '2025-01-02T03:04:05Z',
  taxationType: 'GENERAL',
};

function reasonsOf(changes: RawRecord): string[] {
  const result = validateProfileRecord({ ...FULL, ...changes });
  expect(result.ok).toBe(false);
  return result.ok ? [] : result.reasons;
}

describe('validateProfileRecord', () => {
  it('accepts a full row and normalises numbers, keeping former names in order', () => {
    const result = validateProfileRecord(FULL);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { profile, formerNames } = result.value;
    expect(profile.businessRegistrationNumber).toBe('9999900005');
    expect(profile.corporateRegistrationNumber).toBe('1101111234569');
    expect(profile.registrationCheckedAt).toEqual(new Date('2025-01-02T03:04:05Z'));
    expect(profile.websites).toEqual(['https://sandbox.etax.example']);
    expect(formerNames).toEqual(FULL.formerNames);
  });

  it('accepts the CSV shape: strings, empty cells as null, | websites, JSON former names', () => {
    const csv: RawRecord = {};
    for (const column of PROFILE_COLUMNS) csv[column] = '';
    Object.assign(csv, {
      businessRegistrationNumber: '9999900010',
      websites: 'https://a.example | https://b.example',
      formerNames: '[{"name":"옛 이름","changedOn":"2020-01-01"}]',
    });
    const result = validateProfileRecord(csv);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.profile.websites).toEqual(['https://a.example', 'https://b.example']);
    expect(result.value.profile.organizationName).toBeNull();
    expect(result.value.profile.registrationStatus).toBeNull();
    expect(result.value.formerNames).toEqual([{ name: '옛 이름', changedOn: '2020-01-01' }]);
  });

  it('accepts a row with only the number; every other field is null or empty', () => {
    const result = validateProfileRecord({ businessRegistrationNumber: '9999900010' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.profile.websites).toEqual([]);
    expect(result.value.formerNames).toEqual([]);
  });

  const cases: Array<[string, RawRecord, RegExp]> = [
    ['a missing number', { businessRegistrationNumber: '' }, /businessRegistrationNumber: missing/],
    ['a number that is not ten digits', { businessRegistrationNumber: '12345' },
      /businessRegistrationNumber: not ten digits/],
    ['a bad checksum', { businessRegistrationNumber: '1234567890' },
      /businessRegistrationNumber: bad checksum/],
    ['a number given as a JSON number', { businessRegistrationNumber: 9999900005 },
      /businessRegistrationNumber: must be a string/],
    ['a corporate number that is not 13 digits', { corporateRegistrationNumber: '110111' },
      /corporateRegistrationNumber: not 13 digits/],
    ['a corporate number whose check digit is wrong',
      { corporateRegistrationNumber: '110111-1234567' },
      /corporateRegistrationNumber: bad checksum "110111-1234567"/],
    ['a number whose tax office code is never assigned',
      { businessRegistrationNumber: '0000000000' },
      /businessRegistrationNumber: unassigned tax office code "0000000000"/],
    ['an unknown business kind', { businessKind: 'PARTNERSHIP' }, /businessKind: unknown value/],
    ['an unknown registration status', { registrationStatus: 'GONE' },
      /registrationStatus: unknown value/],
    ['an unknown tax type', { taxationType: 'FLAT' }, /taxationType: unknown value/],
    ['a bad date', { openedOn: '2020-02-30' }, /openedOn: bad date/],
    ['a date in another format', { businessRegisteredOn: '2020/01/01' },
      /businessRegisteredOn: bad date/],
    ['a bad check time', { registrationCheckedAt: '2025-01-02 03:04' },
      /registrationCheckedAt: bad date-time/],
    ['a check time without a time zone', { registrationCheckedAt: '2025-01-02T03:04:05' },
      /registrationCheckedAt: bad date-time/],
    ['a status without a check time', { registrationCheckedAt: null },
      /registrationCheckedAt: .*both or neither/],
    ['a closing date for an active business', { registrationStatus: 'ACTIVE' },
      /registrationClosedOn: only for registrationStatus CLOSED/],
    ['an unknown section', { categoryCode: 'Z' }, /categoryCode: unknown section/],
    ['a bad KSIC code', { standardIndustryCode: '5822' }, /standardIndustryCode: bad KSIC code/],
    ['a KSIC code without a name', { standardIndustryName: '' },
      /standardIndustryName: code and name go together/],
    ['a bad postal code', { postalCode: '1234' }, /postalCode: bad postal code/],
    ['an unknown province code', { sidoCode: '99' }, /sidoCode: unknown province code/],
    ['a district outside its province', { sigunguCode: '26350' },
      /sigunguCode: does not start with the province code/],
    ['a bad district code', { sigunguCode: '1168' }, /sigunguCode: bad district code/],
    ['a bad phone number', { phone: '1234' }, /phone: bad phone number/],
    ['a bad email address', { email: 'nobody' }, /email: bad email address/],
    ['a bad website', { websites: ['ftp://example.com'] }, /websites: bad URL/],
    ['too many websites', { websites: Array(21).fill('https://a.example') },
      /websites: too many/],
    ['too long a name', { organizationName: '가'.repeat(201) },
      /organizationName: too long \(201 characters, at most 200\)/],
    ['too long a representative name', { representativeName: 'a'.repeat(101) },
      /representativeName: too long/],
    ['a NUL character', { businessItem: 'a\u0000b' }, /businessItem: contains a NUL character/],
    ['former names that are not a list', { formerNames: 'not json' },
      /formerNames: must be a JSON array/],
    ['a former name without a name', { formerNames: [{ changedOn: '2020-01-01' }] },
      /formerNames: name must be 1 to 200 characters/],
    ['a former name with a bad date', { formerNames: [{ name: 'x', changedOn: '2020-13-01' }] },
      /formerNames: bad date/],
    ['too many former names', { formerNames: Array(101).fill({ name: 'x', changedOn: null }) },
      /formerNames: too many/],
    ['an unknown column', { nickname: 'x' }, /nickname: unknown column/],
  ];

  it.each(cases)('rejects %s with a reason', (_name, changes, reason) => {
    const reasons = reasonsOf(changes);
    expect(reasons.some((text) => reason.test(text)), reasons.join('\n')).toBe(true);
  });

  it('reports every problem of a row, not only the first', () => {
    const reasons = reasonsOf({ businessKind: 'X', postalCode: '1', categoryCode: 'Z' });
    expect(reasons).toHaveLength(3);
  });
});

