// GET /v1/businessProfiles/{businessRegistrationNumber}
// (docs/business-profiles.md): one test per row of §4.1's response table, the three sandbox mock
// scenarios checked field by field with exact key sets, hyphenated input, the order of checks
// (number → rate limit → points → lookup), 90 points captured only on 200 and nothing on any
// other response, live keys reading the profile store and never the sandbox, and parallel
// retrievals against a balance that covers only some. Accounts start with no test points; the
// ledger is audited after every balance check.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertProfileRow } from '../../../src/areas/businesses/profiles/store.ts';
import {
  SANDBOX_BUSINESS_NUMBERS as NUMBERS,
} from '../../../src/upstream/business-profiles/sandbox.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { accountHelpers } from '../../helpers/accounts.ts';
import { expectError } from '../../helpers/errors.ts';
import { PROFILE_KEYS } from './profile-keys.ts';

const PRICE_POINTS = 90;
const RATE_LIMIT = 300;
const ISO_UTC_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

const ADDRESS_KEYS = ['postalCode', 'roadAddress', 'sidoCode', 'sigunguCode'];
const CONTACT_KEYS = ['email', 'phone', 'websites'];
const INDUSTRY_KEYS = ['businessItem', 'businessType', 'category', 'standardIndustry'];
const REGISTRATION_KEYS = ['checkedAt', 'closedOn', 'status'];

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ env: { TEST_SIGNUP_POINTS: '0' } });
});
afterAll(async () => {
  await app?.close();
});

type Profile = Record<string, unknown> & {
  formerOrganizationNames: Array<Record<string, unknown>>;
  address: Record<string, unknown> | null;
  contact: Record<string, unknown> & { websites: string[] };
  industry: Record<string, unknown>;
  registration: Record<string, unknown> | null;
  taxation: Record<string, unknown> | null;
};

const { fundedAccount, reserveTest, expectBalance } = accountHelpers(() => app);

function retrieveOptions(key: string, number: string): InjectOptions {
  const url = `/v1/businessProfiles/${encodeURIComponent(number)}`;
  return { method: 'GET', url, headers: { authorization: basicAuth(key) } };
}

function retrieve(key: string, number: string): Promise<LightMyRequestResponse> {
  return app.server.inject(retrieveOptions(key, number));
}

function expectProfileShape(profile: Profile) {
  expect(Object.keys(profile).sort()).toEqual(PROFILE_KEYS);
  expect(Object.keys(profile.contact).sort()).toEqual(CONTACT_KEYS);
  expect(Object.keys(profile.industry).sort()).toEqual(INDUSTRY_KEYS);
  if (profile.address !== null) expect(Object.keys(profile.address).sort()).toEqual(ADDRESS_KEYS);
  if (profile.registration !== null) {
    expect(Object.keys(profile.registration).sort()).toEqual(REGISTRATION_KEYS);
  }
  if (profile.taxation !== null) expect(Object.keys(profile.taxation)).toEqual(['type']);
  for (const formerName of profile.formerOrganizationNames) {
    expect(Object.keys(formerName).sort()).toEqual(['changedOn', 'name']);
  }
}

async function retrieveOk(number: string): Promise<Profile> {
  const account = await fundedAccount(PRICE_POINTS);
  const response = await retrieve(account.keys.test, number);
  expect(response.statusCode).toBe(200);
  await expectBalance(account, 0);
  const profile = response.json() as Profile;
  expectProfileShape(profile);
  return profile;
}

