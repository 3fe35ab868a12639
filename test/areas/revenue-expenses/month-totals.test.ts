import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

// The books by month are kept by the invoices' triggers (migration 0031): whatever writes the
// invoices (one row or thousands, insert, change or delete), the month totals equal the sums of
// the invoices themselves, per scope, month and direction.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function insert(accountId: string, rows: number, firstDay: string, start = 1) {
  await app.platform.database.db.execute(sql`
    insert into revenue_expense_invoices (account_id, environment, direction, source,
      approval_number, write_date, issue_date, counterpart_number, counterpart_name,
      supply_cost, tax, total_amount, tax_type, status, late, content_hash, change_sequence,
      changed_at)
    select ${accountId}, case when n % 5 = 0 then 'live' else 'test' end,
      case when n % 3 = 0 then 'PURCHASE' else 'SALES' end, 'COLLECTED', lpad(n::text, 24, '0'),
      ${firstDay}::date + (n % 70), ${firstDay}::date + (n % 70), '2208162517', 'x',
      1000 * n, 100 * n, 1100 * n, 'TAXABLE', 'ISSUED', false, md5(n::text), n, now()
    from generate_series(${start}::int, ${start + rows - 1}::int) as n`);
}

// The sums straight from the invoices, as the month totals should hold them.
async function recounted(accountId: string, environment: 'test' | 'live') {
  const result = await app.platform.database.db.execute(sql`
    select to_char(write_date, 'YYYY-MM') as month, direction, count(*)::int as count,
      sum(supply_cost)::float8 as "supplyCost", sum(tax)::float8 as tax,
      sum(total_amount)::float8 as "totalAmount"
    from revenue_expense_invoices where account_id = ${accountId}
      and environment = ${environment} and write_date >= '2025-01-01'
      and write_date < '2026-01-01'
    group by 1, 2 order by 1, 2`);
  return ('rows' in result ? result.rows : result) as Array<Record<string, unknown>>;
}

async function kept(accountId: string, environment: 'test' | 'live') {
  const months = await app.revenueExpenses.service.monthlyTotals({ accountId, environment },
    { from: '2025-01', to: '2025-12' });
  return months.flatMap((row) => [
    { month: row.month, direction: 'PURCHASE', ...row.purchases },
    { month: row.month, direction: 'SALES', ...row.sales },
  ]).filter((row) => row.count !== 0);
}

describe('the books by month', () => {
  it('follow inserts, changes of amount, date and direction, and deletes', async () => {
    const { accountId } = await app.createAccount();
    const other = await app.createAccount();
    await insert(accountId, 500, '2025-02-10');
    await insert(other.accountId, 50, '2025-02-10');
    for (const environment of ['test', 'live'] as const) {
      expect(await kept(accountId, environment)).toEqual(await recounted(accountId, environment));
    }
    const { db } = app.platform.database;
    await db.execute(sql`update revenue_expense_invoices set supply_cost = supply_cost + 7,
      total_amount = total_amount + 7 where account_id = ${accountId} and change_sequence % 4 = 0`);
    await db.execute(sql`update revenue_expense_invoices set write_date = write_date + 40,
      direction = 'SALES' where account_id = ${accountId} and change_sequence % 7 = 0`);
    await db.execute(sql`delete from revenue_expense_invoices
      where account_id = ${accountId} and change_sequence % 11 = 0`);
    for (const environment of ['test', 'live'] as const) {
      expect(await kept(accountId, environment)).toEqual(await recounted(accountId, environment));
    }
    // Another account's books are its own.
    expect(await kept(other.accountId, 'test')).toEqual(await recounted(other.accountId, 'test'));
    expect((await kept(other.accountId, 'test')).reduce((all, row) => all + row.count, 0))
      .toBe(40);
  });

  it('refuses a range that is not months or is too long', async () => {
    const scope = { accountId: 'acc_none', environment: 'test' as const };
    await expect(app.revenueExpenses.service.monthlyTotals(scope, { from: '2025-13',
      to: '2025-12' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(app.revenueExpenses.service.monthlyTotals(scope, { from: '2020-01',
      to: '2025-12' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await app.revenueExpenses.service.monthlyTotals(scope, { from: '2025-01',
      to: '2025-02' })).toEqual([
      { month: '2025-01', sales: { count: 0, supplyCost: 0, tax: 0, totalAmount: 0 },
        purchases: { count: 0, supplyCost: 0, tax: 0, totalAmount: 0 } },
      { month: '2025-02', sales: { count: 0, supplyCost: 0, tax: 0, totalAmount: 0 },
        purchases: { count: 0, supplyCost: 0, tax: 0, totalAmount: 0 } },
    ]);
  });
});
