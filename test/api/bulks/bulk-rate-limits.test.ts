// A bulk's items count against the single issue's rate limit (docs/limits.md): each item is one
// call of taxInvoices.issue (or cashReceipts.issue), so bulks never get round that limit; a bulk
// the rest of the window cannot cover is refused whole with 429, accepts and charges nothing,
// and leaves the rest of the window to the single operation. A bulk sent again answers its
// first sending without counting its items again, however the window stands.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { receiptBody } from '../cash-receipts/helpers.ts';
import {
  createSupplierAccount,
  invoiceBody,
  issue,
  request,
} from '../tax-invoices/helpers.ts';

const LIMIT = 5;
const RATE_LIMIT_OVERRIDES = JSON.stringify({
  'taxInvoices.issue': { limit: LIMIT, windowSeconds: 600 },
  'cashReceipts.issue': { limit: LIMIT, windowSeconds: 600 },
});

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { RATE_LIMIT_OVERRIDES } });
});
afterAll(async () => {
  await app?.close();
});

const reference = (prefix = 'bulk') => `${prefix}-${randomUUID()}`;

function bulkIssue(key: string, resource: 'taxInvoices' | 'cashReceipts', items: unknown[],
  bulkReference = reference()) {
  return app.server.inject(request(key, 'POST', `/v1/${resource}:bulkIssue`,
    { body: { items }, headers: { 'service-client-reference-id': bulkReference } }));
}

async function bulkCount(accountId: string): Promise<number> {
  const result = await app.platform.database.pool.query(
    'select count(*)::int as count from bulks where account_id = $1', [accountId]);
  return result.rows[0].count as number;
}

const balanceOf = async (accountId: string) =>
  (await app.platform.points.getBalance({ accountId, environment: 'test' })).balance;

describe('bulk items and the single issue\'s rate limit', () => {
  it('counts each item as a call of the single issue, and refuses a bulk the rest of the ' +
    'window cannot cover whole, giving its items back', async () => {
    const account = await createSupplierAccount(app, 'Limited bulks');
    const supplierKey = account.supplier.supplierKey;
    const invoice = () => ({ clientReferenceId: reference('doc'), supplierKey,
      document: invoiceBody() });
    const first = await bulkIssue(account.key, 'taxInvoices', [invoice(), invoice(), invoice()]);
    expect(first.statusCode, first.body).toBe(202);
    // 3 of 5 spent by the bulk: one single issue fits, then a bulk of 2 does not.
    expect((await issue(app, account.key, supplierKey)).statusCode).toBe(200);
    const balance = await balanceOf(account.accountId);
    const bulks = await bulkCount(account.accountId);
    const over = await bulkIssue(account.key, 'taxInvoices', [invoice(), invoice()]);
    expect(over.statusCode, over.body).toBe(429);
    expect(over.json()).toMatchObject({ code: 'RATE_LIMITED', message: expect.any(String),
      traceId: expect.any(String) });
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(over.headers['ratelimit-policy']).toBe(`"taxInvoices.issue";q=${LIMIT};w=600`);
    expect(over.headers.ratelimit).toMatch(/^"taxInvoices\.issue";r=1;t=\d+$/);
    expect(await balanceOf(account.accountId)).toBe(balance);
    expect(await bulkCount(account.accountId)).toBe(bulks);
    // The refused bulk took nothing: the last call of the window is still there, once.
    expect((await issue(app, account.key, supplierKey)).statusCode).toBe(200);
    const spent = await issue(app, account.key, supplierKey);
    expect(spent.statusCode).toBe(429);
    expect(spent.json().code).toBe('RATE_LIMITED');
    const none = await bulkIssue(account.key, 'taxInvoices', [invoice()]);
    expect(none.statusCode).toBe(429);
  });

  it('lets no single issue past a window that bulks spent, and keeps keys and areas apart',
    async () => {
    const account = await createSupplierAccount(app, 'Spent by bulks');
    const supplierKey = account.supplier.supplierKey;
    const receipt = () => ({ clientReferenceId: reference('receipt'), supplierKey,
      document: receiptBody() });
    const spent = await bulkIssue(account.key, 'cashReceipts',
      Array.from({ length: LIMIT }, receipt));
    expect(spent.statusCode, spent.body).toBe(202);
    const single = await app.server.inject(request(account.key, 'POST', '/v1/cashReceipts/issue',
      { body: receiptBody(), headers: { 'supplier-key': supplierKey,
        'service-client-reference-id': reference('receipt') } }));
    expect(single.statusCode).toBe(429);
    // A bulk larger than the whole window is refused too, never accepted in part.
    const other = await createSupplierAccount(app, 'Too large a bulk');
    const tooLarge = await bulkIssue(other.key, 'cashReceipts', Array.from({ length: LIMIT + 1 },
      () => ({ clientReferenceId: reference('receipt'),
        supplierKey: other.supplier.supplierKey, document: receiptBody() })));
    expect(tooLarge.statusCode).toBe(429);
    expect(await bulkCount(other.accountId)).toBe(0);
    // The tax invoices' limit is its own.
    expect((await issue(app, account.key, supplierKey)).statusCode).toBe(200);
  });
});

