import type { Logger } from 'pino';
import type { JobDefinition } from '../jobs.ts';
import { EXPIRY_BATCH_SIZE, type PointsService } from './service.ts';

export const EXPIRE_RESERVATIONS_QUEUE = 'points-expire-reservations';
// Every minute: a reservation outlives its TTL by at most about a minute before it is expired.
export const EXPIRE_RESERVATIONS_CRON = '* * * * *';
// One run expires at most this many batches, so a huge backlog never holds a worker for long;
// the next run goes on where this one stopped.
const BATCHES_PER_RUN_MAX = 10;

// Returns expired reservations to their available balances, batch by batch.
export function expireReservationsJob(points: PointsService, log: Logger) {
  return async function expireReservations(): Promise<number> {
    let expiredTotal = 0;
    for (let batchIndex = 0; batchIndex < BATCHES_PER_RUN_MAX; batchIndex += 1) {
      const expiredCount = await points.expireStaleReservations();
      expiredTotal += expiredCount;
      if (expiredCount < EXPIRY_BATCH_SIZE) break;
    }
    if (expiredTotal > 0) log.info({ expiredTotal }, 'expired stale point reservations');
    return expiredTotal;
  };
}

const EXPIRY_JOB_RETRY_LIMIT = 3;
const EXPIRY_JOB_EXPIRE_SECONDS = 60;
const EXPIRY_POLLING_INTERVAL_SECONDS = 10;

export function expireReservationsJobDefinition(
  points: PointsService,
  log: Logger,
): JobDefinition {
  const expireReservations = expireReservationsJob(points, log);
  return {
    queue: EXPIRE_RESERVATIONS_QUEUE,
    options: {
      policy: 'singleton',
      retryLimit: EXPIRY_JOB_RETRY_LIMIT,
      expireInSeconds: EXPIRY_JOB_EXPIRE_SECONDS,
    },
    cron: EXPIRE_RESERVATIONS_CRON,
    pollingIntervalSeconds: EXPIRY_POLLING_INTERVAL_SECONDS,
    async work() {
      await expireReservations();
    },
  };
}
