import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { pollUntil } from '../helpers/poll.ts';

// Jobs staged in a transaction exist exactly when that transaction commits.

const QUEUE = 'test-staged';

describe('staging jobs in a transaction', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
    await app.jobs.boss.createQueue(QUEUE);
  });
  afterAll(async () => {
    await app?.close();
  });

  async function jobsInQueue(): Promise<unknown[]> {
    const result = await app.platform.database.pool.query(
      'select data from pgboss.job where name = $1 order by created_on',
      [QUEUE],
    );
    return result.rows.map((row) => row.data);
  }

  it('commits the job with the transaction', async () => {
    const id = await app.platform.database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      return app.jobs.stage(tx, QUEUE, { marker: 'committed', note: "it's $1 and $2" });
    });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await jobsInQueue()).toEqual([{ marker: 'committed', note: "it's $1 and $2" }]);
  });

  it('never leaves a job behind a rolled-back transaction', async () => {
    await expect(app.platform.database.db.transaction(async (tx) => {
      await app.jobs.stage(tx, QUEUE, { marker: 'rolled back' });
      throw new Error('abort');
    })).rejects.toThrow('abort');
    expect(await jobsInQueue()).toEqual([{ marker: 'committed', note: "it's $1 and $2" }]);
  });

  it('stages a job to start after a delay in seconds', async () => {
    const before = Date.now();
    const id = await app.jobs.stage(app.platform.database.db, QUEUE, { marker: 'later' },
      { startAfter: 3_600 });
    const result = await app.platform.database.pool.query(
      'select start_after from pgboss.job where id = $1', [id]);
    const startAfter = (result.rows[0].start_after as Date).getTime();
    expect(startAfter).toBeGreaterThanOrEqual(before + 3_599_000);
    expect(startAfter).toBeLessThanOrEqual(Date.now() + 3_601_000);
  });

  it('stages a job under a given id once, however often it is staged', async () => {
    const id = '0b7f3c1e-9a2d-5c4b-a8e6-1f2a3b4c5d6e';
    const db = app.platform.database.db;
    expect(await app.jobs.stage(db, QUEUE, { marker: 'once' }, { id })).toBe(id);
    // Again inside a transaction, where the embedded database serves no other connection.
    expect(await db.transaction((tx) => app.jobs.stage(tx, QUEUE, { marker: 'twice' }, { id })))
      .toBe(id);
    const result = await app.platform.database.pool.query(
      'select data from pgboss.job where id = $1', [id]);
    expect(result.rows.map((row) => row.data)).toEqual([{ marker: 'once' }]);
  });

  it('stages many jobs in one statement, with the transaction', async () => {
    await app.platform.database.db.transaction((tx) => app.jobs.stageMany(tx, QUEUE,
      [{ data: { marker: 'many 1' } }, { data: { marker: 'many 2' } }]));
    const markers = (await jobsInQueue()).map((data) => (data as { marker: string }).marker);
    expect(markers).toEqual(expect.arrayContaining(['many 1', 'many 2']));
    await expect(app.platform.database.db.transaction(async (tx) => {
      await app.jobs.stageMany(tx, QUEUE, [{ data: { marker: 'many rolled back' } }]);
      throw new Error('abort');
    })).rejects.toThrow('abort');
    expect(JSON.stringify(await jobsInQueue())).not.toContain('many rolled back');
    await expect(app.jobs.stageMany(app.platform.database.db, 'no-such-queue',
      [{ data: {} }])).rejects.toThrow(/does not exist/);
  });

  it('stages many jobs under given ids once each, to start at their own times', async () => {
    const ids = ['1b7f3c1e-9a2d-5c4b-a8e6-1f2a3b4c5d6e', '2b7f3c1e-9a2d-5c4b-a8e6-1f2a3b4c5d6e'];
    const later = new Date(Date.now() + 3_600_000);
    const db = app.platform.database.db;
    const jobs = [{ data: { marker: 'timed 1' }, id: ids[0]!, startAfter: later },
      { data: { marker: 'timed 2' }, id: ids[1]! }];
    await db.transaction((tx) => app.jobs.stageMany(tx, QUEUE, jobs));
    await db.transaction((tx) => app.jobs.stageMany(tx, QUEUE,
      jobs.map((job) => ({ ...job, data: { marker: 'again' } }))));
    const result = await app.platform.database.pool.query(
      'select id, data, start_after from pgboss.job where id = any($1) order by id', [ids]);
    expect(result.rows.map((row) => row.data)).toEqual([{ marker: 'timed 1' },
      { marker: 'timed 2' }]);
    expect((result.rows[0].start_after as Date).getTime()).toBe(later.getTime());
    expect((result.rows[1].start_after as Date).getTime()).toBeLessThan(later.getTime());
  });

  it('refuses to stage into a queue that does not exist', async () => {
    await expect(app.jobs.stage(app.platform.database.db, 'no-such-queue', {}))
      .rejects.toThrow(/does not exist/);
  });
});

