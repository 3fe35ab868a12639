// GET /v1/businessProfiles, profile search (docs/business-profiles.md § Search): paging through
// every result with cursors (no duplicates, no gaps, a stable order), ranking (the exact number
// first), partial Korean business and representative names, number prefixes with hyphens, 9
// points per result returned and nothing for an empty page, 402 on a low balance, 400 for a bad
// query, limit or cursor, test keys searching only the sandbox and live keys only the store.
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NAME_CANDIDATES_MAX,
  upsertProfileRows,
} from '../../../src/areas/businesses/profiles/store.ts';
import {
  SANDBOX_BUSINESS_NUMBERS as NUMBERS,
} from '../../../src/upstream/business-profiles/sandbox.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { accountHelpers } from '../../helpers/accounts.ts';
import { expectError } from '../../helpers/errors.ts';
import { PROFILE_KEYS } from './profile-keys.ts';

const PRICE_POINTS = 9;

// Store rows for live keys: 25 '한빛상사' branches (numbers 3100000000 to 3100000024), a few
// '삼성' names, a representative '박서준', and the number 3100000100 whose prefix 31000001 it
// shares with nothing else in the 한빛 block's first ten.
const HANBIT_COUNT = 25;
const hanbitNumber = (index: number) => `31000000${String(index).padStart(2, '0')}`;
const STORE_ROWS = [
  ...Array.from({ length: HANBIT_COUNT }, (_, index) => ({
    profile: {
      businessRegistrationNumber: hanbitNumber(index),
      organizationName: `한빛상사 ${index}호점`,
      representativeName: '최민수',
    },
    formerNames: index === 0 ? [{ name: '한빛상회', changedOn: '2020-01-01' }] : [],
  })),
  { profile: { businessRegistrationNumber: '3200000001', organizationName: '삼성전자 주식회사',
    businessKind: 'CORPORATE', representativeName: '한종희' }, formerNames: [] },
  { profile: { businessRegistrationNumber: '3200000002', organizationName: '삼성',
    representativeName: '이재용' }, formerNames: [] },
  { profile: { businessRegistrationNumber: '3200000003', organizationName: '푸른나무',
    representativeName: '박서준' }, formerNames: [] },
  { profile: { businessRegistrationNumber: '3100000100', organizationName: '번호전용',
    representativeName: null }, formerNames: [] },
];

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ env: { TEST_SIGNUP_POINTS: '0' } });
  await app.platform.database.db.transaction(async (tx) => {
    await upsertProfileRows(tx, STORE_ROWS);
  });
});
afterAll(async () => {
  await app?.close();
});

type Profile = Record<string, unknown> & {
  businessRegistrationNumber: string;
  organizationName: string | null;
  formerOrganizationNames: Array<{ name: string; changedOn: string | null }>;
};
type Page = { results: Profile[]; nextCursor: string | null; hasMore: boolean };

const { fundedAccount, expectBalance } = accountHelpers(() => app);

function searchOptions(key: string, params: Record<string, string | number>): InjectOptions {
  const query = new URLSearchParams(
    Object.entries(params).map(([name, value]) => [name, String(value)]),
  );
  return {
    method: 'GET',
    url: `/v1/businessProfiles?${query.toString()}`,
    headers: { authorization: basicAuth(key) },
  };
}

function search(key: string, params: Record<string, string | number>) {
  return app.server.inject(searchOptions(key, params));
}

async function searchOk(key: string, params: Record<string, string | number>): Promise<Page> {
  const response = await search(key, params);
  expect(response.statusCode).toBe(200);
  const page = response.json() as Page;
  expect(Object.keys(page).sort()).toEqual(['hasMore', 'nextCursor', 'results']);
  expect(page.hasMore).toBe(page.nextCursor !== null);
  for (const profile of page.results) expect(Object.keys(profile).sort()).toEqual(PROFILE_KEYS);
  return page;
}

const numbersOf = (page: Page) => page.results.map((profile) => profile.businessRegistrationNumber);

