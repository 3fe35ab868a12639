import type { DueWorkDefinition } from '../../../platform/due-work.ts';
import { approveDueReceipts } from './approval-job.ts';
import { RECEIPTS_PER_BATCH, type ProcessingDeps } from './batch.ts';
import { transmitDueReceipts } from './transmission-job.ts';

// The steps that take an accepted receipt to the tax authority (docs/cash-receipts.md §
// Processing), run by workers over the receipts' queue of steps (platform/due-work.ts):
//
//   approval (approval-job.ts):          ACCEPTED → ISSUED (approval number, transmission due)
//                                        or FAILED, or tried again later while the authority
//                                        cannot be reached
//   transmission (transmission-job.ts):  ISSUED → TRANSMITTED, the next day in production
//
// A worker leases a batch of due steps, asks the authority about them concurrently, and records
// the answers in one transaction (batch.ts). Every change is conditional on the status, so a
// step taken again (its worker died after the authority answered, and the lease ran out) finds
// the receipt already moved and changes, refunds, mails and announces nothing; the authority
// answers a repeated request for the same issuance key with the same approval number.

const POLL_INTERVAL_MS = 500;
const BATCHES_PER_STEP_AT_ONCE = 2;

export function processingSteps(deps: ProcessingDeps): DueWorkDefinition[] {
  return [
    { name: 'cash-receipts-approval', runBatch: () => approveDueReceipts(deps),
      batchSize: RECEIPTS_PER_BATCH, pollIntervalMs: POLL_INTERVAL_MS,
      concurrency: BATCHES_PER_STEP_AT_ONCE },
    { name: 'cash-receipts-transmission', runBatch: () => transmitDueReceipts(deps),
      batchSize: RECEIPTS_PER_BATCH, pollIntervalMs: POLL_INTERVAL_MS,
      concurrency: BATCHES_PER_STEP_AT_ONCE },
  ];
}