describe('working a backlog', () => {
  const DRAIN_QUEUE = 'test-drain';
  // Far longer than the test may take: only fetching again at once finishes it in time.
  const POLLING_INTERVAL_SECONDS = 120;
  let app: TestApp;
  const worked: string[][] = [];

  beforeAll(async () => {
    app = await createTestApp({ jobs: true });
    await app.jobs.boss.createQueue(DRAIN_QUEUE);
    const db = app.platform.database.db;
    await db.transaction((tx) => app.jobs.stageMany(tx, DRAIN_QUEUE,
      Array.from({ length: 7 }, (_, index) => ({ data: { marker: `job ${index}` } }))));
    await app.jobs.start([{
      queue: DRAIN_QUEUE,
      options: {},
      batchSize: 3,
      pollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
      work: async (jobs: Array<{ data: { marker: string } }>) => {
        worked.push(jobs.map((job) => job.data.marker));
      },
    }] as never);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('fetches again at once after a full fetch, instead of waiting the polling interval',
    async () => {
      const done = await pollUntil(async () => worked.flat().length, (count) => count === 7);
      expect(done).toBe(7);
      // Two full fetches, then the rest; the worker then waits the interval, idle.
      expect(worked.map((batch) => batch.length)).toEqual([3, 3, 1]);
    });
});

describe('resuming a job whose retries are spent', () => {
  const RESUMED_QUEUE = 'test-resumed';
  let app: TestApp;
  let failing = true;
  const tries: string[] = [];
  const logged: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    app = await createTestApp({ jobs: true, env: { LOG_LEVEL: 'error' },
      logDestination: { write(line: string) {
        logged.push(JSON.parse(line) as Record<string, unknown>);
      } } });
    await app.jobs.boss.createQueue(RESUMED_QUEUE, { name: RESUMED_QUEUE, retryLimit: 1,
      retryDelay: 1 });
    await app.jobs.stage(app.platform.database.db, RESUMED_QUEUE, { marker: 'document' });
    await app.jobs.start([{
      queue: RESUMED_QUEUE,
      options: { retryLimit: 1, retryDelay: 1 },
      pollingIntervalSeconds: 0.5,
      resumeAfterRetriesSeconds: 1,
      work: async (jobs: Array<{ id: string; data: { marker: string } }>) => {
        tries.push(...jobs.map((job) => `${job.data.marker} ${failing ? 'failed' : 'done'}`));
        if (failing) throw new Error('the upstream is down');
      },
    }] as never);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('stages it again, logs it, and the work finishes once the failure is gone', async () => {
    // The first try and its one retry fail; the resumed copy fails too, then succeeds.
    await pollUntil(async () => tries.length, (count) => count >= 3,
      { attemptsMax: 400, intervalMs: 100 });
    failing = false;
    await pollUntil(async () => tries.at(-1), (last) => last === 'document done',
      { attemptsMax: 400, intervalMs: 100 });
    expect(tries.slice(0, 3)).toEqual(['document failed', 'document failed',
      'document failed']);
    expect(tries.filter((entry) => entry === 'document done')).toHaveLength(1);
    const resumed = logged.filter((line) => line.msg ===
      'jobs failed after their last retry; staged again');
    expect(resumed.length).toBeGreaterThanOrEqual(1);
    expect(resumed[0]).toMatchObject({ queue: RESUMED_QUEUE });
    // The job is completed just after its work returns.
    const states = await pollUntil(async () => Object.fromEntries((await app.platform.database
      .pool.query('select state, count(*)::int as count from pgboss.job where name = $1 ' +
        'group by 1', [RESUMED_QUEUE])).rows.map((row) => [row.state, row.count])),
    (found) => found.completed === 1, { attemptsMax: 100, intervalMs: 100 });
    expect(states).toMatchObject({ completed: 1 });
  }, 60_000);
});
