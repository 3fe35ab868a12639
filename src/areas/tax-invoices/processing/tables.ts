import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampTz } from '../../../platform/db/columns.ts';

export type TaxInvoiceStep = 'ISSUANCE' | 'TRANSMISSION';

// The workers' queue (docs/tax-invoices.md § Processing): one row per document with a step still
// to run (issuance while PENDING or APPROVED, transmission while ISSUED or TRANSMITTING), when it
// is due, its attempt and its lease. A table of its own, like the cash receipts' queue, so that
// a step costs the writes of a narrow row with one index instead of a job's insert, fetch and
// completion, and the document's own changes touch none of its queue's. The row is written in
// the same transaction as the document's status, and deleted once the document is decided; no
// foreign key, whose check would cost a lookup per accepted document.
export const taxInvoiceSteps = pgTable(
  'tax_invoice_steps',
  {
    issuanceKey: text('issuance_key').primaryKey(),
    step: text('step').$type<TaxInvoiceStep>().notNull(),
    dueAt: timestampTz('due_at').notNull(),
    attemptNumber: integer('attempt_number').notNull().default(1),
    // Until when a worker holds the step; a worker that dies lets it run out, and the step is
    // taken up again.
    leasedUntil: timestampTz('leased_until'),
  },
  (table) => [
    index('tax_invoice_steps_due_idx').on(table.step, table.dueAt),
    check('tax_invoice_steps_step_known', sql`${table.step} in ('ISSUANCE', 'TRANSMISSION')`),
    check('tax_invoice_steps_attempt_positive', sql`${table.attemptNumber} >= 1`),
  ],
);
