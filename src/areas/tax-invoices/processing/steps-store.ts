import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/connect.ts';
import { executePrepared } from '../../../platform/db/prepared.ts';
import { taxInvoiceSteps, type TaxInvoiceStep } from './tables.ts';

// SQL of the tax-invoice workers' queue (tables.ts): a step is added in the transaction that
// makes its document due, leased by a worker, moved on, put off or ended with the document's
// own change.

export type LeasedStep = { issuanceKey: string; attemptNumber: number };

// Adds a step for each document, due at `dueAt`, as attempt 1; a document that already has one
// keeps it (a step added twice, by a retried approval, runs once).
export async function addSteps(tx: Executor, step: TaxInvoiceStep,
  issuanceKeys: readonly string[], dueAt: Date): Promise<void> {
  if (issuanceKeys.length === 0) return;
  await executePrepared(tx, sql`insert into tax_invoice_steps (issuance_key, step, due_at)
    select key, ${step}, ${dueAt.toISOString()}::timestamptz
      from unnest(${sql.param([...issuanceKeys])}::text[]) as key
    on conflict (issuance_key) do nothing`);
}

// Takes up to `limit` steps of kind `step` that are due at `now` and that no worker holds,
// oldest due first, and holds them until `leasedUntil`; steps another worker is taking at the
// same moment are skipped, not waited for. The lease is the function tax_invoice_steps_lease
// (drizzle/0031_tax_invoice_steps.sql says how it is planned).
export async function leaseDue(db: Executor, input: { step: TaxInvoiceStep; now: Date;
  leasedUntil: Date; limit: number }): Promise<LeasedStep[]> {
  const { rows } = await executePrepared<{ issuance_key: string; attempt_number: number }>(db,
    sql`select issuance_key, attempt_number
      from tax_invoice_steps_lease(${input.step}, ${input.now.toISOString()}::timestamptz,
        ${input.leasedUntil.toISOString()}::timestamptz, ${input.limit}::integer)`);
  return rows.map((row) => ({ issuanceKey: row.issuance_key, attemptNumber: row.attempt_number }));
}

// The issued documents' next step: transmission, due at `dueAt`, as attempt 1.
export async function moveToTransmission(tx: Executor, issuanceKeys: readonly string[],
  dueAt: Date): Promise<void> {
  if (issuanceKeys.length === 0) return;
  await executePrepared(tx, sql`insert into tax_invoice_steps as s
      (issuance_key, step, due_at)
    select key, 'TRANSMISSION', ${dueAt.toISOString()}::timestamptz
      from unnest(${sql.param([...issuanceKeys])}::text[]) as key
    on conflict (issuance_key) do update
      set step = 'TRANSMISSION', due_at = excluded.due_at, attempt_number = 1,
          leased_until = null
      where s.step = 'ISSUANCE'`);
}

// Puts a document's step off until `dueAt`, as attempt `attemptNumber`, if that is still its
// step; the lease ends.
export async function postpone(tx: Executor, input: { issuanceKey: string;
  step: TaxInvoiceStep; attemptNumber: number; dueAt: Date }): Promise<void> {
  await tx.update(taxInvoiceSteps)
    .set({ attemptNumber: input.attemptNumber, dueAt: input.dueAt, leasedUntil: null })
    .where(and(eq(taxInvoiceSteps.issuanceKey, input.issuanceKey),
      eq(taxInvoiceSteps.step, input.step)));
}

// Ends the steps of documents that are decided (transmitted, failed, canceled) or that moved
// on without them.
export async function endSteps(tx: Executor, issuanceKeys: readonly string[]): Promise<void> {
  if (issuanceKeys.length === 0) return;
  await executePrepared(tx, sql`delete from tax_invoice_steps
    where issuance_key = any(${sql.param([...issuanceKeys])}::text[])`);
}

// The steps due now and not held by a worker, per step, for the metrics: the due index bounds
// the scan by the rows due.
export async function stepBacklogs(executor: Executor):
  Promise<Array<{ queue: string; waiting: number; oldestAgeSeconds: number }>> {
  const result = await executor.execute<{ step: string; waiting: number; oldest: number }>(sql`
    select step, count(*)::int as waiting,
           extract(epoch from now() - min(due_at))::float8 as oldest
      from tax_invoice_steps
     where due_at <= now() and (leased_until is null or leased_until < now())
     group by step`);
  return result.rows.map((row) => ({ queue: `tax_invoice_steps.${row.step}`,
    waiting: row.waiting, oldestAgeSeconds: Math.max(0, row.oldest) }));
}
