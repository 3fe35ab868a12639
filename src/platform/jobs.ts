/* eslint-disable no-restricted-syntax --
   pg-boss compares a job's start time with the database's clock. */
import { isDeepStrictEqual } from 'node:util';
import type pg from 'pg';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { sql } from 'drizzle-orm';
import { ADVISORY_LOCKS, withAdvisoryLock } from './db/advisory-lock.ts';
import { retryingDeadlocks } from './db/deadlock.ts';
import type { Executor } from './db/connect.ts';
import { numberedSql } from './db/numbered-sql.ts';
import { markPhase } from './startup-phases.ts';

// pg-boss on the application database runs every background job.
// API-only processes (WORKERS_ENABLED=false) start it without workers, cron or maintenance, so
// they can still stage jobs inside their transactions.
//
// Areas describe their queues as JobDefinitions; app.ts hands them all to startJobs, which
// creates the queues once and, in worker processes, schedules and works them.

export type JobDefinition<Data extends object = object> = {
  queue: string;
  // Queue options (retries, backoff, expiry, policy), applied when the queue is created.
  options: Omit<PgBoss.Queue, 'name'>;
  // A cron expression when the queue runs on a schedule.
  cron?: string;
  // Jobs fetched per poll, and how often an idle worker polls.
  batchSize?: number;
  pollingIntervalSeconds?: number;
  // For jobs that carry an accepted request to its end (a document's processing): a job whose
  // retries are spent is not dropped, which would leave its document halfway for ever, but
  // staged again, as a new job with the same data, to start this many seconds later, with an
  // error logged each time. The work must be safe to run again (it is: every step is a
  // conditional status change).
  resumeAfterRetriesSeconds?: number;
  work(jobs: PgBoss.Job<Data>[]): Promise<void>;
};

// A job that runs an area's schedule tick on a cron expression: one at a time across the
// cluster (pg-boss's singleton policy) and never retried, since the next tick does what a
// failed one left undone.
export function scheduleTickJob(input: { queue: string; cron: string; expireInSeconds: number;
  tick: () => Promise<unknown> }): JobDefinition<object> {
  return {
    queue: input.queue,
    options: { policy: 'singleton', retryLimit: 0, expireInSeconds: input.expireInSeconds },
    cron: input.cron,
    batchSize: 1,
    async work() {
      await input.tick();
    },
  };
}

// What document processing sets as JobDefinition.resumeAfterRetriesSeconds: once its retries
// (about half an hour of them) are spent, a job is tried again every hour.
export const DOCUMENT_JOB_RESUME_SECONDS = 3_600;

// pg-boss needs few connections: its pollers and the occasional send outside a transaction.
const JOBS_POOL_MAX = 4;
const DEFAULT_POLLING_INTERVAL_SECONDS = 2;

type JobsOptions = {
  databaseUrl: string;
  // Database.sessionPool, for the advisory lock that serializes queue setup across processes.
  pool: pg.Pool;
  workersEnabled: boolean;
  log: Logger;
};

export type Jobs = {
  boss: PgBoss;
  stage: StageJob;
  stageMany: StageJobs;
  start(definitions: JobDefinition<never>[]): Promise<void>;
  stop(): Promise<void>;
};

const QUEUE_SETUP_ATTEMPTS_MAX = 5;
const QUEUE_SETUP_RETRY_DELAY_MS = 200;

// Stages a job in the caller's transaction, so it exists exactly when the change that asks for it
// commits. Returns the job id.
export type StageJob = (
  executor: Executor,
  queue: string,
  data: object,
  options?: PgBoss.SendOptions,
) => Promise<string>;

// Stages many jobs of one queue in one statement, in the caller's transaction. A job with an id
// that is already there is not staged again.
export type StageJobs = (
  executor: Executor,
  queue: string,
  jobs: Array<{ data: object; id?: string; startAfter?: Date }>,
) => Promise<void>;

