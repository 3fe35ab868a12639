import type PgBoss from 'pg-boss';
import { DOCUMENT_JOB_RESUME_SECONDS, type JobDefinition } from '../../../platform/jobs.ts';
import { issueDocuments, type IssuanceJobDeps } from './issuance-job.ts';
import {
  ISSUANCE_QUEUE,
  TRANSMISSION_QUEUE,
  type IssuanceJobData,
  type TransmissionJobData,
} from './queues.ts';
import { transmitDocuments, type TransmissionJobDeps } from './transmission-job.ts';

// The jobs that take an accepted document to the tax authority (docs/tax-invoices.md §
// Processing). Every step is a conditional status change, so a job that runs twice (a retry
// after a crash) finds the document already moved and does nothing: a document is signed,
// transmitted, charged, refunded and announced at most once.
//
//   issuance (issuance-job.ts):         PENDING | APPROVED → ISSUED, and the transmission staged
//   transmission (transmission-job.ts): ISSUED → TRANSMITTING → TRANSMITTED or FAILED

type ProcessingDeps = IssuanceJobDeps & TransmissionJobDeps;

// pg-boss reruns a job whose worker died (expiry) or threw; the steps above make that harmless.
const JOB_RETRY_LIMIT = 10;
const JOB_RETRY_DELAY_SECONDS = 2;
const JOBS_PER_FETCH = 50;
const POLLING_INTERVAL_SECONDS = 0.5;
// The transmissions of one fetch run side by side, each aborted at the gateway timeout
// (transmission-job.ts), so a fetch waits for the gateway once, however many documents it holds.
const GATEWAY_WAITS_PER_FETCH = 1;
// What a fetch does besides waiting for the gateway: its statements, and at worst one
// transaction per document whose transmission failed. As webhook delivery's margin.
const JOB_EXPIRY_MARGIN_SECONDS = 60;

// A job expires (its worker is presumed dead and the job runs again) only once the gateway calls
// of its fetch have certainly timed out: expiring earlier would transmit a document twice at once.
function jobOptions(gatewayTimeoutMs: number): Omit<PgBoss.Queue, 'name'> {
  return {
    retryLimit: JOB_RETRY_LIMIT,
    retryDelay: JOB_RETRY_DELAY_SECONDS,
    retryBackoff: true,
    expireInSeconds: Math.ceil(gatewayTimeoutMs / 1_000) * GATEWAY_WAITS_PER_FETCH +
      JOB_EXPIRY_MARGIN_SECONDS,
  };
}

// The jobs of one fetch are worked as one batch: their round trips and commits are paid once per
// fetch. If the batch fails, pg-boss retries the whole fetch, which finds the finished documents
// already moved on.
export function processingJobDefinitions(deps: ProcessingDeps): JobDefinition[] {
  const options = jobOptions(deps.transmissionTimeoutMs);
  const issuance: JobDefinition<IssuanceJobData> = {
    queue: ISSUANCE_QUEUE,
    options,
    batchSize: JOBS_PER_FETCH,
    pollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
    resumeAfterRetriesSeconds: DOCUMENT_JOB_RESUME_SECONDS,
    work: (jobs: PgBoss.Job<IssuanceJobData>[]) =>
      issueDocuments(deps, jobs.map((job) => job.data.issuanceKey)),
  };
  const transmission: JobDefinition<TransmissionJobData> = {
    queue: TRANSMISSION_QUEUE,
    options,
    batchSize: JOBS_PER_FETCH,
    pollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
    resumeAfterRetriesSeconds: DOCUMENT_JOB_RESUME_SECONDS,
    work: (jobs: PgBoss.Job<TransmissionJobData>[]) =>
      transmitDocuments(deps, jobs.map((job) => job.data)),
  };
  return [issuance, transmission] as JobDefinition[];
}
