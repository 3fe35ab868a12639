import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  createSupplierAccount,
  invoiceBody,
  issue,
  waitForStatus,
} from '../api/tax-invoices/helpers.ts';
import { createUser, signIn } from './helpers.ts';

// Home's recent failures: the session's environment's failed tax invoices, newest first, from
// the tax-invoices area's service; nothing of another account or environment.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' } });
});
afterAll(async () => {
  await app?.close();
});

// The sandbox tax authority refuses this recipient (docs/sandbox.md).
const REFUSED_RECIPIENT = '9900000000001';

describe('home\'s usage', () => {
  it('counts settled days (kept after the first read) and today\'s entries, read each time',
    async () => {
      const { accountId } = await app.createFundedAccount(10_000);
      const { db } = app.platform.database;
      await db.execute(sql`insert into point_ledger_entries (id, account_id, environment, kind,
        amount_points, balance_after_points, memo, created_at)
        values ('ple_old_' || ${accountId}, ${accountId}, 'test', 'charge', -7, 100,
          'lookups.settledDay', now() - interval '5 days')`);
      const owner = await createUser(app, accountId, 'viewer');
      const browser = await signIn(app, owner.email);
      const first = (await browser.get('/dashboard')).body;
      expect(first).toContain('lookups.settledDay');
      await app.platform.points.debit({ accountId, environment: 'test',
        operation: 'cashReceipts.issue', points: 10, requiredPoints: 10 });
      const second = (await browser.get('/dashboard')).body;
      expect(second).toContain('lookups.settledDay');
      expect(second).toContain('cashReceipts.issue');
    });
});

describe('home\'s recent failures', () => {
  it('lists failed tax invoices newest first, with why they failed', async () => {
    const { key, accountId, supplier } = await createSupplierAccount(app);
    const keys: string[] = [];
    for (let index = 0; index < 2; index += 1) {
      const body = invoiceBody();
      body.supplied.identificationNumber = REFUSED_RECIPIENT;
      const { issuanceKey } = (await issue(app, key, supplier.supplierKey, body)).json() as
        { issuanceKey: string };
      keys.push(issuanceKey);
      expect((await waitForStatus(app, key, issuanceKey, ['FAILED'])).status).toBe('FAILED');
    }
    const failures = await app.taxInvoices.service.recentFailures(
      { scope: { accountId, environment: 'test' }, limit: 5 });
    expect(failures.map((invoice) => invoice.issuanceKey)).toEqual([...keys].reverse());
    const owner = await createUser(app, accountId, 'viewer');
    const browser = await signIn(app, owner.email);
    const home = (await browser.get('/dashboard')).body;
    expect(home).toContain('실패한 세금계산서');
    const [newer, older] = [home.indexOf(keys[1]!), home.indexOf(keys[0]!)];
    expect(newer).toBeGreaterThan(0);
    expect(older).toBeGreaterThan(newer);
    expect(home).toContain(`${failures[0]!.failure!.code}:`);
    await browser.post('/dashboard/environment', { environment: 'live', return: '/dashboard' });
    expect((await browser.get('/dashboard')).body).not.toContain(keys[0]!);
    const stranger = await createSupplierAccount(app, 'Another');
    const strangerUser = await createUser(app, stranger.accountId, 'owner');
    expect((await (await signIn(app, strangerUser.email)).get('/dashboard')).body)
      .not.toContain(keys[0]!);
  });
});