describe('happy: the sandbox mock scenarios', () => {
  it('returns 200 with a corporation whose every field is filled, and charges 90 points',
    async () => {
      const profile = await retrieveOk('999-99-00005');
      expect(profile).toEqual({
        businessRegistrationNumber: '9999900005',
        corporateRegistrationNumber: '1101111234569',
        businessKind: 'CORPORATE',
        commercialSalesNumber: '2024-서울강남-01234',
        organizationName: '주식회사 이택스샌드박스',
        organizationNameEnglish: 'eTax Sandbox Co., Ltd.',
        formerOrganizationNames: [
          { name: '주식회사 이택스랩', changedOn: '2022-03-15' },
          { name: '이택스랩 주식회사', changedOn: '2019-07-01' },
        ],
        representativeName: '홍길동',
        address: {
          roadAddress: '서울특별시 강남구 테헤란로 123, 4층',
          postalCode: '06234',
          sidoCode: '11',
          sigunguCode: '11680',
        },
        contact: {
          phone: '02-1234-5678',
          email: 'contact@sandbox.etax.example',
          websites: ['https://sandbox.etax.example', 'https://blog.sandbox.etax.example'],
        },
        industry: {
          businessType: '정보통신업',
          businessItem: '응용 소프트웨어 개발 및 공급',
          standardIndustry: { code: '58222', name: '응용 소프트웨어 개발 및 공급업' },
          category: { code: 'J', name: '정보통신업' },
        },
        openedOn: '2015-04-01',
        businessRegisteredOn: '2015-04-10',
        corporationEstablishedOn: '2015-03-20',
        registration: { status: 'ACTIVE', closedOn: null, checkedAt: '2025-01-02T03:04:05.000Z' },
        taxation: { type: 'GENERAL' },
      });
    });

  it('fills every nullable field of the corporation except closedOn of an active business',
    async () => {
      const profile = await retrieveOk(NUMBERS.corporation);
      const nulls = Object.entries(profile).filter(([, value]) => value === null);
      expect(nulls).toEqual([]);
      expect(Object.values(profile.address!).every((value) => value !== null)).toBe(true);
      expect(Object.values(profile.industry).every((value) => value !== null)).toBe(true);
      expect(profile.formerOrganizationNames.length).toBeGreaterThanOrEqual(2);
      expect(profile.contact.websites.length).toBeGreaterThanOrEqual(1);
      const changedOn = profile.formerOrganizationNames.map((name) => String(name.changedOn));
      expect([...changedOn].sort().reverse()).toEqual(changedOn);
      expect(profile.registration!.checkedAt).toMatch(ISO_UTC_PATTERN);
      for (const field of ['openedOn', 'businessRegisteredOn', 'corporationEstablishedOn']) {
        expect(profile[field]).toMatch(DATE_PATTERN);
      }
    });

  it('returns 200 with a sole proprietor: corporation-only fields null, contact values null, ' +
    'lists empty', async () => {
    const profile = await retrieveOk(NUMBERS.soleProprietor);
    expect(profile.businessKind).toBe('INDIVIDUAL');
    expect(profile.corporateRegistrationNumber).toBeNull();
    expect(profile.organizationNameEnglish).toBeNull();
    expect(profile.corporationEstablishedOn).toBeNull();
    expect(profile.commercialSalesNumber).toBeNull();
    expect(profile.formerOrganizationNames).toEqual([]);
    expect(profile.contact).toEqual({ phone: null, email: null, websites: [] });
    expect(profile.address).not.toBeNull();
    expect(profile.organizationName).toBe('김철수상회');
    expect(profile.registration).toMatchObject({ status: 'ACTIVE', closedOn: null });
    expect(profile.taxation).toEqual({ type: 'SIMPLIFIED_TAX_INVOICE_ISSUER' });
  });

  it('returns 200 with a never-checked business: address, registration and taxation null',
    async () => {
      const profile = await retrieveOk(NUMBERS.neverChecked);
      expect(profile.address).toBeNull();
      expect(profile.registration).toBeNull();
      expect(profile.taxation).toBeNull();
      expect(profile.contact).toEqual({ phone: null, email: null, websites: [] });
      expect(profile.industry).toEqual({
        businessType: null, businessItem: null, standardIndustry: null, category: null,
      });
      expect(profile.formerOrganizationNames).toEqual([]);
      expect(profile.businessRegistrationNumber).toBe('9999900024');
    });

  it.each(['9999900005', '999-99-00005', '999-9900005', '-999-99-000-05-'])(
    'accepts %s with or without hyphens and answers the ten-digit number', async (number) => {
      const profile = await retrieveOk(number);
      expect(profile.businessRegistrationNumber).toBe('9999900005');
    });

  it('charges 90 points per successful retrieval, every time', async () => {
    const account = await fundedAccount(1_000);
    for (let callIndex = 0; callIndex < 3; callIndex += 1) {
      expect((await retrieve(account.keys.test, NUMBERS.soleProprietor)).statusCode).toBe(200);
    }
    await expectBalance(account, 1_000 - 3 * PRICE_POINTS);
  });
});

