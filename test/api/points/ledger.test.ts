// GET /v1/points/ledger (docs/points.md § The ledger): the calling key's own entries, newest
// first, each naming its price row, the request that charged (its Trace-Id) and the document
// it is for, a capture with the reservation it settled; filters by kind, price row and Seoul
// dates; an opaque cursor that pages without gaps or repeats and refuses anything it did not
// write; no entry of another account or of the other environment, whatever the cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seoulDate } from '../../../src/domain/business-days.ts';
import { runInRequest } from '../../../src/platform/request-context.ts';
import {
  SANDBOX_BUSINESS_NUMBERS as NUMBERS,
} from '../../../src/upstream/business-profiles/sandbox.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { createMerchantAccount, issueReceipt, receiptBody } from '../cash-receipts/helpers.ts';
import { createSupplierAccount, issue } from '../tax-invoices/helpers.ts';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
});
afterAll(async () => {
  await app?.close();
});

type Entry = {
  id: string; kind: string; points: number; balanceAfter: number; operation: string | null;
  requestId: string | null; documentId: string | null; memo: string | null; createdAt: string;
  reservation: null | { id: string; status: string; reserved: number; captured: number | null;
    createdAt: string; settledAt: string | null };
};
type Page = { ledgerEntries: Entry[]; hasMore: boolean; nextCursor: string | null };

function ledger(key: string, query = '') {
  return app.server.inject({ method: 'GET', url: `/v1/points/ledger${query}`,
    headers: { authorization: basicAuth(key) } });
}

