import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import {
  EXPIRE_RESERVATIONS_CRON,
  EXPIRE_RESERVATIONS_QUEUE,
  expireReservationsJob,
} from './points/expire-job.ts';
import type { PointsService } from './points/service.ts';

// pg-boss on the application database runs every background job (DESIGN.md § Async work).
// API-only processes (WORKERS_ENABLED=false) start it without workers, cron or maintenance, so
// they can still stage jobs inside their transactions.

// pg-boss needs few connections: its pollers and the occasional send outside a transaction.
const JOBS_POOL_MAX = 4;
const EXPIRY_JOB_RETRY_LIMIT = 3;
const EXPIRY_JOB_EXPIRE_SECONDS = 60;
const EXPIRY_POLLING_INTERVAL_SECONDS = 10;

type JobsOptions = {
  databaseUrl: string;
  workersEnabled: boolean;
  points: PointsService;
  log: Logger;
};

export type Jobs = { boss: PgBoss; stop(): Promise<void> };

export async function startJobs(options: JobsOptions): Promise<Jobs> {
  const { workersEnabled, log } = options;
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    max: JOBS_POOL_MAX,
    schedule: workersEnabled,
    supervise: workersEnabled,
    migrate: true,
  });
  boss.on('error', (error) => log.error({ err: error }, 'job queue error'));
  await boss.start();
  await boss.createQueue(EXPIRE_RESERVATIONS_QUEUE, {
    name: EXPIRE_RESERVATIONS_QUEUE,
    policy: 'singleton',
    retryLimit: EXPIRY_JOB_RETRY_LIMIT,
    expireInSeconds: EXPIRY_JOB_EXPIRE_SECONDS,
  });
  if (workersEnabled) {
    await boss.schedule(EXPIRE_RESERVATIONS_QUEUE, EXPIRE_RESERVATIONS_CRON, {}, {
      retryLimit: EXPIRY_JOB_RETRY_LIMIT,
      expireInSeconds: EXPIRY_JOB_EXPIRE_SECONDS,
    });
    const expireReservations = expireReservationsJob(options.points, log);
    await boss.work(
      EXPIRE_RESERVATIONS_QUEUE,
      { batchSize: 1, pollingIntervalSeconds: EXPIRY_POLLING_INTERVAL_SECONDS },
      async () => { await expireReservations(); },
    );
  }
  return {
    boss,
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
