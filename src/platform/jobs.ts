import type pg from 'pg';
import PgBoss from 'pg-boss';
import { ADVISORY_LOCKS, withAdvisoryLock } from './db/advisory-lock.ts';
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
  // The application pool, for the advisory lock that serializes queue setup across processes.
  pool: pg.Pool;
  workersEnabled: boolean;
  points: PointsService;
  log: Logger;
};

export type Jobs = { boss: PgBoss; stop(): Promise<void> };

// PostgreSQL's code for a transaction chosen as a deadlock victim.
const DEADLOCK_DETECTED = '40P01';
const QUEUE_SETUP_ATTEMPTS_MAX = 5;
const QUEUE_SETUP_RETRY_DELAY_MS = 200;

// Creates the queues and schedules. Processes that start together take turns under an advisory
// lock, and a queue that exists is left alone, since creating one is DDL. Another process's
// pg-boss maintenance can still collide with that DDL on a brand-new database, so a deadlock is
// retried a bounded number of times.
async function setUpQueues(boss: PgBoss, pool: pg.Pool, workersEnabled: boolean) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await withAdvisoryLock(pool, ADVISORY_LOCKS.jobQueues, async () => {
        if (!(await boss.getQueue(EXPIRE_RESERVATIONS_QUEUE))) {
          await boss.createQueue(EXPIRE_RESERVATIONS_QUEUE, {
            name: EXPIRE_RESERVATIONS_QUEUE,
            policy: 'singleton',
            retryLimit: EXPIRY_JOB_RETRY_LIMIT,
            expireInSeconds: EXPIRY_JOB_EXPIRE_SECONDS,
          });
        }
        if (!workersEnabled) return;
        await boss.schedule(EXPIRE_RESERVATIONS_QUEUE, EXPIRE_RESERVATIONS_CRON, {}, {
          retryLimit: EXPIRY_JOB_RETRY_LIMIT,
          expireInSeconds: EXPIRY_JOB_EXPIRE_SECONDS,
        });
      });
      return;
    } catch (error) {
      const deadlock = (error as { code?: string }).code === DEADLOCK_DETECTED;
      if (!deadlock || attempt >= QUEUE_SETUP_ATTEMPTS_MAX) throw error;
      await new Promise((resolve) => setTimeout(resolve, QUEUE_SETUP_RETRY_DELAY_MS * attempt));
    }
  }
}

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
  await setUpQueues(boss, options.pool, workersEnabled);
  if (workersEnabled) {
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