describe('happy: live keys search the profile store', () => {
  it('pages through every result with cursors: no duplicates, no gaps, a stable order',
    async () => {
      const account = await fundedAccount(10_000, 'live');
      const all = await searchOk(account.keys.live, { query: '한빛', limit: 100 });
      expect(all.nextCursor).toBeNull();
      expect(all.results).toHaveLength(HANBIT_COUNT);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const params: Record<string, string | number> = { query: '한빛', limit: 7 };
        if (cursor !== null) params.cursor = cursor;
        const page = await searchOk(account.keys.live, params);
        expect(page.results.length).toBeLessThanOrEqual(7);
        seen.push(...numbersOf(page));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBe(4);
      expect(seen).toEqual(numbersOf(all));
      expect(new Set(seen).size).toBe(HANBIT_COUNT);
      // The same query answers in the same order again.
      expect(numbersOf(await searchOk(account.keys.live, { query: '한빛', limit: 100 })))
        .toEqual(numbersOf(all));
      await expectBalance(account, 10_000 - 2 * HANBIT_COUNT * PRICE_POINTS - HANBIT_COUNT *
        PRICE_POINTS, 'live');
    });

  it('returns the §2.1 object of retrieval, former names included', async () => {
    const account = await fundedAccount(1_000, 'live');
    const page = await searchOk(account.keys.live, { query: '310-00-00000' });
    expect(page.results[0]).toMatchObject({
      businessRegistrationNumber: hanbitNumber(0),
      organizationName: '한빛상사 0호점',
      formerOrganizationNames: [{ name: '한빛상회', changedOn: '2020-01-01' }],
      contact: { phone: null, email: null, websites: [] },
      address: null,
      registration: null,
    });
  });

  it('ranks the exact number first, then number prefixes', async () => {
    const account = await fundedAccount(1_000, 'live');
    const exact = await searchOk(account.keys.live, { query: '3100000100' });
    expect(numbersOf(exact)).toEqual(['3100000100']);
    const prefix = await searchOk(account.keys.live, { query: '310-00-001', limit: 100 });
    expect(numbersOf(prefix)).toEqual(['3100000100']);
    const block = await searchOk(account.keys.live, { query: '310-00-000', limit: 100 });
    const hanbitNumbers = Array.from({ length: HANBIT_COUNT }, (_, i) => hanbitNumber(i));
    expect(numbersOf(block)).toEqual(hanbitNumbers);
  });

  it('matches a 2-character Korean query inside a longer name, the closest name first',
    async () => {
      const account = await fundedAccount(1_000, 'live');
      const page = await searchOk(account.keys.live, { query: '삼성' });
      expect(numbersOf(page)).toEqual(['3200000002', '3200000001']);
    });

  it('matches representative names, whole or partial', async () => {
    const account = await fundedAccount(1_000, 'live');
    expect(numbersOf(await searchOk(account.keys.live, { query: '박서준' })))
      .toEqual(['3200000003']);
    expect(numbersOf(await searchOk(account.keys.live, { query: '서준' })))
      .toEqual(['3200000003']);
  });

  it('treats % and _ literally', async () => {
    const account = await fundedAccount(1_000, 'live');
    expect((await searchOk(account.keys.live, { query: '%' })).results).toEqual([]);
    expect((await searchOk(account.keys.live, { query: '_' })).results).toEqual([]);
    await expectBalance(account, 1_000, 'live');
  });

  it('never answers a live key from the sandbox', async () => {
    const account = await fundedAccount(1_000, 'live');
    const page = await searchOk(account.keys.live, { query: NUMBERS.corporation });
    expect(page).toEqual({ results: [], nextCursor: null, hasMore: false });
    expect((await searchOk(account.keys.live, { query: '이택스' })).results).toEqual([]);
  });
});

describe('a query that matches more profiles than search ranks', () => {
  // NAME_CANDIDATES_MAX + 5 partial matches of '대량상사', and one exact match stored last.
  const BULK_COUNT = NAME_CANDIDATES_MAX + 5;
  const bulkNumber = (index: number) => `33${String(index).padStart(8, '0')}`;
  const EXACT_NUMBER = '3399999999';

  beforeAll(async () => {
    await app.platform.database.db.transaction(async (tx) => {
      await upsertProfileRows(tx, Array.from({ length: BULK_COUNT }, (_, index) => ({
        profile: {
          businessRegistrationNumber: bulkNumber(index),
          organizationName: `대량상사 ${index}호점`,
          representativeName: '김대량',
        },
        formerNames: [],
      })));
      await upsertProfileRows(tx, [{
        profile: { businessRegistrationNumber: EXACT_NUMBER, organizationName: '대량상사' },
        formerNames: [],
      }]);
    });
  });

  async function pageThrough(key: string, query: string): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const params: Record<string, string | number> = { query, limit: 100 };
      if (cursor !== null) params.cursor = cursor;
      const page = await searchOk(key, params);
      seen.push(...numbersOf(page));
      cursor = page.nextCursor;
    } while (cursor !== null);
    return seen;
  }

  it('ranks at most NAME_CANDIDATES_MAX partial name matches, the exact match first',
    async () => {
      const account = await fundedAccount(100_000, 'live');
      const seen = await pageThrough(account.keys.live, '대량상사');
      expect(seen[0]).toBe(EXACT_NUMBER);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThanOrEqual(NAME_CANDIDATES_MAX);
      expect(seen.length).toBeLessThanOrEqual(NAME_CANDIDATES_MAX + 1);
      await expectBalance(account, 100_000 - seen.length * PRICE_POINTS, 'live');
    });

  it('pages through every exact name match: exact names are not capped', async () => {
    const account = await fundedAccount(100_000, 'live');
    const seen = await pageThrough(account.keys.live, '김대량');
    expect(seen).toEqual(Array.from({ length: BULK_COUNT }, (_, index) => bulkNumber(index)));
  });

  it('pages through every number prefix match: numbers are not capped', async () => {
    const account = await fundedAccount(100_000, 'live');
    const seen = await pageThrough(account.keys.live, '33');
    expect(seen).toEqual([
      ...Array.from({ length: BULK_COUNT }, (_, index) => bulkNumber(index)),
      EXACT_NUMBER,
    ]);
  });
});