describe('errors', () => {
  it.each([
    ['nine digits', '999-99-0000'],
    ['eleven digits', '99999000051'],
    ['a letter', '999-99-0000a'],
    ['spaces', '999 99 00005'],
    ['full-width digits', '９９９９９０００５'],
    ['a dot', '999.99.00005'],
    ['only hyphens', '----------'],
  ])('returns 400 INVALID_REQUEST naming the field for %s, and charges nothing',
    async (_name, number) => {
      const account = await fundedAccount(100);
      const body = expectError(await retrieve(account.keys.test, number), 400, 'INVALID_REQUEST');
      expect(body.message).toContain('businessRegistrationNumber');
      await expectBalance(account, 100);
    });

  it.each(['999-99-00006', '1234567890', '124-81-00997', '0000000000'])(
    'returns 400 INVALID_BUSINESS_REGISTRATION_NUMBER for %s, and charges nothing',
    async (number) => {
      const account = await fundedAccount(100);
      const response = await retrieve(account.keys.test, number);
      expectError(response, 400, 'INVALID_BUSINESS_REGISTRATION_NUMBER');
      await expectBalance(account, 100);
    });

  it.each(['124-81-00998', '111-11-11119', '999-99-00062'])(
    'returns 400 INVALID_REQUEST for the valid number %s outside the sandbox list with a test key',
    async (number) => {
      const account = await fundedAccount(100);
      const body = expectError(await retrieve(account.keys.test, number), 400, 'INVALID_REQUEST');
      expect(body.message).toMatch(/sandbox/);
      await expectBalance(account, 100);
    });

  it('returns 404 NOT_FOUND for 999-99-00039 and charges nothing', async () => {
    const account = await fundedAccount(100);
    expectError(await retrieve(account.keys.test, '999-99-00039'), 404, 'NOT_FOUND');
    await expectBalance(account, 100);
  });

  it('returns 503 LOOKUP_UNAVAILABLE for 999-99-00043 and charges nothing', async () => {
    const account = await fundedAccount(100);
    expectError(await retrieve(account.keys.test, '999-99-00043'), 503, 'LOOKUP_UNAVAILABLE');
    await expectBalance(account, 100);
  });

  it('returns 503 SERVICE_UNAVAILABLE for 999-99-00058 and charges nothing', async () => {
    const account = await fundedAccount(100);
    expectError(await retrieve(account.keys.test, '999-99-00058'), 503, 'SERVICE_UNAVAILABLE');
    await expectBalance(account, 100);
  });

  it('returns 402 PAYMENT_REQUIRED and writes no ledger entry when the posted balance is 89',
    async () => {
      const account = await fundedAccount(89);
      expectError(await retrieve(account.keys.test, NUMBERS.corporation), 402, 'PAYMENT_REQUIRED');
      await expectBalance(account, 89);
    });

  it('returns 409 AVAILABLE_POINTS_INSUFFICIENT when other requests reserved the points',
    async () => {
      const account = await fundedAccount(100);
      const reservation = await reserveTest(account, 'businesses.profiles.retrieve', 20);
      const response = await retrieve(account.keys.test, NUMBERS.corporation);
      expectError(response, 409, 'AVAILABLE_POINTS_INSUFFICIENT');
      await app.platform.points.release(reservation);
      await expectBalance(account, 100);
    });

  it('checks the number before the points: a bad number with no balance is 400', async () => {
    const account = await fundedAccount(0);
    expectError(await retrieve(account.keys.test, '12345'), 400, 'INVALID_REQUEST');
    expectError(await retrieve(account.keys.test, '999-99-00006'), 400,
      'INVALID_BUSINESS_REGISTRATION_NUMBER');
    await expectBalance(account, 0);
  });

  it('checks the points before the lookup: 999-99-00039 with no balance is 402', async () => {
    const account = await fundedAccount(0);
    expectError(await retrieve(account.keys.test, NUMBERS.notFound), 402, 'PAYMENT_REQUIRED');
    await expectBalance(account, 0);
  });
});

