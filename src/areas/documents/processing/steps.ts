import type PgBoss from 'pg-boss';
import { DOCUMENT_JOB_RESUME_SECONDS, type JobDefinition } from '../../../platform/jobs.ts';
import {
  DOCUMENT_QUEUE,
  processDocument,
  type DocumentJobData,
  type ProcessingDeps,
} from './issuance-job.ts';

// The job definitions of document processing (docs/documents.md § Processing): one step,
// issuance (issuance-job.ts), on a pg-boss queue that retries it with backoff while the upstream
// service cannot be reached.

const JOB_RETRY_LIMIT = 10;
const JOB_RETRY_DELAY_SECONDS = 2;
const JOBS_PER_FETCH = 10;
const POLLING_INTERVAL_SECONDS = 0.5;
const JOB_EXPIRY_MARGIN_SECONDS = 60;

export function documentJobDefinitions(deps: ProcessingDeps): JobDefinition[] {
  const definition: JobDefinition<DocumentJobData> = {
    queue: DOCUMENT_QUEUE,
    options: {
      retryLimit: JOB_RETRY_LIMIT,
      retryDelay: JOB_RETRY_DELAY_SECONDS,
      retryBackoff: true,
      // A job expires (and runs again) only once its upstream call has certainly timed out.
      expireInSeconds: Math.ceil(deps.timeoutMs / 1_000) + JOB_EXPIRY_MARGIN_SECONDS,
    },
    batchSize: JOBS_PER_FETCH,
    pollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
    resumeAfterRetriesSeconds: DOCUMENT_JOB_RESUME_SECONDS,
    async work(jobs: PgBoss.Job<DocumentJobData>[]) {
      const outcomes = await Promise.allSettled(jobs.map((job) =>
        processDocument(deps, job.data.issuanceKey)));
      const failed = outcomes.find((outcome) => outcome.status === 'rejected');
      // The whole fetch is retried; the documents already moved on do nothing the second time.
      if (failed) throw failed.reason;
    },
  };
  return [definition] as JobDefinition[];
}
