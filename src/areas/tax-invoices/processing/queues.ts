import { createHash } from 'node:crypto';
import type { Executor } from '../../../platform/db/connect.ts';
import type { StageJobs } from '../../../platform/jobs.ts';

// The job queues of the tax-invoices area (docs/tax-invoices.md § Processing), and how work is
// staged on them. Job data names only the document; everything else is read from it when the
// job runs.

// Signs a PENDING or APPROVED document with the issuer's certificate: → ISSUED.
export const ISSUANCE_QUEUE = 'tax-invoices-issuance';
export type IssuanceJobData = { issuanceKey: string };

// Sends an ISSUED document to the tax authority: → TRANSMITTING → TRANSMITTED or FAILED.
export const TRANSMISSION_QUEUE = 'tax-invoices-transmission';
export type TransmissionJobData = { issuanceKey: string; attemptNumber: number };

// Stages the issuance job of each new document, in one statement of the caller's transaction.
export async function stageIssuanceJobs(
  stageMany: StageJobs,
  tx: Executor,
  issuanceKeys: readonly string[],
): Promise<void> {
  const jobs: Array<{ data: IssuanceJobData }> = issuanceKeys.map((issuanceKey) =>
    ({ data: { issuanceKey } }));
  await stageMany(tx, ISSUANCE_QUEUE, jobs);
}

// The pg-boss job id of a transmission attempt, the same every time it is staged: a job that
// runs twice (its fetch failed and was retried, or its worker died after staging the next
// attempt) stages that attempt again, which then adds nothing, so a document never has two
// chains of retries.
export function transmissionJobId(issuanceKey: string, attemptNumber: number): string {
  const hex = createHash('sha256').update(`transmission:${issuanceKey}:${attemptNumber}`)
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-` +
    hex.slice(20, 32);
}