describe('rate limit', () => {
  it('returns 429 RATE_LIMITED with Retry-After on the 301st call in a minute, charging ' +
    'only the 300 retrievals, and still answers bad numbers with 400 first', async () => {
    const account = await fundedAccount(1_000_000);
    for (let callIndex = 0; callIndex < RATE_LIMIT; callIndex += 1) {
      const response = await retrieve(account.keys.test, NUMBERS.soleProprietor);
      expect(response.statusCode).toBe(200);
    }
    const refused = await retrieve(account.keys.test, NUMBERS.soleProprietor);
    expectError(refused, 429, 'RATE_LIMITED');
    const retryAfterSeconds = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfterSeconds)).toBe(true);
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);

    expectError(await retrieve(account.keys.test, '12345'), 400, 'INVALID_REQUEST');
    expectError(await retrieve(account.keys.test, '999-99-00006'), 400,
      'INVALID_BUSINESS_REGISTRATION_NUMBER');
    expectError(await retrieve(account.keys.test, '124-81-00998'), 400, 'INVALID_REQUEST');
    await expectBalance(account, 1_000_000 - RATE_LIMIT * PRICE_POINTS);
  });

  it('sends the policy of 300 calls per 60 seconds on a successful call', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const response = await retrieve(account.keys.test, NUMBERS.corporation);
    expect(response.headers['ratelimit-policy'])
      .toBe('"businesses.profiles.retrieve";q=300;w=60');
  });
});

// 401 without a key or with an unknown or password-bearing one, before the number is checked;
// the Trace-Id; and the rate-limit headers naming this operation.

describe('security', () => {
  it('charges a test key\'s test balance and leaves the live balance alone', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    await app.platform.points.grant({ accountId: account.accountId, environment: 'live',
      points: 500 });
    expect((await retrieve(account.keys.test, NUMBERS.corporation)).statusCode).toBe(200);
    await expectBalance(account, 0);
    await expectBalance(account, 500, 'live');
  });
});