// pg-boss's insert reads `startAfter` three times, as an ISO time or as an interval; the adapter
// below (numberedSql) binds each occurrence as its own parameter, which PostgreSQL then types
// differently, so only an absolute time (a Date, sent as ISO text) is valid. A delay in seconds
// becomes one here.
function absoluteStartAfter(options: PgBoss.SendOptions): PgBoss.SendOptions {
  const { startAfter } = options;
  if (startAfter === undefined || startAfter instanceof Date) return options;
  if (typeof startAfter !== 'number') {
    throw new Error('stage: startAfter must be a Date or a number of seconds');
  }
  return { ...options, startAfter: new Date(Date.now() + startAfter * 1_000) };
}

// pg-boss runs its statements through this, on the caller's executor, so they join its
// transaction.
function executorDb(executor: Executor) {
  return {
    async executeSql(text: string, values: unknown[]) {
      const result = await executor.execute(numberedSql(text, values ?? []));
      return { rows: result.rows };
    },
  };
}

// pg-boss inserts nothing and says so only with a null (send) or not at all (bulk insert) when
// a queue does not exist, so staging checks the queue itself, once per queue. The check goes
// through the caller's executor: the embedded database serves one transaction at a time, so a
// query on another connection would wait for this one forever.
function createQueueCheck() {
  const knownQueues = new Set<string>();
  return async (executor: Executor, queue: string): Promise<boolean> => {
    if (knownQueues.has(queue)) return true;
    const found = await executor.execute(sql`select 1 from pgboss.queue where name = ${queue}`);
    if (found.rows.length === 0) return false;
    knownQueues.add(queue);
    return true;
  };
}

type QueueCheck = ReturnType<typeof createQueueCheck>;

function createJobStager(boss: PgBoss, queueExists: QueueCheck): StageJob {
  return async (executor, queue, data, options = {}) => {
    const db = executorDb(executor);
    const id = await boss.send(queue, data, { ...absoluteStartAfter(options), db });
    if (id !== null) return id;
    // A null also comes when a job with the caller's own id is already there (the insert does
    // nothing on conflict): staging a job under a deterministic id twice stages it once.
    if (options.id !== undefined && (await queueExists(executor, queue))) return options.id;
    throw new Error(`job queue ${queue} does not exist; it was not staged`);
  };
}

function createJobsStager(boss: PgBoss, queueExists: QueueCheck): StageJobs {
  return async (executor, queue, jobs) => {
    if (jobs.length === 0) return;
    if (!(await queueExists(executor, queue))) {
      throw new Error(`job queue ${queue} does not exist; ${jobs.length} jobs were not staged`);
    }
    await boss.insert(jobs.map((job) => ({ name: queue, ...job })), { db: executorDb(executor) });
  };
}

// A row of pgboss.schedule; pg-boss's Schedule type leaves out the time zone.
type StoredSchedule = PgBoss.Schedule & { timezone?: string };

// A stored schedule is the one schedule() would write for the definition: same cron, time zone
// (pg-boss's default, UTC), data and options.
function scheduleCurrent(stored: StoredSchedule | undefined, definition: JobDefinition<never>) {
  return stored !== undefined && stored.cron === definition.cron && stored.timezone === 'UTC' &&
    isDeepStrictEqual(stored.data, {}) && isDeepStrictEqual(stored.options, definition.options);
}

// True when every queue exists and, in worker processes, every schedule is current: what all
// but the first start of a database find, in two queries, without the lock and its connection.
async function queuesCurrent(
  boss: PgBoss,
  options: JobsOptions,
  definitions: JobDefinition<never>[],
): Promise<boolean> {
  const queues = new Set((await boss.getQueues()).map((queue) => queue.name));
  if (!definitions.every((definition) => queues.has(definition.queue))) return false;
  const scheduled = definitions.filter((definition) => definition.cron !== undefined);
  if (!options.workersEnabled || scheduled.length === 0) return true;
  const stored: StoredSchedule[] = await boss.getSchedules();
  const schedules = new Map(stored.map((schedule) => [schedule.name, schedule]));
  return scheduled.every((definition) =>
    scheduleCurrent(schedules.get(definition.queue), definition));
}