describe('matches spread over the search buckets (migration 0011)', () => {
  // 80 '은하수제과' profiles whose serial digits (6 to 9) walk through every one of the 64
  // buckets, a name with two words one space apart, the same words together, and a name with a
  // double space, which has no piece a query could look up.
  const SPREAD_COUNT = 80;
  const spreadNumber = (index: number) => `34000${String(index * 125).padStart(4, '0')}1`;
  const SPACED = { businessRegistrationNumber: '3500000001', organizationName: '물빛 정원' };
  const JOINED = { businessRegistrationNumber: '3500000002', organizationName: '물빛정원' };
  const DOUBLE_SPACED = { businessRegistrationNumber: '3500000003', organizationName: '가  나 상점' };
  const NINES = ['3699999998', '3699999999'];

  beforeAll(async () => {
    await app.platform.database.db.transaction(async (tx) => {
      await upsertProfileRows(tx, [
        ...Array.from({ length: SPREAD_COUNT }, (_, index) => ({
          profile: { businessRegistrationNumber: spreadNumber(index),
            organizationName: `은하수제과 ${index}호점` },
          formerNames: [],
        })),
        ...[SPACED, JOINED, DOUBLE_SPACED].map((profile) => ({ profile, formerNames: [] })),
        ...NINES.map((number) => ({
          profile: { businessRegistrationNumber: number, organizationName: '구구상회' },
          formerNames: [],
        })),
      ]);
    });
  });

  it('finds every match of a rare name in whichever bucket it is', async () => {
    const account = await fundedAccount(10_000, 'live');
    const page = await searchOk(account.keys.live, { query: '은하수제과', limit: 100 });
    expect(page.nextCursor).toBeNull();
    expect(numbersOf(page).sort()).toEqual(
      Array.from({ length: SPREAD_COUNT }, (_, index) => spreadNumber(index)).sort());
  });

  it('matches two words only where one space joins them, and joined words only joined',
    async () => {
      const account = await fundedAccount(10_000, 'live');
      const spaced = await searchOk(account.keys.live, { query: '물빛 정원' });
      expect(numbersOf(spaced)).toEqual([SPACED.businessRegistrationNumber]);
      const joined = await searchOk(account.keys.live, { query: '물빛정원' });
      expect(numbersOf(joined)).toEqual([JOINED.businessRegistrationNumber]);
      const either = await searchOk(account.keys.live, { query: '물빛' });
      expect(numbersOf(either).sort()).toEqual(
        [SPACED.businessRegistrationNumber, JOINED.businessRegistrationNumber]);
    });

  it('reads whole buckets for a query with no piece to look up', async () => {
    const account = await fundedAccount(10_000, 'live');
    const page = await searchOk(account.keys.live, { query: '가  나' });
    expect(numbersOf(page)).toEqual([DOUBLE_SPACED.businessRegistrationNumber]);
  });

  it('ranks a number prefix that ends in nines as one range, page by page', async () => {
    const account = await fundedAccount(10_000, 'live');
    const first = await searchOk(account.keys.live, { query: '369999999', limit: 1 });
    expect(numbersOf(first)).toEqual([NINES[0]]);
    const second = await searchOk(account.keys.live,
      { query: '369999999', limit: 1, cursor: first.nextCursor! });
    expect(numbersOf(second)).toEqual([NINES[1]]);
    expect(second.nextCursor).toBeNull();
  });
});

