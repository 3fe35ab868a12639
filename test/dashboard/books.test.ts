import { sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { pollUntil } from '../helpers/poll.ts';
import { registerSupplier } from '../api/tax-invoices/helpers.ts';
import { connectHometax, monthsAgo } from '../api/revenue-expenses/helpers.ts';
import { connectBankAccount, syncAndWait } from '../api/bank-transactions/helpers.ts';
import { createUser, signIn } from './helpers.ts';

// The books and bank transactions pages: the monthly figures and the invoices behind them, the
// collections, the bank accounts with their monthly flows and transactions, CSV and Excel; all
// read through the areas' services behind the same plan gate; roles, CSRF, test/live, other
// accounts.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { AUTH_CACHE_TTL_MS: '0' } });
});
afterAll(async () => {
  await app?.close();
});

const OWN_NUMBER = '1234567891';

// An account whose own issuer's tax portal is connected, with a signed-in user of `role`.
async function booksAccount(role: Role = 'owner', plan: 'FREE' | 'STANDARD' = 'STANDARD') {
  const account = await app.createAccount({ plan });
  const user = await createUser(app, account.accountId, role);
  return { ...account, browser: await signIn(app, user.email) };
}

async function connectOwnPortal(key: string) {
  await registerSupplier(app, key, { identificationNumber: OWN_NUMBER, certificate: false });
  return connectHometax(app, key, OWN_NUMBER);
}

// Waits until the account's latest collection ended, and expects it succeeded.
async function collectionEnded(accountId: string) {
  const [latest] = await pollUntil(() => app.revenueExpenses.service.listCollections(
    { accountId, environment: 'test' }, 1), (rows) => rows[0]?.state === 'SUCCEEDED' ||
    rows[0]?.state === 'FAILED');
  expect(latest?.state, JSON.stringify(latest)).toBe('SUCCEEDED');
  return latest!;
}

