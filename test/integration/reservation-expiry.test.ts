// Reservations that outlive their expiry are released by the pg-boss job, never charged: the job
// is scheduled, runs through pg-boss's own queue, expires only due reservations, returns their
// points to the available balance, and a late capture of an expired reservation charges nothing.
import { and, eq, inArray, sql } from 'drizzle-orm';
import pino from 'pino';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pointLedgerEntries, pointReservations } from '../../src/platform/db/tables.ts';
import {
  EXPIRE_RESERVATIONS_CRON,
  EXPIRE_RESERVATIONS_QUEUE,
  expireReservationsJob,
} from '../../src/platform/points/expire-job.ts';
import {
  EXPIRY_BATCH_SIZE,
  type PointsService,
  type Reservation,
} from '../../src/platform/points/service.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectLedgerConsistent } from '../helpers/ledger-audit.ts';
import { pollUntil as pollUntilDone } from '../helpers/poll.ts';

const OPERATION = 'businesses.profiles.retrieve';
const RETRIEVAL_POINTS = 90;
// The worker polls every 10 s and the embedded database answers one query at a time, so the job
// may take a while to be picked up; 240 probes 250 ms apart bound the wait without timing it.
const JOB_POLL = { attemptsMax: 240, intervalMs: 250 };
const JOB_TEST_TIMEOUT_MS = 120_000;

const silentLog = pino({ level: 'silent' });

const pollUntil = <T>(probe: () => Promise<T>, done: (value: T) => boolean) =>
  pollUntilDone(probe, done, JOB_POLL);

function helpersFor(getApp: () => TestApp) {
  async function accountWithLivePoints(points: number): Promise<string> {
    return (await getApp().createLiveBalance(points)).accountId;
  }
  function reserve(accountId: string): Promise<Reservation> {
    return getApp().platform.points.reserve({
      accountId,
      environment: 'live',
      operation: OPERATION,
      points: RETRIEVAL_POINTS,
    });
  }
  // Moves reservations' expiry into the past, as if their TTL had run out.
  async function backdate(reservations: Reservation[]) {
    const ids = reservations.map((reservation) => reservation.reservationId);
    await getApp()
      .platform.database.db.update(pointReservations)
      .set({ expiresAt: sql`now() - interval '1 minute'` })
      .where(inArray(pointReservations.id, ids));
  }
  async function statusesOf(reservations: Reservation[]): Promise<string[]> {
    const ids = reservations.map((reservation) => reservation.reservationId);
    const rows = await getApp()
      .platform.database.db.select({ id: pointReservations.id, status: pointReservations.status })
      .from(pointReservations)
      .where(inArray(pointReservations.id, ids))
      .limit(ids.length);
    const byId = new Map(rows.map((row) => [row.id, row.status]));
    return ids.map((id) => byId.get(id) ?? 'missing');
  }
  function liveBalance(accountId: string) {
    return getApp().platform.points.getBalance({ accountId, environment: 'live' });
  }
  async function liveLedgerEntryCount(accountId: string): Promise<number> {
    const rows = await getApp()
      .platform.database.db.select({ id: pointLedgerEntries.id })
      .from(pointLedgerEntries)
      .where(
        and(
          eq(pointLedgerEntries.accountId, accountId),
          eq(pointLedgerEntries.environment, 'live'),
        ),
      )
      .limit(1_000);
    return rows.length;
  }
  return {
    accountWithLivePoints,
    reserve,
    backdate,
    statusesOf,
    liveBalance,
    liveLedgerEntryCount,
  };
}

describe('the expiry job function', () => {
  function fakePoints(expiredCounts: number[]) {
    const expireStaleReservations = vi.fn(async () => expiredCounts.shift() ?? 0);
    const points = { expireStaleReservations } as unknown as PointsService;
    return { points, expireStaleReservations };
  }
  function fakeLog() {
    const info = vi.fn();
    return { log: { info } as unknown as Logger, info };
  }

  it('returns 0 after one batch and logs nothing when nothing is due', async () => {
    const { points, expireStaleReservations } = fakePoints([0]);
    const { log, info } = fakeLog();
    await expect(expireReservationsJob(points, log)()).resolves.toBe(0);
    expect(expireStaleReservations).toHaveBeenCalledTimes(1);
    expect(info).not.toHaveBeenCalled();
  });

  it('stops after the first batch that is not full and returns the total', async () => {
    const { points, expireStaleReservations } = fakePoints([
      EXPIRY_BATCH_SIZE,
      EXPIRY_BATCH_SIZE,
      7,
      EXPIRY_BATCH_SIZE,
    ]);
    const { log, info } = fakeLog();
    await expect(expireReservationsJob(points, log)()).resolves.toBe(2 * EXPIRY_BATCH_SIZE + 7);
    expect(expireStaleReservations).toHaveBeenCalledTimes(3);
    expect(info).toHaveBeenCalledTimes(1);
    expect(info.mock.calls[0]?.[0]).toEqual({ expiredTotal: 2 * EXPIRY_BATCH_SIZE + 7 });
  });

  it('stops after a bounded number of full batches, leaving the rest to the next run', async () => {
    const { points, expireStaleReservations } = fakePoints(Array(50).fill(EXPIRY_BATCH_SIZE));
    const total = await expireReservationsJob(points, fakeLog().log)();
    const batchCount = expireStaleReservations.mock.calls.length;
    expect(batchCount).toBeGreaterThan(1);
    expect(batchCount).toBeLessThan(50);
    expect(total).toBe(batchCount * EXPIRY_BATCH_SIZE);
  });
});