describe('happy: test keys search the sandbox', () => {
  it('finds sandbox profiles by name, representative and number; never store rows', async () => {
    const account = await fundedAccount(1_000);
    const byName = await searchOk(account.keys.test, { query: '이택스' });
    expect(numbersOf(byName)).toEqual([NUMBERS.corporation]);
    expect(byName.results[0]).toMatchObject({ organizationName: '주식회사 이택스샌드박스' });
    expect(numbersOf(await searchOk(account.keys.test, { query: '홍길동' })))
      .toEqual([NUMBERS.corporation]);
    const byPrefix = await searchOk(account.keys.test, { query: '999-99', limit: 100 });
    expect(numbersOf(byPrefix)).toEqual([
      NUMBERS.corporation, NUMBERS.soleProprietor, NUMBERS.neverChecked,
    ]);
    const exact = await searchOk(account.keys.test, { query: '999-99-00010' });
    expect(numbersOf(exact)).toEqual([NUMBERS.soleProprietor]);
    expect((await searchOk(account.keys.test, { query: '한빛' })).results).toEqual([]);
    expect((await searchOk(account.keys.test, { query: '3100000100' })).results).toEqual([]);
  });

  it('pages the sandbox with a cursor', async () => {
    const account = await fundedAccount(1_000);
    const first = await searchOk(account.keys.test, { query: '999', limit: 2 });
    expect(first.results).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await searchOk(account.keys.test,
      { query: '999', limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.nextCursor).toBeNull();
    expect([...numbersOf(first), ...numbersOf(second)]).toEqual([
      NUMBERS.corporation, NUMBERS.soleProprietor, NUMBERS.neverChecked,
    ]);
  });
});

describe('charging', () => {
  it('captures 9 points per result returned', async () => {
    const account = await fundedAccount(100);
    const page = await searchOk(account.keys.test, { query: '999-99', limit: 10 });
    expect(page.results).toHaveLength(3);
    await expectBalance(account, 100 - 3 * PRICE_POINTS);
  });

  it('charges nothing for an empty page', async () => {
    const account = await fundedAccount(180);
    expect(await searchOk(account.keys.test, { query: '없는회사' }))
      .toEqual({ results: [], nextCursor: null, hasMore: false });
    await expectBalance(account, 180);
  });

  it('needs 9 × limit points available: 402 with a lower balance, nothing charged', async () => {
    const account = await fundedAccount(2 * PRICE_POINTS);
    expectError(await search(account.keys.test, { query: '999-99', limit: 3 }), 402,
      'PAYMENT_REQUIRED');
    await expectBalance(account, 2 * PRICE_POINTS);
    const page = await searchOk(account.keys.test, { query: '999-99', limit: 2 });
    expect(page.results).toHaveLength(2);
    await expectBalance(account, 0);
  });
});

describe('validation: 400 INVALID_REQUEST, nothing charged', () => {
  const cases: Array<[string, Record<string, string | number>]> = [
    ['no query', {}],
    ['an empty query', { query: '' }],
    ['a blank query', { query: '   ' }],
    ['a query over 100 characters once trimmed', { query: '가'.repeat(101) }],
    ['limit 0', { query: '이택스', limit: 0 }],
    ['limit 101', { query: '이택스', limit: 101 }],
    ['a limit that is not an integer', { query: '이택스', limit: 'ten' }],
    ['a cursor that is not base64url', { query: '이택스', cursor: '!!!' }],
    ['a cursor of other JSON', {
      query: '이택스', cursor: Buffer.from('{"a":1}').toString('base64url') }],
    ['a cursor with a bad number', {
      query: '이택스', cursor: Buffer.from('[2,5,"12"]').toString('base64url') }],
    ['a cursor that is not JSON', { query: '이택스', cursor: 'abc' }],
    ['an unknown parameter', { query: '이택스', sort: 'name' }],
  ];
  it.each(cases)('%s', async (_, params) => {
    const account = await fundedAccount(1_000);
    expectError(await search(account.keys.test, params), 400, 'INVALID_REQUEST');
    await expectBalance(account, 1_000);
  });

  // PostgreSQL text cannot hold NUL, so no stored name can contain one; a query with it, or with
  // any control character, is refused before it reaches the store (it once failed there: 500).
  it.each([['NUL', '이택스\u0000'], ['a line feed', '이\n택스'], ['DEL', '\u007f이택스']])(
    'returns 400 naming query.query for a query with %s, with a test or live key',
    async (_, query) => {
      for (const environment of ['test', 'live'] as const) {
        const account = await fundedAccount(1_000, environment);
        const response = await search(account.keys[environment], { query });
        expectError(response, 400, 'INVALID_REQUEST');
        expect(response.json().message).toBe('query.query must not contain control characters.');
        await expectBalance(account, 1_000, environment);
      }
    });

  it('accepts a 100-character query once trimmed', async () => {
    const account = await fundedAccount(1_000);
    const page = await searchOk(account.keys.test, { query: ` ${'가'.repeat(100)} ` });
    expect(page.results).toEqual([]);
  });
});

