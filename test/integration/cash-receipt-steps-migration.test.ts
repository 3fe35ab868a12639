// Upgrading a database with cash receipts in processing to the release whose queue is a table
// of its own: every receipt still ACCEPTED or ISSUED keeps its step, due time, attempt and
// lease, decided receipts get no step, and the old queue's columns, index and function are gone.
// Method: the committed migrations up to the one before, applied from a copy of the migrations
// folder cut there; receipts written as that release wrote them; then every migration.
import { describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database.ts';
import { MIGRATIONS_DIR, useDatabaseToUpgrade } from '../helpers/migrations.ts';

const STEPS_MIGRATION = '0025_cash_receipt_steps';

const upgraded = useDatabaseToUpgrade(STEPS_MIGRATION);

type Receipt = { key: string; status: string; dueAt: string | null; attempt: number;
  leasedUntil: string | null };

const RECEIPTS: Receipt[] = [
  { key: 'cr_accepted_first', status: 'ACCEPTED', dueAt: '2026-11-25T01:00:00Z', attempt: 1,
    leasedUntil: null },
  { key: 'cr_accepted_retried', status: 'ACCEPTED', dueAt: '2026-11-25T01:02:00Z', attempt: 3,
    leasedUntil: '2026-11-25T01:03:00Z' },
  { key: 'cr_issued', status: 'ISSUED', dueAt: '2026-11-26T00:00:00Z', attempt: 2,
    leasedUntil: null },
  { key: 'cr_transmitted', status: 'TRANSMITTED', dueAt: null, attempt: 1, leasedUntil: null },
  { key: 'cr_failed', status: 'FAILED', dueAt: null, attempt: 6, leasedUntil: null },
];

async function insertAsBefore(receipt: Receipt, index: number) {
  const approved = receipt.status !== 'ACCEPTED' && receipt.status !== 'FAILED';
  await upgraded.pool.query(`insert into cash_receipts (issuance_key, account_id, environment,
      api_key_id, client_reference_id, kind, status, issuer_id, merchant_number, merchant_name,
      merchant_representative, trade_date, usage, identity_number, taxation, trade_option,
      supply_cost, tax, service_fee, total_amount, item_name, charged_points, approval_number,
      due_at, attempt_number, leased_until)
    values ($1, 'acct_migration', 'test', 'key_migration', $2, 'ISSUANCE', $3, 'iss_migration',
      '1234567891', '카페 이택스', '홍길동', '2026-11-25', 'INCOME_DEDUCTION', '01012345678',
      'TAXABLE', 'GENERAL', 1000, 100, 0, 1100, '아메리카노', 10, $4, $5, $6, $7)`,
  [receipt.key, `ref-${index}`, receipt.status, approved ? '123456789' : null, receipt.dueAt,
    receipt.attempt, receipt.leasedUntil]);
}

describe.skipIf(!usingPostgres)('the migration to cash_receipt_steps (PostgreSQL)', () => {
  it('keeps the step of every receipt in processing and drops the old queue', async () => {
    await upgraded.migrate(upgraded.earlierDir);
    for (const [index, receipt] of RECEIPTS.entries()) await insertAsBefore(receipt, index);
    await upgraded.migrate(MIGRATIONS_DIR);
    const { rows: steps } = await upgraded.pool.query(`select issuance_key, step,
      to_char(due_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as due_at,
      attempt_number,
      to_char(leased_until at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as leased_until
      from cash_receipt_steps order by issuance_key`);
    expect(steps).toEqual([
      { issuance_key: 'cr_accepted_first', step: 'APPROVAL', due_at: '2026-11-25T01:00:00Z',
        attempt_number: 1, leased_until: null },
      { issuance_key: 'cr_accepted_retried', step: 'APPROVAL',
        due_at: '2026-11-25T01:02:00Z', attempt_number: 3,
        leased_until: '2026-11-25T01:03:00Z' },
      { issuance_key: 'cr_issued', step: 'TRANSMISSION', due_at: '2026-11-26T00:00:00Z',
        attempt_number: 2, leased_until: null },
    ]);
    const { rows: [gone] } = await upgraded.pool.query(`select
      (select count(*)::int from information_schema.columns where table_name = 'cash_receipts'
        and column_name in ('due_at', 'attempt_number', 'leased_until')) as columns,
      to_regclass('cash_receipts_due_idx') is null as index_dropped,
      (select count(*)::int from pg_proc where proname = 'cash_receipts_lease_due') as functions`);
    expect(gone).toEqual({ columns: 0, index_dropped: true, functions: 0 });
    const { rows: statuses } = await upgraded.pool.query(`select status, count(*)::int as count
      from cash_receipts group by status order by status`);
    expect(statuses).toEqual([{ status: 'ACCEPTED', count: 2 }, { status: 'FAILED', count: 1 },
      { status: 'ISSUED', count: 1 }, { status: 'TRANSMITTED', count: 1 }]);
  }, 60_000);
});