describe('books page', () => {
  it('collects through the form and shows the months, the invoices behind a figure and the ' +
    'exports', async () => {
    const { browser, accountId, keys } = await booksAccount('issuer');
    await connectOwnPortal(keys.test);
    const month = monthsAgo(1);
    await browser.get('/dashboard/books');
    const requested = await browser.post('/dashboard/books/collect', { from: month, to: month });
    expect(requested.statusCode, requested.body).toBe(303);
    expect(requested.headers.location).toBe('/dashboard/books?notice=books.collectionQueued');
    await collectionEnded(accountId);
    const year = month.slice(0, 4);
    const page = await browser.get(`/dashboard/books?year=${year}`);
    expect(page.statusCode).toBe(200);
    const totals = await app.revenueExpenses.service.monthlyTotals(
      { accountId, environment: 'test' }, { from: month, to: month });
    const sales = totals[0]!.sales;
    expect(sales.count + totals[0]!.purchases.count).toBeGreaterThan(0);
    // The page shows the service's figures, and links the count to the invoices behind it.
    const direction = sales.count > 0 ? 'SALES' : 'PURCHASE';
    const figures = sales.count > 0 ? sales : totals[0]!.purchases;
    expect(page.body).toContain(`${figures.supplyCost.toLocaleString('ko-KR')}원`);
    expect(page.body).toContain(
      `/dashboard/books/entries?month=${month}&amp;direction=${direction}`);
    expect(page.body).toContain('완료');
    const entries = await browser.get(
      `/dashboard/books/entries?month=${month}&direction=${direction}`);
    expect(entries.statusCode).toBe(200);
    const rows = entries.body.match(/data-label="승인번호"/g) ?? [];
    expect(rows.length).toBe(Math.min(figures.count, 100));
    const csv = await browser.get(`/dashboard/books.csv?year=${year}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain(`${month},`);
    const xlsx = await browser.get(`/dashboard/books.xlsx?year=${year}`);
    expect(xlsx.statusCode).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const months = book.getWorksheet('Months')!;
    const index = Number(month.slice(5, 7)) + 1;
    expect(months.getRow(index).getCell(1).value).toBe(month);
    const year12 = await app.revenueExpenses.service.monthlyTotals(
      { accountId, environment: 'test' }, { from: `${year}-01`, to: `${year}-12` });
    expect(book.getWorksheet('Entries')!.rowCount - 1).toBe(year12.reduce((all, row) =>
      all + row.sales.count + row.purchases.count, 0));
  });

  it('shows what a plan below Standard needs instead of the books', async () => {
    const { browser } = await booksAccount('owner', 'FREE');
    for (const path of ['/dashboard/books',
      '/dashboard/books/entries?month=2025-01&direction=SALES', '/dashboard/bank-transactions']) {
      const page = await browser.get(path);
      expect(page.statusCode, path).toBe(403);
      expect(page.body).toContain('STANDARD');
      expect(page.body).toContain('/dashboard/plan');
    }
    const refused = await browser.post('/dashboard/books/collect',
      { from: monthsAgo(0), to: monthsAgo(0) });
    expect(refused.statusCode).toBe(403);
  });

  it('refuses a Viewer\'s collection, a request without CSRF, and bad months', async () => {
    const viewer = await booksAccount('viewer');
    expect((await viewer.browser.get('/dashboard/books')).statusCode).toBe(200);
    expect((await viewer.browser.post('/dashboard/books/collect',
      { from: monthsAgo(0), to: monthsAgo(0) })).statusCode).toBe(403);
    const owner = await booksAccount('owner');
    await owner.browser.get('/dashboard/books');
    expect((await owner.browser.post('/dashboard/books/collect',
      { from: monthsAgo(0), to: monthsAgo(0), _csrf: 'x' })).statusCode).toBe(403);
    // No connection: the service's refusal, shown on the page.
    const unconnected = await owner.browser.post('/dashboard/books/collect',
      { from: monthsAgo(0), to: monthsAgo(0) });
    expect(unconnected.statusCode).toBe(409);
    expect(unconnected.body).toContain('CONNECTION_REQUIRED');
    for (const path of ['/dashboard/books?year=abc', '/dashboard/books?year=<script>',
      '/dashboard/books/entries?month=2025-13&direction=SALES',
      '/dashboard/books/entries?month=2025-01&direction=BOTH',
      '/dashboard/books/entries?month=2025-01&direction=SALES&cursor=AAAA']) {
      expect((await owner.browser.get(path)).statusCode, path).toBe(400);
    }
  });

  it('keeps one account\'s books from another and test from live', async () => {
    const owner = await booksAccount('owner');
    await connectOwnPortal(owner.keys.test);
    const month = monthsAgo(1);
    await owner.browser.get('/dashboard/books');
    await owner.browser.post('/dashboard/books/collect', { from: month, to: month });
    await collectionEnded(owner.accountId);
    const other = await booksAccount('owner');
    const year = month.slice(0, 4);
    const mine = await owner.browser.get(`/dashboard/books?year=${year}`);
    const theirs = await other.browser.get(`/dashboard/books?year=${year}`);
    expect(mine.body).toContain('/dashboard/books/entries?');
    expect(theirs.body).not.toContain('/dashboard/books/entries?');
    expect(theirs.body).toContain('수집 요청이 없습니다');
    await owner.browser.post('/dashboard/environment', { environment: 'live',
      return: '/dashboard/books' });
    expect((await owner.browser.get(`/dashboard/books?year=${year}`)).body)
      .not.toContain('/dashboard/books/entries?');
  });
});

describe('books page escaping', () => {
  it('shows a counterpart\'s hostile name as text', async () => {
    const hostile = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
    const owner = await booksAccount('owner');
    await app.platform.database.db.execute(sql`insert into revenue_expense_invoices
      (account_id, environment, direction, source, approval_number, write_date, issue_date,
       counterpart_number, counterpart_name, supply_cost, tax, total_amount, tax_type, status,
       late, content_hash, change_sequence, changed_at)
      values (${owner.accountId}, 'test', 'SALES', 'COLLECTED', '20250101-10000000-00000001',
       '2025-01-15', '2025-01-15', '1234567891', ${hostile}, 1000, 100, 1100, 'TAXABLE',
       'ISSUED', false, 'x', 1, now())`);
    const page = await owner.browser.get('/dashboard/books/entries?month=2025-01&direction=SALES');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).toContain('&lt;script>alert(1)&lt;/script>');
    const csv = await owner.browser.get('/dashboard/books.csv?year=2025');
    expect(csv.body).toContain('2025-01,1,1000,100,1100,0,0,0,0');
  });
});

describe('bank transactions page', () => {
  it('syncs an account and shows its monthly flows, transactions and exports', async () => {
    const { browser, keys, accountId } = await booksAccount('developer');
    const account = await connectBankAccount(app, keys.test, '004', '110-123-456789');
    const list = await browser.get('/dashboard/bank-transactions');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(account.bankAccountId);
    const sync = await browser.post(`/dashboard/bank-transactions/${account.bankAccountId}/sync`,
      {});
    expect(sync.statusCode, sync.body).toBe(303);
    await pollUntil(() => app.bankTransactions.service.listAccounts(
      { accountId, environment: 'test' }, { limit: 100 }),
    (seen) => seen.items[0]?.lastSyncedAt !== null);
    const month = new Date().toLocaleDateString('sv-SE', { timeZone: 'Asia/Seoul' }).slice(0, 7);
    const page = await browser.get(`/dashboard/bank-transactions/${account.bankAccountId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`${month} 거래내역`);
    expect(page.body).toMatch(/id="flows"/);
    const csv = await browser.get(
      `/dashboard/bank-transactions/${account.bankAccountId}/export.csv?month=${month}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.body.startsWith('\uFEFFbookedAt,direction,amount')).toBe(true);
    const xlsx = await browser.get(
      `/dashboard/bank-transactions/${account.bankAccountId}/export.xlsx?month=${month}`);
    expect(xlsx.statusCode).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    expect(book.getWorksheet(month)!.getRow(1).getCell(1).value).toBe('bookedAt');
    expect(book.getWorksheet(month)!.rowCount).toBe(csv.body.trim().split('\r\n').length);
  });

  it('answers 404 for another account\'s bank account and refuses a Viewer\'s sync',
    async () => {
      const owner = await booksAccount('owner');
      const account = await connectBankAccount(app, owner.keys.test, '004', '110123456780');
      await syncAndWait(app, owner.keys.test, account.bankAccountId);
      // A counterparty's and a memo's hostile text, as a bank could send them, show as text.
      const hostile = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
      await app.platform.database.db.execute(sql`insert into bank_transactions (id,
        bank_account_id, account_id, environment, booked_date, sequence, direction, amount,
        counterparty_name, memo, content_hash, changed_at)
        values ('btx_hostile_' || ${account.bankAccountId}, ${account.bankAccountId},
          ${owner.accountId}, 'test', '2025-03-03', 1, 'DEPOSIT', 1000, ${hostile}, ${hostile},
          'x', now())`);
      const shown = await owner.browser.get(
        `/dashboard/bank-transactions/${account.bankAccountId}?month=2025-03`);
      expect(shown.statusCode).toBe(200);
      expect(shown.body).not.toContain('<script>alert(1)');
      expect(shown.body).not.toContain('<img src=x');
      expect(shown.body).toContain('&lt;script>alert(1)&lt;/script>');
      const other = await booksAccount('owner');
      for (const path of [`/dashboard/bank-transactions/${account.bankAccountId}`,
        `/dashboard/bank-transactions/${account.bankAccountId}/export.csv`,
        '/dashboard/bank-transactions/not-an-id']) {
        expect((await other.browser.get(path)).statusCode, path).toBe(404);
      }
      expect((await other.browser.get('/dashboard/bank-transactions')).body)
        .not.toContain(account.bankAccountId);
      await other.browser.get('/dashboard/bank-transactions');
      expect((await other.browser.post(
        `/dashboard/bank-transactions/${account.bankAccountId}/sync`, {})).statusCode).toBe(404);
      const viewer = await createUser(app, owner.accountId, 'viewer');
      const viewing = await signIn(app, viewer.email);
      expect((await viewing.get(`/dashboard/bank-transactions/${account.bankAccountId}`))
        .statusCode).toBe(200);
      expect((await viewing.post(`/dashboard/bank-transactions/${account.bankAccountId}/sync`,
        {})).statusCode).toBe(403);
      await owner.browser.post('/dashboard/environment', { environment: 'live',
        return: '/dashboard/bank-transactions' });
      expect((await owner.browser.get(`/dashboard/bank-transactions/${account.bankAccountId}`))
        .statusCode).toBe(404);
    });
});
