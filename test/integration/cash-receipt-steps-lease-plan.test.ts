// The lease of cash receipt steps (cash_receipt_steps_lease) reads a queue that fills after it
// was empty in proportion to the steps it takes, not to the square of the queue. A connection
// whose first leases found the queue empty, with statistics that said so, used to keep a plan
// that ran the locking subquery again for every row of the queue: a burst of a few thousand
// receipts then took minutes of CPU per lease, leased far more steps than asked for, and every
// worker stalled behind it.
// Method: one session analyzes the empty queue and leases from it ten times (enough for a cached
// plan to settle), then 2,000 due steps arrive and the same session leases 200; the tuples it
// read are this transaction's table statistics (pg_stat_xact_user_tables).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';

const QUEUED = 2_000;
const LEASED = 200;

let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  if (!usingPostgres) return;
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
}, 60_000);
afterAll(async () => {
  await client?.end();
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
