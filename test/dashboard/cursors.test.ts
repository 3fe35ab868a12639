// The dashboard's lists page by the cursors their services write (platform/cursor.ts): sealed,
// longer than any cursor written in clear, with dots between their parts. Each list is asked for
// the page after a cursor made for its own list and the session's scope, as its "next" link
// carries it, and answers 200; a cursor of another list, or text no cursor has, answers 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { signedInAccount, type Browser } from './helpers.ts';

let app: TestApp;
let owner: Browser;
let accountId: string;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
  const signed = await signedInAccount(app, 'owner');
  ({ accountId } = signed);
  owner = signed.browser;
  // The books need the Standard plan; the other lists are on every plan.
  await app.platform.accounts.changePlan(accountId, 'STANDARD');
});
afterAll(async () => {
  await app?.close();
});

const month = new Date().toLocaleDateString('sv-SE', { timeZone: 'Asia/Seoul' }).slice(0, 7);

// Each list's page and the cursor its service writes for the session's scope.
// The page's query parameter is `cursor` unless `param` says otherwise.
const LISTS: Array<{ name: string; page: string; param?: string; list: string;
  position: unknown[] }> = [
  { name: 'tax invoices', page: '/dashboard/tax-invoices?', list: 'taxInvoices.browse',
    position: [1_000_000] },
  { name: 'cash receipts', page: '/dashboard/cash-receipts?', list: 'cashReceipts.list',
    position: [1_000_000] },
  { name: 'documents', page: '/dashboard/documents?', list: 'documents.list',
    position: [1_000_000] },
  { name: 'points', page: '/dashboard/points?', param: 'before', list: 'points.ledger',
    position: ['2026-01-01T00:00:00.000000Z', 'led_x'] },
  { name: 'a month of the books', page: `/dashboard/books/entries?month=${month}&direction=SALES&`,
    list: 'revenueExpenses.monthEntries', position: [`${month}-01`, 1_000_000] },
];

describe('the dashboard\'s lists', () => {
  it.each(LISTS)('page $name by the cursor their service writes', async (entry) => {
    const cursor = app.cursors.encode({ list: entry.list,
      scope: { accountId, environment: 'test' } }, entry.position);
    expect(cursor.length).toBeGreaterThan(80);
    const page = await owner.get(`${entry.page}${entry.param ?? 'cursor'}=${cursor}`);
    expect(page.statusCode, page.body.slice(0, 300)).toBe(200);
  });

  it.each(LISTS)('refuse a cursor of another list or malformed for $name with 400',
    async (entry) => {
      const other = app.cursors.encode({ list: 'webhooks.events.list',
        scope: { accountId, environment: 'test' } }, [1]);
      for (const cursor of [other, 'not a cursor', 'x'.repeat(201)]) {
        const page = await owner.get(
          `${entry.page}${entry.param ?? 'cursor'}=${encodeURIComponent(cursor)}`);
        expect(page.statusCode, cursor).toBe(400);
      }
    });
});
