// GET /v1/connections and GET /v1/bankAccounts are bounded: `limit` (1 to 100, 100 unless
// given) and an opaque cursor page them oldest first without gaps or repeats, `hasMore` says
// when to stop, and a cursor the server did not write or a limit out of bounds is 400. A cursor
// never reaches another account's or the other environment's connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  businessRegistrationCheckDigit,
} from '../../../src/domain/business-registration-number.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { connectBankAccount } from '../bank-transactions/helpers.ts';
import { connectHometax } from '../revenue-expenses/helpers.ts';
import { request } from '../tax-invoices/helpers.ts';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ env: { AUTH_CACHE_TTL_MS: '0' } });
});
afterAll(async () => {
  await app?.close();
});

function businessNumber(seed: number): string {
  const nine = String(310_000_000 + seed * 6_007).slice(0, 9);
  return `${nine}${businessRegistrationCheckDigit(nine)}`;
}

type Page = { items: Array<{ id?: string; bankAccountId?: string }>; nextCursor: string | null;
  hasMore: boolean };

async function list(key: string, path: string): Promise<Page> {
  const response = await app.server.inject(request(key, 'GET', path));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Page;
}

// Every item of the list, a page of `limit` at a time, following nextCursor until hasMore is
// false.
async function pageThrough(key: string, path: string, limit: number) {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page: Page = await list(key, `${path}${separator}limit=${limit}` +
      (cursor === null ? '' : `&cursor=${cursor}`));
    expect(page.hasMore).toBe(page.nextCursor !== null);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length < 20);
  return pages;
}

describe('GET /v1/connections', () => {
  it('pages the connections oldest first, without gaps or repeats', async () => {
    const { keys } = await app.createAccount();
    const connected = [];
    for (let seed = 1; seed <= 5; seed += 1) {
      connected.push((await connectHometax(app, keys.test, businessNumber(seed))).id);
    }
    const whole = await list(keys.test, '/v1/connections');
    expect(whole.items.map((item) => item.id)).toEqual(connected);
    expect(whole).toMatchObject({ nextCursor: null, hasMore: false });
    const pages = await pageThrough(keys.test, '/v1/connections', 2);
    expect(pages.map((page) => page.items.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((page) => page.items.map((item) => item.id))).toEqual(connected);
    const filtered = await pageThrough(keys.test, '/v1/connections?kind=HOMETAX', 3);
    expect(filtered.flatMap((page) => page.items.map((item) => item.id))).toEqual(connected);
    expect((await list(keys.test, '/v1/connections?kind=BANK_ACCOUNT')).items).toEqual([]);
  });

  it('refuses its cursor to another account and to the live environment', async () => {
    const owner = await app.createAccount();
    const other = await app.createAccount();
    for (let seed = 11; seed <= 12; seed += 1) {
      await connectHometax(app, owner.keys.test, businessNumber(seed));
    }
    const { nextCursor } = await list(owner.keys.test, '/v1/connections?limit=1');
    expect(nextCursor).not.toBeNull();
    for (const key of [other.keys.test, owner.keys.live]) {
      expectError(await app.server.inject(request(key, 'GET',
        `/v1/connections?cursor=${nextCursor}`)), 400, 'INVALID_REQUEST', /cursor/);
    }
    expect((await list(other.keys.test, '/v1/connections')).items).toEqual([]);
  });

  it('refuses a limit out of bounds or a cursor it did not write with 400', async () => {
    const { keys, accountId } = await app.createAccount();
    for (let seed = 21; seed <= 22; seed += 1) {
      await connectHometax(app, keys.test, businessNumber(seed));
    }
    const { nextCursor } = await list(keys.test, '/v1/connections?limit=1');
    // Cursors sealed as the server seals them, for the same list and caller, holding what the
    // server would never write.
    const at = { list: 'connections.list.ALL', scope: { accountId, environment: 'test' as const } };
    const anything = (value: unknown): value is string => typeof value === 'string';
    const [position, id] = app.cursors.decode<[string, string]>(at, nextCursor!,
      [anything, anything]);
    const encodeCursor = (tuple: unknown[]) => app.cursors.encode(at, tuple);
    for (const query of ['limit=0', 'limit=101', 'limit=many', 'kind=OTHER', 'sort=desc']) {
      expectError(await app.server.inject(request(keys.test, 'GET', `/v1/connections?${query}`)),
        400, 'INVALID_REQUEST');
    }
    for (const cursor of ['x', encodeCursor([position]), encodeCursor([id, position]),
      encodeCursor(['2026-02-30T00:00:00.000000Z', id]), encodeCursor([position, 'led_abc']),
      encodeCursor([position, "con_' or '1'='1"]), encodeCursor([7])]) {
      expectError(await app.server.inject(request(keys.test, 'GET',
        `/v1/connections?cursor=${encodeURIComponent(cursor)}`)), 400, 'INVALID_REQUEST',
      /cursor/);
    }
  });
});

describe('GET /v1/bankAccounts', () => {
  it('pages the connected accounts oldest first; hasMore false on the last page', async () => {
    const { keys } = await app.createAccount({ plan: 'STANDARD' });
    const ids = [];
    for (const number of ['110-123-456781', '110-123-456782', '110-123-456783']) {
      ids.push((await connectBankAccount(app, keys.test, '004', number)).bankAccountId);
    }
    const pages = await pageThrough(keys.test, '/v1/bankAccounts', 2);
    expect(pages.map((page) => page.items.length)).toEqual([2, 1]);
    expect(pages.flatMap((page) => page.items.map((item) => item.bankAccountId))).toEqual(ids);
    expect((await list(keys.test, '/v1/bankAccounts')).hasMore).toBe(false);
    // The account's HOMETAX connections are not bank accounts and never fill a page.
    await connectHometax(app, keys.test, businessNumber(31));
    expect((await list(keys.test, '/v1/bankAccounts?limit=3')).items).toHaveLength(3);
  });

  it('refuses a limit out of bounds or a foreign cursor with 400', async () => {
    const { keys, accountId } = await app.createAccount({ plan: 'STANDARD' });
    const foreign = app.cursors.encode({ list: 'connections.list.BANK_ACCOUNT',
      scope: { accountId, environment: 'test' } }, ['x', 'y']);
    for (const query of ['limit=0', 'limit=101', `cursor=${foreign}`,
      'cursor=', 'from=2026-01-01']) {
      expectError(await app.server.inject(request(keys.test, 'GET', `/v1/bankAccounts?${query}`)),
        400, 'INVALID_REQUEST');
    }
  });
});