// Creates the queues and schedules. Processes that start together take turns under an advisory
// lock, and a queue that exists is left alone, since creating one is DDL. Another process's
// pg-boss maintenance can still collide with that DDL on a brand-new database, so a deadlock is
// retried a bounded number of times.
async function setUpQueues(
  boss: PgBoss,
  options: JobsOptions,
  definitions: JobDefinition<never>[],
) {
  if (await queuesCurrent(boss, options, definitions)) return;
  const createAndSchedule = async () => {
    for (const definition of definitions) {
      if (!(await boss.getQueue(definition.queue))) {
        await boss.createQueue(definition.queue, { name: definition.queue, ...definition.options });
      }
      if (options.workersEnabled && definition.cron) {
        await boss.schedule(definition.queue, definition.cron, {}, definition.options);
      }
    }
  };
  await retryingDeadlocks(
    () => withAdvisoryLock(options.pool, ADVISORY_LOCKS.jobQueues, createAndSchedule),
    { attemptsMax: QUEUE_SETUP_ATTEMPTS_MAX, delayMs: QUEUE_SETUP_RETRY_DELAY_MS },
  );
}

// pg-boss waits the polling interval after every fetch, even one that came back full, so a
// worker would drain a backlog at `batchSize` jobs per interval however fast the work is. A full
// fetch means more jobs are likely waiting: the worker is told to fetch again at once instead.
async function startWorker(boss: PgBoss, definition: JobDefinition<never>, log: Logger) {
  const batchSize = definition.batchSize ?? 1;
  const worker: { id?: string } = {};
  const resumeAfterSeconds = definition.resumeAfterRetriesSeconds;
  worker.id = await boss.work(
    definition.queue,
    {
      batchSize,
      pollingIntervalSeconds:
        definition.pollingIntervalSeconds ?? DEFAULT_POLLING_INTERVAL_SECONDS,
      // Each job's retry count, to tell its last try.
      includeMetadata: resumeAfterSeconds !== undefined,
    },
    async (jobs) => {
      if (jobs.length >= batchSize && worker.id !== undefined) boss.notifyWorker(worker.id);
      try {
        await definition.work(jobs as never);
      } catch (error) {
        if (resumeAfterSeconds !== undefined) {
          await resumeSpentJobs(boss, definition.queue, jobs as PgBoss.JobWithMetadata[],
            { resumeAfterSeconds, error, log });
        }
        throw error;
      }
    },
  );
}

// The jobs of a failed fetch that had their last try, staged again to start later (see
// JobDefinition.resumeAfterRetriesSeconds). If this process dies before pg-boss records the
// failure, the job expires and runs once more, and may be resumed twice: the work is safe to
// run again.
async function resumeSpentJobs(boss: PgBoss, queue: string, jobs: PgBoss.JobWithMetadata[],
  context: { resumeAfterSeconds: number; error: unknown; log: Logger }) {
  const spent = jobs.filter((job) => job.retryCount >= job.retryLimit);
  if (spent.length === 0) return;
  const startAfter = new Date(Date.now() + context.resumeAfterSeconds * 1_000);
  await boss.insert(spent.map((job) => ({ name: queue, data: job.data as object, startAfter })));
  context.log.error({ err: context.error, queue, jobIds: spent.map((job) => job.id),
    resumeAt: startAfter.toISOString() }, 'jobs failed after their last retry; staged again');
}

// The queue handle exists before it starts, so services built before the workers can already
// stage jobs; start() creates the queues and, in worker processes, works them.
export function createJobs(options: JobsOptions): Jobs {
  const { workersEnabled, log } = options;
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    max: JOBS_POOL_MAX,
    schedule: workersEnabled,
    supervise: workersEnabled,
    migrate: true,
  });
  boss.on('error', (error) => log.error({ err: error }, 'job queue error'));
  const queueExists = createQueueCheck();
  let started = false;
  return {
    boss,
    stage: createJobStager(boss, queueExists),
    stageMany: createJobsStager(boss, queueExists),
    async start(definitions) {
      await boss.start();
      started = true;
      markPhase('jobs-started');
      await setUpQueues(boss, options, definitions);
      markPhase('queues');
      if (!workersEnabled) return;
      for (const definition of definitions) await startWorker(boss, definition, log);
      markPhase('workers');
    },
    async stop() {
      if (!started) return;
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