describe('live keys read the profile store', () => {
  const LIVE_NUMBER = '1248100998';
  const CHECKED_AT = new Date('2025-06-30T23:59:58.123Z');

  beforeAll(async () => {
    await app.platform.database.db.transaction(async (tx) => {
      await upsertProfileRow(tx, {
        businessRegistrationNumber: LIVE_NUMBER,
        corporateRegistrationNumber: '1301110006246',
        businessKind: 'CORPORATE',
        organizationName: '삼성전자 주식회사',
        roadAddress: '경기도 수원시 영통구 삼성로 129',
        sidoCode: '41',
        websites: ['https://www.samsung.com'],
        standardIndustryCode: '26429',
        standardIndustryName: '기타 무선 통신장비 제조업',
        categoryCode: 'C',
        openedOn: '1969-01-13',
        registrationStatus: 'CLOSED',
        registrationClosedOn: '2024-12-31',
        registrationCheckedAt: CHECKED_AT,
        taxationType: 'TAX_FREE',
      }, [
        { name: '삼성전자공업 주식회사', changedOn: '1984-02-28' },
        { name: '삼성전자 (구)', changedOn: null },
      ]);
      await upsertProfileRow(tx, { businessRegistrationNumber: '1208147521' }, []);
    });
  });

  it('returns 200 with the stored profile, null for what is not stored, and charges 90',
    async () => {
      const account = await fundedAccount(100, 'live');
      const response = await retrieve(account.keys.live, '124-81-00998');
      expect(response.statusCode).toBe(200);
      const profile = response.json() as Profile;
      expectProfileShape(profile);
      expect(profile).toEqual({
        businessRegistrationNumber: LIVE_NUMBER,
        corporateRegistrationNumber: '1301110006246',
        businessKind: 'CORPORATE',
        commercialSalesNumber: null,
        organizationName: '삼성전자 주식회사',
        organizationNameEnglish: null,
        formerOrganizationNames: [
          { name: '삼성전자공업 주식회사', changedOn: '1984-02-28' },
          { name: '삼성전자 (구)', changedOn: null },
        ],
        representativeName: null,
        address: {
          roadAddress: '경기도 수원시 영통구 삼성로 129',
          postalCode: null,
          sidoCode: '41',
          sigunguCode: null,
        },
        contact: { phone: null, email: null, websites: ['https://www.samsung.com'] },
        industry: {
          businessType: null,
          businessItem: null,
          standardIndustry: { code: '26429', name: '기타 무선 통신장비 제조업' },
          category: { code: 'C', name: '제조업' },
        },
        openedOn: '1969-01-13',
        businessRegisteredOn: null,
        corporationEstablishedOn: null,
        registration: {
          status: 'CLOSED',
          closedOn: '2024-12-31',
          checkedAt: '2025-06-30T23:59:58.123Z',
        },
        taxation: { type: 'TAX_FREE' },
      });
      await expectBalance(account, 10, 'live');
    });

  it('answers a stored profile with only a number as all nulls, empty lists and objects',
    async () => {
      const account = await fundedAccount(PRICE_POINTS, 'live');
      const response = await retrieve(account.keys.live, '120-81-47521');
      expect(response.statusCode).toBe(200);
      const profile = response.json() as Profile;
      expectProfileShape(profile);
      expect(profile.address).toBeNull();
      expect(profile.registration).toBeNull();
      expect(profile.taxation).toBeNull();
      expect(profile.contact).toEqual({ phone: null, email: null, websites: [] });
      expect(profile.formerOrganizationNames).toEqual([]);
      await expectBalance(account, 0, 'live');
    });

  it('returns 404 NOT_FOUND for a number with no stored profile, and charges nothing',
    async () => {
      const account = await fundedAccount(100, 'live');
      expectError(await retrieve(account.keys.live, '220-81-62517'), 404, 'NOT_FOUND');
      await expectBalance(account, 100, 'live');
    });

  it.each(Object.entries(NUMBERS))('never answers a live key with the sandbox %s (%s): 404',
    async (_name, number) => {
      const account = await fundedAccount(100, 'live');
      expectError(await retrieve(account.keys.live, number), 404, 'NOT_FOUND');
      await expectBalance(account, 100, 'live');
    });

  it('still checks the number with a live key', async () => {
    const account = await fundedAccount(100, 'live');
    expectError(await retrieve(account.keys.live, '12345'), 400, 'INVALID_REQUEST');
    expectError(await retrieve(account.keys.live, '124-81-00997'), 400,
      'INVALID_BUSINESS_REGISTRATION_NUMBER');
    await expectBalance(account, 100, 'live');
  });

  it('replaces the former names when a profile is stored again', async () => {
    const db = app.platform.database.db;
    const number = '2148639239';
    await db.transaction((tx) => upsertProfileRow(tx, { businessRegistrationNumber: number },
      [{ name: '옛 이름', changedOn: '2000-01-01' }]));
    await db.transaction((tx) => upsertProfileRow(tx,
      { businessRegistrationNumber: number, organizationName: '새 이름' }, []));
    const account = await fundedAccount(PRICE_POINTS, 'live');
    const profile = (await retrieve(account.keys.live, number)).json() as Profile;
    expect(profile.organizationName).toBe('새 이름');
    expect(profile.formerOrganizationNames).toEqual([]);
  });
});

describe('concurrency against the ledger', () => {
  it('lets exactly floor(balance / 90) of 25 parallel retrievals succeed; the rest get 402 or ' +
    '409 and nothing is overspent', async () => {
    const balance = 10 * PRICE_POINTS + 45;
    const account = await fundedAccount(balance);
    const responses = await Promise.all(
      Array.from({ length: 25 }, () => retrieve(account.keys.test, NUMBERS.corporation)),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.every((status) => [200, 402, 409].includes(status))).toBe(true);
    for (const response of responses.filter((each) => each.statusCode !== 200)) {
      const code = response.statusCode === 402
        ? 'PAYMENT_REQUIRED'
        : 'AVAILABLE_POINTS_INSUFFICIENT';
      expectError(response, response.statusCode, code);
    }
    await expectBalance(account, 45);
  });
});
