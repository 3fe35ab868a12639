import type { DueWorkDefinition } from '../../../platform/due-work.ts';
import { issueDocuments, type IssuanceJobDeps } from './issuance-job.ts';
import { leaseDue, type LeasedStep } from './steps-store.ts';
import type { TaxInvoiceStep } from './tables.ts';
import { transmitDocuments, type TransmissionJobDeps } from './transmission-job.ts';

// The steps that take an accepted document to the tax authority (docs/tax-invoices.md §
// Processing), run by workers over the documents' queue of steps (platform/due-work.ts). Every
// step is a conditional status change, so a step taken again (its worker died, and the lease ran
// out) finds the document already moved and does nothing: a document is signed, transmitted,
// charged, refunded and announced at most once.
//
//   issuance (issuance-job.ts):         PENDING | APPROVED → ISSUED, and transmission due
//   transmission (transmission-job.ts): ISSUED → TRANSMITTING → TRANSMITTED or FAILED

type ProcessingDeps = IssuanceJobDeps & TransmissionJobDeps;

// A batch's statements and its transaction are paid once for all its documents. Transmission's
// batch is the number of gateway calls that run at once; at 50, transmission fell behind a busy
// API's acceptance of bulks (bench/RESULTS.md).
const DOCUMENTS_PER_ISSUANCE_BATCH = 100;
const DOCUMENTS_PER_TRANSMISSION_BATCH = 100;
const POLL_INTERVAL_MS = 500;
// Each batch waits on round trips (and transmission on the gateway) much of its time, so the
// batches at once bound the documents a second. Issuance with two at once fell behind a busy
// API's acceptance of bulks once acceptance took one statement fewer (about 1,170 signed a second
// of 1,400 to 1,600 accepted); with three it keeps up. Transmission does more per document (the
// gateway call, which the sandbox answers after checking the signature; the books entry, the
// event and the mail) and with two batches at once fell behind the acceptance of bulks; with four
// it keeps up (bench/RESULTS.md).
const ISSUANCE_BATCHES_AT_ONCE = 3;
const TRANSMISSION_BATCHES_AT_ONCE = 4;
// The transmissions of one batch run side by side, each aborted at the gateway timeout, so a
// batch waits for the gateway once. The lease outlives that by a margin for the batch's
// statements, and at worst one transaction per document whose transmission failed; a lease that
// runs out earlier would let a second worker transmit the same document at the same time.
const LEASE_MARGIN_MS = 60_000;

// Leases a batch of due steps and runs `work` on them; answers how many it took.
async function withLeased(deps: ProcessingDeps, step: TaxInvoiceStep, limit: number,
  work: (due: LeasedStep[]) => Promise<void>): Promise<number> {
  const now = deps.now();
  const due = await leaseDue(deps.db, { step, now, limit,
    leasedUntil: new Date(now.getTime() + leaseMs(deps.transmissionTimeoutMs)) });
  if (due.length > 0) await work(due);
  return due.length;
}

// How long a worker holds the steps it took.
export function leaseMs(gatewayTimeoutMs: number): number {
  return gatewayTimeoutMs + LEASE_MARGIN_MS;
}

export function processingSteps(deps: ProcessingDeps): DueWorkDefinition[] {
  return [
    { name: 'tax-invoices-issuance',
      runBatch: () => withLeased(deps, 'ISSUANCE', DOCUMENTS_PER_ISSUANCE_BATCH,
        (due) => issueDocuments(deps, due.map((step) => step.issuanceKey))),
      batchSize: DOCUMENTS_PER_ISSUANCE_BATCH, pollIntervalMs: POLL_INTERVAL_MS,
      concurrency: ISSUANCE_BATCHES_AT_ONCE },
    { name: 'tax-invoices-transmission',
      runBatch: () => withLeased(deps, 'TRANSMISSION', DOCUMENTS_PER_TRANSMISSION_BATCH,
        (due) => transmitDocuments(deps, due)),
      batchSize: DOCUMENTS_PER_TRANSMISSION_BATCH, pollIntervalMs: POLL_INTERVAL_MS,
      concurrency: TRANSMISSION_BATCHES_AT_ONCE },
  ];
}