describe('a bulk sent again and the single issue\'s rate limit', () => {
  // A new account, its supplier key and a bulk's worth of its tax invoices.
  async function accountWithInvoices(name: string, count: number) {
    const account = await createSupplierAccount(app, name);
    const supplierKey = account.supplier.supplierKey;
    return { account, supplierKey, items: Array.from({ length: count }, () =>
      ({ clientReferenceId: reference('doc'), supplierKey, document: invoiceBody() })) };
  }

  it('answers a bulk sent again with 202 and its first answer at the edge of the window, ' +
    'counting none of its items again', async () => {
    const { account, supplierKey, items } = await accountWithInvoices('Bulk sent again', 3);
    const bulkReference = reference();
    const first = await bulkIssue(account.key, 'taxInvoices', items, bulkReference);
    expect(first.statusCode, first.body).toBe(202);
    // 4 of 5 spent: the rest of the window could not cover the bulk's 3 items again.
    expect((await issue(app, account.key, supplierKey)).statusCode).toBe(200);
    const balance = await balanceOf(account.accountId);
    const again = await bulkIssue(account.key, 'taxInvoices', items, bulkReference);
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['ratelimit-policy']).toMatch(/^"taxInvoices\.bulkIssue";/);
    expect(await balanceOf(account.accountId)).toBe(balance);
    expect(await bulkCount(account.accountId)).toBe(1);
    // The bulk sent again took nothing: the last call of the window is still there, once.
    expect((await issue(app, account.key, supplierKey)).statusCode).toBe(200);
    expect((await issue(app, account.key, supplierKey)).statusCode).toBe(429);
    const stillAgain = await bulkIssue(account.key, 'taxInvoices', items, bulkReference);
    expect(stillAgain.statusCode, stillAgain.body).toBe(202);
    expect(stillAgain.json().bulkId).toBe(first.json().bulkId);
  });

  it('answers 409 IDEMPOTENCY_CONFLICT, not 429, for other items under a taken bulk ' +
    'reference id once the window is spent', async () => {
    const account = await createSupplierAccount(app, 'Bulk reference reused');
    const bulkReference = reference();
    const receipt = () => ({ clientReferenceId: reference('receipt'),
      supplierKey: account.supplier.supplierKey, document: receiptBody() });
    const first = await bulkIssue(account.key, 'cashReceipts',
      Array.from({ length: LIMIT }, receipt), bulkReference);
    expect(first.statusCode, first.body).toBe(202);
    const other = await bulkIssue(account.key, 'cashReceipts', [receipt()], bulkReference);
    expect(other.statusCode, other.body).toBe(409);
    expect(other.json().code).toBe('IDEMPOTENCY_CONFLICT');
    // A new bulk reference id is a new bulk, counted as ever.
    const fresh = await bulkIssue(account.key, 'cashReceipts', [receipt()]);
    expect(fresh.statusCode).toBe(429);
  });

  it('counts a bulk sent several times at the same moment once, whichever request made it',
    async () => {
    const { account, supplierKey, items } = await accountWithInvoices('Bulk sent at once', 2);
    const bulkReference = reference();
    const answers = await Promise.all([1, 2].map(() =>
      bulkIssue(account.key, 'taxInvoices', items, bulkReference)));
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(202);
    expect(new Set(answers.map((answer) => answer.json().bulkId)).size).toBe(1);
    expect(await bulkCount(account.accountId)).toBe(1);
    // 2 of 5 spent by the one bulk: 3 single issues fit, the fourth does not.
    for (let call = 0; call < LIMIT - items.length; call += 1) {
      expect((await issue(app, account.key, supplierKey)).statusCode).toBe(200);
    }
    expect((await issue(app, account.key, supplierKey)).statusCode).toBe(429);
  });
});
