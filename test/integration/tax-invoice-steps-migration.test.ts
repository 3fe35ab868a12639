// Upgrading a database with tax invoices in processing to the release whose queue is a table of
// its own: every document still PENDING or APPROVED gets its issuance step, every ISSUED or
// TRANSMITTING one its transmission step, with the attempt and start time of the pg-boss job
// that was carrying it, decided documents and waiting reverse requests get none, and the old
// jobs are gone from pg-boss. Method: the committed migrations up to the one before, applied from
// a copy of the migrations folder cut there; documents written as that release wrote them, and
// their jobs staged with pg-boss itself; then every migration.
import PgBoss from 'pg-boss';
import { describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database.ts';
import { MIGRATIONS_DIR, useDatabaseToUpgrade } from '../helpers/migrations.ts';

const STEPS_MIGRATION = '0031_tax_invoice_steps';
const ISSUANCE_QUEUE = 'tax-invoices-issuance';
const TRANSMISSION_QUEUE = 'tax-invoices-transmission';

const upgraded = useDatabaseToUpgrade(STEPS_MIGRATION);

// A document and, where the release before had one waiting, the job carrying it.
type Document = { key: string; status: string; issuanceType?: string;
  job?: { queue: string; attemptNumber?: number; startAfter: string } };

const DOCUMENTS: Document[] = [
  { key: 'ti_pending', status: 'PENDING',
    job: { queue: ISSUANCE_QUEUE, startAfter: '2026-11-27T01:00:00Z' } },
  { key: 'ti_approved', status: 'APPROVED', issuanceType: 'REVERSE',
    job: { queue: ISSUANCE_QUEUE, startAfter: '2026-11-27T01:00:00Z' } },
  { key: 'ti_issued', status: 'ISSUED',
    job: { queue: TRANSMISSION_QUEUE, attemptNumber: 1, startAfter: '2099-01-01T00:00:10Z' } },
  { key: 'ti_retrying', status: 'TRANSMITTING',
    job: { queue: TRANSMISSION_QUEUE, attemptNumber: 3, startAfter: '2099-01-01T00:10:00Z' } },
  { key: 'ti_transmitting_without_job', status: 'TRANSMITTING' },
  { key: 'ti_requested', status: 'REQUESTED', issuanceType: 'REVERSE' },
  { key: 'ti_transmitted', status: 'TRANSMITTED' },
  { key: 'ti_failed', status: 'FAILED' },
  { key: 'ti_canceled', status: 'CANCELED' },
];

async function insertAsBefore(document: Document, index: number) {
  await upgraded.pool.query(`insert into tax_invoices (issuance_key, account_id, environment,
      api_key_id, client_reference_id, issuer_id, supplier_key, issuance_type, status, invoice,
      write_date, issue_deadline, late_issuance, counterpart_number, tax_type, supply_cost_total,
      tax_total, total_amount, charged_points)
    values ($1, 'acct_migration', 'test', 'key_migration', $2, 'iss_migration', 'sup_migration',
      $3, $4, '{}'::jsonb, '2026-11-27', '2026-12-10', false, '1234567891', 'TAXABLE', 200000,
      20000, 220000, 100)`,
  [document.key, `ref-${index}`, document.issuanceType ?? 'STANDARD', document.status]);
}

// The jobs as the release before staged them, through pg-boss itself.
async function stageJobsAsBefore() {
  const boss = new PgBoss({ connectionString: upgraded.database.env.DATABASE_URL, max: 2 });
  boss.on('error', () => undefined);
  await boss.start();
  try {
    for (const queue of [ISSUANCE_QUEUE, TRANSMISSION_QUEUE]) await boss.createQueue(queue);
    for (const { key, job } of DOCUMENTS) {
      if (job === undefined) continue;
      const data = job.attemptNumber === undefined ? { issuanceKey: key }
        : { issuanceKey: key, attemptNumber: job.attemptNumber };
      await boss.send(job.queue, data, { startAfter: new Date(job.startAfter) });
    }
    // A transmission's earlier attempt, done: the newest pending attempt is the one carried over.
    await boss.send(TRANSMISSION_QUEUE, { issuanceKey: 'ti_retrying', attemptNumber: 2 });
    const [earlier] = await boss.fetch(TRANSMISSION_QUEUE, { batchSize: 1 });
    if (earlier !== undefined) await boss.complete(TRANSMISSION_QUEUE, earlier.id);
  } finally {
    await boss.stop({ graceful: false, wait: true });
  }
}

describe.skipIf(!usingPostgres)('the migration to tax_invoice_steps (PostgreSQL)', () => {
  it('gives every document in processing its step and takes its jobs from pg-boss',
    async () => {
      await upgraded.migrate(upgraded.earlierDir);
      for (const [index, document] of DOCUMENTS.entries()) {
        await insertAsBefore(document, index);
      }
      await stageJobsAsBefore();
      const migratedAt = Date.now();
      await upgraded.migrate(MIGRATIONS_DIR);
      const { rows: steps } = await upgraded.pool.query<{ issuance_key: string; step: string;
        attempt_number: number; due_at: Date; leased_until: Date | null }>(`select
        issuance_key, step, attempt_number, due_at, leased_until from tax_invoice_steps
        order by issuance_key`);
      expect(steps.map((row) => [row.issuance_key, row.step, row.attempt_number,
        row.leased_until])).toEqual([
        ['ti_approved', 'ISSUANCE', 1, null],
        ['ti_issued', 'TRANSMISSION', 1, null],
        ['ti_pending', 'ISSUANCE', 1, null],
        ['ti_retrying', 'TRANSMISSION', 3, null],
        ['ti_transmitting_without_job', 'TRANSMISSION', 1, null],
      ]);
      const dueAt = new Map(steps.map((row) => [row.issuance_key, row.due_at.getTime()]));
      // A job's start time carries over where it lies ahead; the others are due at once.
      expect(dueAt.get('ti_issued')).toBe(Date.parse('2099-01-01T00:00:10Z'));
      expect(dueAt.get('ti_retrying')).toBe(Date.parse('2099-01-01T00:10:00Z'));
      for (const key of ['ti_pending', 'ti_approved', 'ti_transmitting_without_job']) {
        expect(dueAt.get(key)).toBeLessThanOrEqual(Date.now());
        expect(dueAt.get(key)).toBeGreaterThanOrEqual(migratedAt - 60_000);
      }
      const { rows: [jobs] } = await upgraded.pool.query(`select count(*)::int as count
        from pgboss.job where name in ($1, $2) and state in ('created', 'retry', 'active')`,
      [ISSUANCE_QUEUE, TRANSMISSION_QUEUE]);
      expect(jobs).toEqual({ count: 0 });
      const { rows: [lease] } = await upgraded.pool.query(`select count(*)::int as count
        from tax_invoice_steps_lease('ISSUANCE', now(), now() + interval '1 minute', 10)`);
      expect(lease).toEqual({ count: 2 });
    }, 60_000);
});
