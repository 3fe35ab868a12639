import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/connect.ts';
import { executePrepared } from '../../../platform/db/prepared.ts';
import { createStepQueue } from '../../../platform/step-queue.ts';
import type { TaxInvoiceStep } from './tables.ts';

// SQL of the tax-invoice workers' queue (tables.ts): a step is added in the transaction that
// makes its document due, leased by a worker, moved on, put off or ended with the document's
// own change. Leasing, putting off, ending and the backlog are every step queue's
// (platform/step-queue.ts); adding and moving on are this queue's own.

export type { LeasedStep } from '../../../platform/step-queue.ts';

// A step for each document whose key `keys` (a query with one column, `key`) gives, due at
// `dueAt`, as attempt 1; a document that already has one keeps it (a step added twice, by a
// retried approval, runs once).
const insertSteps = (step: TaxInvoiceStep, keys: SQL, dueAt: Date) =>
  sql`insert into tax_invoice_steps (issuance_key, step, due_at)
    select key, ${step}, ${dueAt.toISOString()}::timestamptz from ${keys}
    on conflict (issuance_key) do nothing`;

export async function addSteps(tx: Executor, step: TaxInvoiceStep,
  issuanceKeys: readonly string[], dueAt: Date): Promise<void> {
  if (issuanceKeys.length === 0) return;
  await executePrepared(tx, insertSteps(step,
    sql`unnest(${sql.param([...issuanceKeys])}::text[]) as key`, dueAt));
}

// addSteps' issuance steps for documents being inserted, as a part of their insert
// (store.insertInvoices' `alongside`): each plain (STANDARD) document of the CTE `inserted` gets
// one; a reverse issuance request waits for its approval.
export function issuanceStepsOfInserted(dueAt: Date): SQL {
  return insertSteps('ISSUANCE', sql`(select issuance_key as key from inserted
     where issuance_type = 'STANDARD') as standard`, dueAt);
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

const queue = createStepQueue<TaxInvoiceStep>('tax_invoice_steps');

export const leaseDue = queue.leaseDue;
export const postpone = queue.postpone;
export const endSteps = queue.endSteps;
export const stepBacklogs = queue.backlogs;