async function page(key: string, query = ''): Promise<Page> {
  const response = await ledger(key, query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Page;
}

async function grant(accountId: string, points: number, environment: 'test' | 'live' = 'test',
  memo?: string) {
  await app.platform.points.grant({ accountId, environment, points, memo });
}

const ENTRY_KEYS = ['balanceAfter', 'createdAt', 'documentId', 'id', 'kind', 'memo', 'operation',
  'points', 'requestId', 'reservation'];

describe('GET /v1/points/ledger', () => {
  it('lists the sign-up grant of a new account, with every field', async () => {
    const account = await app.createAccount();
    const body = await page(account.keys.test);
    expect(body.hasMore).toBe(false);
    expect(body.nextCursor).toBeNull();
    expect(body.ledgerEntries).toHaveLength(1);
    const [entry] = body.ledgerEntries;
    expect(Object.keys(entry!).sort()).toEqual(ENTRY_KEYS);
    expect(entry).toMatchObject({ kind: 'GRANT', points: 1_000_000, balanceAfter: 1_000_000,
      operation: null, requestId: null, documentId: null, reservation: null });
    expect(entry!.id).toMatch(/^led_/);
    expect(Date.parse(entry!.createdAt)).not.toBeNaN();
  });

  it('names the request of a charge made by an API call', async () => {
    const account = await app.createAccount();
    const retrieved = await app.server.inject({ method: 'GET',
      url: `/v1/businessProfiles/${NUMBERS.corporation}`,
      headers: { authorization: basicAuth(account.keys.test) } });
    expect(retrieved.statusCode, retrieved.body).toBe(200);
    const { ledgerEntries } = await page(account.keys.test, '?kind=CHARGE');
    expect(ledgerEntries).toHaveLength(1);
    expect(ledgerEntries[0]).toMatchObject({ kind: 'CHARGE', points: -90, balanceAfter: 999_910,
      operation: 'businesses.profiles.retrieve', requestId: retrieved.headers['trace-id'],
      documentId: null, reservation: null, memo: null });
  });

  it('gives a capture its reservation and the request that reserved', async () => {
    const account = await app.createAccount();
    const requestId = 'a'.repeat(32);
    const reservation = await runInRequest(requestId, () => app.platform.points.reserve({
      accountId: account.accountId, environment: 'test', operation: 'bank.holders.inquire',
      points: 100 }));
    await app.platform.points.capture({ reservation, chargePoints: 50 });
    const [capture] = (await page(account.keys.test, '?kind=CAPTURE')).ledgerEntries;
    expect(capture).toMatchObject({ kind: 'CAPTURE', points: -50, balanceAfter: 999_950,
      operation: 'bank.holders.inquire', requestId, documentId: null, memo: null });
    expect(capture!.reservation).toMatchObject({ id: reservation.reservationId,
      status: 'CAPTURED', reserved: 100, captured: 50 });
    expect(Date.parse(capture!.reservation!.settledAt!)).not.toBeNaN();
  });

  it('names the request and the document of a charge debited with its work', async () => {
    const merchant = await createMerchantAccount(app, 'Ledger merchant');
    const issued = await issueReceipt(app, merchant.key, merchant.supplierKey, receiptBody());
    expect(issued.statusCode, issued.body).toBe(202);
    const { issuanceKey } = issued.json() as { issuanceKey: string };
    const body = await page(merchant.key, '?operation=cashReceipts.issue');
    expect(body.ledgerEntries).toHaveLength(1);
    expect(body.ledgerEntries[0]).toMatchObject({ kind: 'CHARGE', points: -10,
      operation: 'cashReceipts.issue', requestId: issued.headers['trace-id'],
      documentId: issuanceKey, reservation: null, memo: null });
  });

  it('names the request and the document of a tax invoice debited with its documents',
    async () => {
      const supplier = await createSupplierAccount(app, 'Ledger supplier');
      const issued = await issue(app, supplier.key, supplier.supplier.supplierKey);
      expect(issued.statusCode, issued.body).toBe(200);
      const { issuanceKey } = issued.json() as { issuanceKey: string };
      const body = await page(supplier.key, '?operation=taxInvoices.issue');
      expect(body.ledgerEntries).toHaveLength(1);
      expect(body.ledgerEntries[0]).toMatchObject({ kind: 'CHARGE', points: -100,
        operation: 'taxInvoices.issue', requestId: issued.headers['trace-id'],
        documentId: issuanceKey, reservation: null, memo: null });
    });

  it('filters by kind, price row and Seoul dates', async () => {
    const account = await app.createAccount();
    await grant(account.accountId, 5, 'test', 'extra');
    const reservation = await app.platform.points.reserve({ accountId: account.accountId,
      environment: 'test', operation: 'bank.holders.inquire', points: 50 });
    await app.platform.points.capture({ reservation, chargePoints: 50 });
    const key = account.keys.test;
    expect((await page(key, '?kind=GRANT')).ledgerEntries.map((entry) => entry.points))
      .toEqual([5, 1_000_000]);
    expect((await page(key, '?kind=CAPTURE')).ledgerEntries.map((entry) => entry.points))
      .toEqual([-50]);
    expect((await page(key, '?operation=bank.holders.inquire')).ledgerEntries).toHaveLength(1);
    expect((await page(key, '?operation=businesses.profiles.retrieve')).ledgerEntries)
      .toEqual([]);
    const today = seoulDate(new Date());
    const tomorrow = seoulDate(new Date(Date.now() + 86_400_000));
    const yesterday = seoulDate(new Date(Date.now() - 86_400_000));
    expect((await page(key, `?createdDateFrom=${today}&createdDateTo=${today}`)).ledgerEntries)
      .toHaveLength(3);
    expect((await page(key, `?createdDateFrom=${tomorrow}`)).ledgerEntries).toEqual([]);
    expect((await page(key, `?createdDateTo=${yesterday}`)).ledgerEntries).toEqual([]);
    expect((await page(key, `?kind=GRANT&createdDateFrom=${today}`)).ledgerEntries)
      .toHaveLength(2);
  });

  it('pages newest first without gaps or repeats, hasMore false on the last page', async () => {
    const account = await app.createAccount();
    for (let index = 1; index <= 6; index += 1) await grant(account.accountId, index);
    const key = account.keys.test;
    const all = (await page(key, '?limit=100')).ledgerEntries;
    // Grants made within one clock tick share a time and are ordered by id.
    expect(all.map((entry) => entry.points).sort((a, b) => a - b))
      .toEqual([1, 2, 3, 4, 5, 6, 1_000_000]);
    expect(all.at(-1)!.points).toBe(1_000_000);
    const times = all.map((entry) => Date.parse(entry.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`;
      const body: Page = await page(key, query);
      seen.push(...body.ledgerEntries.map((entry) => entry.id));
      expect(body.hasMore).toBe(body.nextCursor !== null);
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(all.map((entry) => entry.id));
  });

  it('keeps entries made in the same millisecond on their pages', async () => {
    const account = await app.createAccount();
    await Promise.all([1, 2, 3, 4].map((points) => grant(account.accountId, points)));
    const key = account.keys.test;
    const all = (await page(key, '?limit=100')).ledgerEntries.map((entry) => entry.id);
    const first = await page(key, '?limit=1');
    const rest = await page(key, `?limit=100&cursor=${first.nextCursor}`);
    expect([...first.ledgerEntries, ...rest.ledgerEntries].map((entry) => entry.id))
      .toEqual(all);
  });

  it('never shows another account\'s entries: its cursor is refused with 400', async () => {
    const owner = await app.createAccount();
    const other = await app.createAccount();
    for (let index = 1; index <= 3; index += 1) await grant(owner.accountId, index);
    const ownerPage = await page(owner.keys.test, '?limit=1');
    expect(ownerPage.nextCursor).not.toBeNull();
    for (const key of [other.keys.test, owner.keys.live]) {
      expectError(await ledger(key, `?cursor=${ownerPage.nextCursor}`), 400, 'INVALID_REQUEST',
        /cursor/);
    }
    expect((await page(other.keys.test)).ledgerEntries.map((entry) => entry.points))
      .toEqual([1_000_000]);
  });

  it('keeps the test and live ledgers apart', async () => {
    const account = await app.createAccount();
    await grant(account.accountId, 700, 'live', 'live top-up');
    const live = await page(account.keys.live);
    expect(live.ledgerEntries.map((entry) => [entry.points, entry.memo]))
      .toEqual([[700, 'live top-up']]);
    const test = await page(account.keys.test);
    expect(test.ledgerEntries.map((entry) => entry.points)).toEqual([1_000_000]);
  });

  it('refuses filters it does not know with 400 INVALID_REQUEST', async () => {
    const account = await app.createAccount();
    const key = account.keys.test;
    for (const query of ['?kind=bogus', '?kind=grant', '?kind=', '?operation=points.retrieve',
      '?operation=%3Cscript%3E', '?createdDateFrom=2026-13-01', '?createdDateTo=yesterday',
      '?createdDateFrom=2026-02-30', '?createdDateFrom=2026-11-02&createdDateTo=2026-11-01',
      '?limit=0', '?limit=101', '?limit=ten', '?sort=asc', `?cursor=${'a'.repeat(401)}`]) {
      expectError(await ledger(key, query), 400, 'INVALID_REQUEST');
    }
  });

  it('refuses a cursor it did not write with 400 INVALID_REQUEST', async () => {
    const account = await app.createAccount();
    for (let index = 1; index <= 2; index += 1) await grant(account.accountId, index);
    const key = account.keys.test;
    const { nextCursor } = await page(key, '?limit=1');
    expect(nextCursor).not.toBeNull();
    // Cursors sealed as the server seals them, for the same list and caller, holding what the
    // server would never write.
    const at = { list: 'points.ledger',
      scope: { accountId: account.accountId, environment: 'test' as const } };
    const anything = (value: unknown): value is string => typeof value === 'string';
    const [position, id] = app.cursors.decode<[string, string]>(at, nextCursor!,
      [anything, anything]);
    const encodeCursor = (tuple: unknown) => app.cursors.encode(at, tuple as unknown[]);
    const tampered = [
      'not-a-cursor', `${nextCursor!}!`, encodeCursor([position]),
      encodeCursor([position, id, 1]), encodeCursor([id, position]),
      encodeCursor(['2026-02-30T00:00:00.000000Z', id]),
      encodeCursor(['2026-11-27T24:00:00.000000Z', id]),
      encodeCursor([position.replace('Z', '+09:00'), id]),
      encodeCursor([position, 'rsv_abc']), encodeCursor([position, "led_x' or 1=1 --"]),
      encodeCursor([Date.parse(position), id]), encodeCursor({ position, id } as never),
      Buffer.from('[').toString('base64url'),
    ];
    for (const cursor of tampered) {
      expectError(await ledger(key, `?cursor=${encodeURIComponent(cursor)}`), 400,
        'INVALID_REQUEST', /cursor/);
    }
  });

  it('answers 401 without a key and charges nothing', async () => {
    const response = await app.server.inject({ method: 'GET', url: '/v1/points/ledger' });
    expect(response.statusCode).toBe(401);
    const account = await app.createAccount();
    await page(account.keys.test);
    expect(await app.platform.points.getBalance({ accountId: account.accountId,
      environment: 'test' })).toEqual({ balance: 1_000_000, reserved: 0, available: 1_000_000 });
  });
});
