import type { JobDefinition } from '../../platform/jobs.ts';
import type { Deliverer } from './delivery.ts';
import { DELIVERY_QUEUE, type DeliveryJobData } from './recorder.ts';

// The webhook delivery queue: one job is one attempt of one delivery (delivery.ts).

// pg-boss retries only a job whose worker failed or died mid-attempt; the retry schedule of
// failed HTTP attempts is ours. A job may stay active for the HTTP timeout plus a minute of
// database work before pg-boss takes it back.
const JOB_RETRY_LIMIT = 5;
const JOB_RETRY_DELAY_SECONDS = 60;
const JOB_EXPIRY_MARGIN_SECONDS = 60;
// Attempts one worker sends at once; bounded so one process never opens hundreds of sockets.
const DELIVERY_BATCH_SIZE = 10;
// A new event reaches its receivers within about a second.
const DELIVERY_POLLING_INTERVAL_SECONDS = 1;

export function deliveryJobDefinition(
  deliverer: Deliverer,
  timeoutMs: number,
): JobDefinition<DeliveryJobData> {
  return {
    queue: DELIVERY_QUEUE,
    options: {
      policy: 'standard',
      retryLimit: JOB_RETRY_LIMIT,
      retryDelay: JOB_RETRY_DELAY_SECONDS,
      retryBackoff: true,
      expireInSeconds: Math.ceil(timeoutMs / 1000) + JOB_EXPIRY_MARGIN_SECONDS,
    },
    batchSize: DELIVERY_BATCH_SIZE,
    pollingIntervalSeconds: DELIVERY_POLLING_INTERVAL_SECONDS,
    async work(jobs) {
      const results = await Promise.allSettled(jobs.map((job) => deliverer.runAttempt(job.data)));
      const failures = results.filter((result) => result.status === 'rejected');
      // The whole batch is retried; attempts already recorded are skipped on the rerun.
      if (failures.length > 0) throw new AggregateError(failures.map((failure) => failure.reason));
    },
  };
}
