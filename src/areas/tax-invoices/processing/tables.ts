import { stepQueueTable } from '../../../platform/step-queue.ts';

export type TaxInvoiceStep = 'ISSUANCE' | 'TRANSMISSION';

// The workers' queue (docs/tax-invoices.md § Processing): one row per document with a step still
// to run (issuance while PENDING or APPROVED, transmission while ISSUED or TRANSMITTING), when it
// is due, its attempt and its lease. A table of its own, like the cash receipts' queue, so that
// a step costs the writes of a narrow row with one index instead of a job's insert, fetch and
// completion, and the document's own changes touch none of its queue's (platform/step-queue.ts).
export const taxInvoiceSteps = stepQueueTable<TaxInvoiceStep>('tax_invoice_steps',
  ['ISSUANCE', 'TRANSMISSION']);
