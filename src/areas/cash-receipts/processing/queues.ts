import { createHash } from 'node:crypto';

// The job queues of the cash-receipts area (docs/cash-receipts.md § Processing). Job data names
// only the receipt and the attempt; everything else is read from the receipt when the job runs.

// Asks the tax authority to approve an ACCEPTED receipt: → ISSUED or FAILED.
export const APPROVAL_QUEUE = 'cash-receipts-approval';
export type ApprovalJobData = { issuanceKey: string; attemptNumber: number };

// Transmits an ISSUED receipt to the tax authority: → TRANSMITTED.
export const TRANSMISSION_QUEUE = 'cash-receipts-transmission';
export type TransmissionJobData = { issuanceKey: string };

// The pg-boss job id of one step of a receipt, the same every time it is staged: a job that runs
// twice (its fetch failed and was retried, or its worker died after staging the next step)
// stages that step again, which then adds nothing, so a receipt never has two chains of jobs.
export function stepJobId(issuanceKey: string, step: string): string {
  const hex = createHash('sha256').update(`cash-receipt:${step}:${issuanceKey}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-` +
    hex.slice(20, 32);
}
