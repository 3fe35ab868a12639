// The lease of cash receipt steps (cash_receipt_steps_lease) reads a queue that fills after it
// was empty in proportion to the steps it takes, not to the square of the queue, and the
// worker's batch statements that approve and transmit receipts keep no plan from when it was
// empty. A connection whose first leases found the queue empty, with statistics that said so,
// used to keep a plan that ran the locking subquery again for every row of the queue: a burst
// of a few thousand receipts then took minutes of CPU per lease, leased far more steps than
// asked for, and every worker stalled behind it.
// Method: one session analyzes the empty queue and leases from it ten times (enough for a cached
// plan to settle), then 2,000 due steps arrive and the same session leases 200; the tuples it
// read are this transaction's table statistics (pg_stat_xact_user_tables). The batch statements
// run the same way, on a connection that names prepared statements as the server's do; the
// connection's list of prepared statements (pg_prepared_statements) must not hold them.
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveMany, transmitMany } from '../../src/areas/cash-receipts/store.ts';
import { PreparingClient } from '../../src/platform/db/prepared.ts';
import * as schema from '../../src/platform/db/tables.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';

const QUEUED = 2_000;
const LEASED = 200;

let database: TestDatabase;
let client: pg.Client;
let batchPool: pg.Pool;

beforeAll(async () => {
  if (!usingPostgres) return;
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  // One connection, so that every run shares its statements and plans.
  batchPool = new pg.Pool({ connectionString: database.env.DATABASE_URL, max: 1,
    Client: PreparingClient });
}, 60_000);
afterAll(async () => {
  await client?.end();
  await batchPool?.end();
  await database?.drop();
});

const lease = (at: Date, limit: number) => client.query<{ issuance_key: string;
  attempt_number: number }>(`select issuance_key, attempt_number
    from cash_receipt_steps_lease('APPROVAL', $1::timestamptz, $2::timestamptz, $3::integer)`,
[at.toISOString(), new Date(at.getTime() + 60_000).toISOString(), limit]);

describe.skipIf(!usingPostgres)('leasing cash receipt steps (PostgreSQL)', () => {
  it('reads a queue that filled after it was empty in proportion to what it takes', async () => {
    const now = new Date();
    await client.query('analyze cash_receipt_steps');
    for (let call = 0; call < 10; call += 1) {
      expect((await lease(now, LEASED)).rows).toEqual([]);
    }
    await client.query(`insert into cash_receipt_steps (issuance_key, step, due_at)
      select 'csr_lease_' || lpad(n::text, 5, '0'), 'APPROVAL',
             $1::timestamptz - (${QUEUED} - n) * interval '1 millisecond'
        from generate_series(1, ${QUEUED}) n`, [now.toISOString()]);

    await client.query('begin');
    const { rows } = await lease(now, LEASED);
    const { rows: [read] } = await client.query<{ tuples: string }>(`select
        coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as tuples
      from pg_stat_xact_user_tables where relname = 'cash_receipt_steps'`);
    await client.query('commit');

    // No more than asked for (the plan that ran the subquery per row took the whole queue), the
    // oldest due first, each once.
    expect(rows).toHaveLength(LEASED);
    expect(rows.map((row) => row.issuance_key).sort()).toEqual(Array.from({ length: LEASED },
      (_, index) => `csr_lease_${String(index + 1).padStart(5, '0')}`));
    expect(rows.every((row) => row.attempt_number === 1)).toBe(true);
    // A plan that scans the queue once for the whole lease reads at most a few times the
    // queue; the plan that ran the subquery per row read the queue once per row (millions).
    expect(Number(read!.tuples)).toBeLessThan(3 * QUEUED);

    const { rows: [held] } = await client.query<{ count: string }>(`select count(*)
      from cash_receipt_steps where leased_until is not null`);
    expect(Number(held!.count)).toBe(LEASED);
  }, 120_000);
});

describe.skipIf(!usingPostgres)('approving and transmitting a batch (PostgreSQL)', () => {
  it('plans every run with the tables as they are, not as they were when empty',
    async () => {
      const db = drizzle(batchPool, { schema });
      const issuedAt = new Date();
      const approval = (issuanceKey: string) => ({ issuanceKey, approvalNumber: '123456789',
        transmissionDueAt: issuedAt });
      await client.query('analyze cash_receipts');
      await client.query('analyze cash_receipt_steps');
      for (let run = 0; run < 10; run += 1) {
        expect(await approveMany(db, [approval('csr_none')], issuedAt)).toEqual(new Set());
        expect(await transmitMany(db, ['csr_none'], issuedAt)).toEqual(new Set());
      }
      await client.query(`insert into cash_receipts (issuance_key, account_id, environment,
          api_key_id, client_reference_id, kind, status, issuer_id, merchant_number,
          merchant_name, merchant_representative, trade_date, usage, identity_number, taxation,
          trade_option, supply_cost, tax, service_fee, total_amount, item_name, charged_points)
        select 'csr_batch_' || lpad(n::text, 5, '0'), 'acct_plan', 'test', 'key_plan',
               'ref-' || n, 'ISSUANCE', 'ACCEPTED', 'iss_plan', '1234567891', '카페 이택스',
               '홍길동', '2026-11-25', 'INCOME_DEDUCTION', '01012345678', 'TAXABLE', 'GENERAL',
               1000, 100, 0, 1100, '아메리카노', 10
          from generate_series(1, ${QUEUED}) n`);
      await client.query(`insert into cash_receipt_steps (issuance_key, step, due_at)
        select issuance_key, 'APPROVAL', now() from cash_receipts`);
      const batch = Array.from({ length: LEASED },
        (_, index) => `csr_batch_${String(index + 1).padStart(5, '0')}`);

      const [approved, transmitted] = await db.transaction(async (tx) => [
        await approveMany(tx, batch.map(approval), issuedAt),
        await transmitMany(tx, batch, issuedAt)] as const);

      expect(approved).toEqual(new Set(batch));
      expect(transmitted).toEqual(new Set(batch));
      // Planned on every run: a prepared statement kept a plan made while the tables were empty,
      // which joined the whole table to the batch once per row.
      const { rows: kept } = await db.execute<{ statement: string }>(sql`select statement
        from pg_prepared_statements where statement like '%update cash_receipts r%'`);
      expect(kept).toEqual([]);
      const { rows: [left] } = await client.query<{ count: string }>(`select count(*)
        from cash_receipt_steps where issuance_key like 'csr_batch_%'`);
      expect(Number(left!.count)).toBe(QUEUED - LEASED);
    }, 120_000);
});