describe('expiring reservations without workers', () => {
  let app: TestApp;
  const helpers = helpersFor(() => app);

  beforeAll(async () => {
    // No workers, so nothing but the test itself expires reservations here.
    app = await createTestApp({ jobs: false });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('expires only due open reservations and returns how many it expired', async () => {
    const accountId = await helpers.accountWithLivePoints(1_000);
    const due = [await helpers.reserve(accountId), await helpers.reserve(accountId)];
    const open = await helpers.reserve(accountId);
    const captured = await helpers.reserve(accountId);
    await app.platform.points.capture({ reservation: captured, chargePoints: 40 });
    await helpers.backdate([...due, captured]);

    const expireReservations = expireReservationsJob(app.platform.points, silentLog);
    await expect(expireReservations()).resolves.toBe(2);
    await expect(expireReservations()).resolves.toBe(0);

    expect(await helpers.statusesOf([...due, open, captured])).toEqual([
      'expired',
      'expired',
      'reserved',
      'captured',
    ]);
    expect(await helpers.liveBalance(accountId)).toEqual({
      balance: 960,
      reserved: 90,
      available: 870,
    });
    await expectLedgerConsistent(app.platform, accountId, 'live');
  });

  it('expires due reservations of several accounts in one run', async () => {
    const accounts = [
      await helpers.accountWithLivePoints(500),
      await helpers.accountWithLivePoints(500),
    ];
    const due: Reservation[] = [];
    for (const accountId of accounts) due.push(await helpers.reserve(accountId));
    for (const accountId of accounts) due.push(await helpers.reserve(accountId));
    await helpers.backdate(due);

    await expect(app.platform.points.expireStaleReservations()).resolves.toBe(4);
    for (const accountId of accounts) {
      expect(await helpers.liveBalance(accountId)).toEqual({
        balance: 500,
        reserved: 0,
        available: 500,
      });
      await expectLedgerConsistent(app.platform, accountId, 'live');
    }
  });
});

// The tests wait for pg-boss to pick the job up, so they wait together. Each checks its own
// accounts' reservations, and a run of the job expires every due one, whoever sent it.
describe.concurrent('expiring reservations through pg-boss', () => {
  let app: TestApp;
  const helpers = helpersFor(() => app);

  beforeAll(async () => {
    app = await createTestApp({ jobs: true });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('schedules the expiry queue every minute', async () => {
    const schedules = await app.jobs.boss.getSchedules();
    expect(schedules).toContainEqual(
      expect.objectContaining({ name: EXPIRE_RESERVATIONS_QUEUE, cron: EXPIRE_RESERVATIONS_CRON }),
    );
  });

  it(
    'releases due reservations when the job runs, keeps open ones and charges nothing',
    async () => {
      const expiringAccount = await helpers.accountWithLivePoints(1_000);
      const mixedAccount = await helpers.accountWithLivePoints(1_000);
      const due = [
        await helpers.reserve(expiringAccount),
        await helpers.reserve(expiringAccount),
        await helpers.reserve(expiringAccount),
        await helpers.reserve(mixedAccount),
      ];
      const open = [await helpers.reserve(mixedAccount), await helpers.reserve(mixedAccount)];
      await helpers.backdate(due);

      const jobId = await app.jobs.boss.send(EXPIRE_RESERVATIONS_QUEUE, {});
      expect(jobId).toEqual(expect.any(String));
      const statuses = await pollUntil(
        () => helpers.statusesOf(due),
        (values) => values.every((status) => status === 'expired'),
      );
      expect(statuses).toEqual(['expired', 'expired', 'expired', 'expired']);
      const job = await pollUntil(
        () => app.jobs.boss.getJobById(EXPIRE_RESERVATIONS_QUEUE, jobId!),
        (value) => value?.state === 'completed',
      );
      expect(job?.state).toBe('completed');

      expect(await helpers.statusesOf(open)).toEqual(['reserved', 'reserved']);
      expect(await helpers.liveBalance(expiringAccount)).toEqual({
        balance: 1_000,
        reserved: 0,
        available: 1_000,
      });
      expect(await helpers.liveBalance(mixedAccount)).toEqual({
        balance: 1_000,
        reserved: 180,
        available: 820,
      });
      // Expiry writes no ledger entry: only the grants are there.
      expect(await helpers.liveLedgerEntryCount(expiringAccount)).toBe(1);
      await expectLedgerConsistent(app.platform, expiringAccount, 'live');
      await expectLedgerConsistent(app.platform, mixedAccount, 'live');
    },
    JOB_TEST_TIMEOUT_MS,
  );

  it(
    'returns alreadySettled and charges nothing when an expired reservation is captured',
    async () => {
      const accountId = await helpers.accountWithLivePoints(1_000);
      const reservation = await helpers.reserve(accountId);
      await helpers.backdate([reservation]);

      await app.jobs.boss.send(EXPIRE_RESERVATIONS_QUEUE, {});
      const [status] = await pollUntil(
        () => helpers.statusesOf([reservation]),
        (values) => values[0] === 'expired',
      );
      expect(status).toBe('expired');

      const points = app.platform.points;
      await expect(points.capture({ reservation, chargePoints: 90 })).resolves.toEqual({
        kind: 'alreadySettled',
      });
      await expect(points.release(reservation)).resolves.toEqual({ kind: 'alreadySettled' });
      expect(await helpers.statusesOf([reservation])).toEqual(['expired']);
      expect(await helpers.liveBalance(accountId)).toEqual({
        balance: 1_000,
        reserved: 0,
        available: 1_000,
      });
      expect(await helpers.liveLedgerEntryCount(accountId)).toBe(1);
      await expectLedgerConsistent(app.platform, accountId, 'live');
    },
    JOB_TEST_TIMEOUT_MS,
  );
});
