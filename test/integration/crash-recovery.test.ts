// A server process killed with SIGKILL under load loses nothing and leaves no drift.
// Method: one `etax serve` with workers, on PostgreSQL and Redis, with a sandbox bank that
// takes 10 s per call, so bulk holder lookups stay in flight with their points reserved.
// Before the kill, webhook deliveries are accepted and their first attempt fails, so each has
// its retry staged in pg-boss by the process that dies. Then:
// - right after the kill, the ledger sums to the posted balance and the open reservations of
//   the dead requests to the reserved balance, and nothing was charged;
// - after a restart those reservations stay held until their expiry (RESERVATION_TTL_MS at
//   its shortest, 60 s), then the expiry job returns every point;
// - every staged retry runs exactly once: each event reaches the receiver once more and is
//   answered 2xx exactly once, and its delivery is recorded as succeeded on attempt 2.
// Waiting out the TTL and the retry backoff (30 s) would make the test slow, so both are
// moved into the past in the database, as test/integration/reservation-expiry.test.ts does;
// the expiry job is then queued at once instead of at the next minute.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { EXPIRE_RESERVATIONS_QUEUE } from '../../src/platform/points/expire-job.ts';
import { auditBalance } from '../../src/platform/points/store.ts';
import { DELIVERY_QUEUE } from '../../src/areas/webhooks/recorder.ts';
import { startReceiver, type Receiver } from '../api/webhooks/harness.ts';
import { basicAuth } from '../helpers/app.ts';
import {
  CLUSTER_SKIP_REASON,
  clusterEnabled,
  startCluster,
  type Cluster,
  type CreatedAccount,
} from '../helpers/cluster.ts';
import { ledgerSnapshot } from '../helpers/ledger-audit.ts';
import { pollUntil } from '../helpers/poll.ts';

const IN_FLIGHT_LOOKUPS = 20;
const ACCOUNTS_PER_LOOKUP = 3;
const HOLDER_POINTS = 50;
const EVENT_COUNT = 5;
const RESERVATION_TTL_MS = 60_000; // The shortest the configuration allows.
const SERVER_ENV = {
  RESERVATION_TTL_MS: String(RESERVATION_TTL_MS),
  // Every bank call takes 10 s, so lookups are still waiting when the process dies. A bulk
  // lookup may take 5 rounds × 11 s, which must stay below the TTL (src/config.ts).
  BANK_SANDBOX_LATENCY_MS: '10000',
  BANK_LOOKUP_TIMEOUT_MS: '11000',
  // The webhook receiver listens on loopback.
  WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true',
};
// The expiry job polls every 10 s and deliveries every second; this bounds the wait at 60 s.
const JOB_POLL = { attemptsMax: 240, intervalMs: 250 };

let cluster: Cluster | null = null;
let control: App | null = null;
let receiver: Receiver | null = null;
let account: CreatedAccount;

beforeAll(async () => {
  if (!clusterEnabled) return;
  cluster = await startCluster({ count: 1, env: SERVER_ENV });
  receiver = await startReceiver();
  // The test's own app, without workers, records events as an area would.
  control = await createApp(loadConfig({
    LOG_LEVEL: 'silent', REDIS_URL: undefined, WORKERS_ENABLED: 'false', ...cluster.database.env,
  }));
  await control.start();
  account = await cluster.createAccount();
});
afterAll(async () => {
  await control?.close();
  await receiver?.close();
  await cluster?.stop();
});

function post(path: string, body: unknown) {
  return fetch(`${cluster!.servers[0]!.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: basicAuth(account.keys.test), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await cluster!.assertions.pool.query(text, values)).rows as T[];
}

type DeliveryRow = { id: string; status: string; attempt_count: number };

function deliveries(): Promise<DeliveryRow[]> {
  return query<DeliveryRow>(
    'select id, status, attempt_count from webhook_deliveries order by id');
}

function reservationStatuses(): Promise<{ status: string; count: number }[]> {
  return query(`select status, count(*)::int as count from point_reservations
    where account_id = $1 group by status order by status`, [account.accountId]);
}

async function expectNoDrift() {
  const key = { accountId: account.accountId, environment: 'test' as const };
  const snapshot = await ledgerSnapshot(cluster!.assertions.db, account.accountId, 'test');
  const audit = await auditBalance(cluster!.assertions.db, key);
  expect(audit.ledgerPoints).toBe(snapshot.postedPoints);
  expect(audit.openReservedPoints).toBe(snapshot.reservedPoints);
  return snapshot;
}

// Deliveries whose first attempt failed, with their retry staged by the server's worker.
async function stageFailedDeliveries(): Promise<void> {
  const created = await post('/v1/webhookEndpoints',
    { url: receiver!.url, events: ['TAX_INVOICE_ISSUANCE_SUCCESS'] });
  expect(created.status).toBe(201);
  receiver!.answers.push(...Array.from({ length: EVENT_COUNT }, () => ({ status: 500 })));
  const scope = { accountId: account.accountId, environment: 'test' as const };
  for (let index = 0; index < EVENT_COUNT; index += 1) {
    await control!.webhooks.recordEvent(control!.platform.database.db, scope, {
      type: 'TAX_INVOICE_ISSUANCE_SUCCESS',
      data: { issuanceKey: `iss_${index}`, taxInvoiceUrl: `https://example.com/i/${index}` },
    });
  }
  const retrying = await pollUntil(deliveries, (rows) => rows.length === EVENT_COUNT &&
    rows.every((row) => row.attempt_count === 1), JOB_POLL);
  expect(retrying.map((row) => [row.status, row.attempt_count]))
    .toEqual(Array(EVENT_COUNT).fill(['pending', 1]));
}

// Bulk lookups that reserve their points and then wait on the slow sandbox bank.
async function startLookupsInFlight(): Promise<Promise<unknown>[]> {
  const accounts = Array.from({ length: ACCOUNTS_PER_LOOKUP }, (_, index) =>
    ({ bankCode: '004', accountNumber: `123-456-78901${index}` }));
  const lookups = Array.from({ length: IN_FLIGHT_LOOKUPS }, () =>
    post('/v1/bankAccountHolders:bulkInquire', { accounts }).then(
      (response) => response.status, (error: unknown) => error));
  const held = await pollUntil(reservationStatuses,
    (rows) => rows.some((row) => row.status === 'reserved' && row.count === IN_FLIGHT_LOOKUPS));
  expect(held).toEqual([{ status: 'reserved', count: IN_FLIGHT_LOOKUPS }]);
  return lookups;
}

describe.skipIf(!clusterEnabled)(`killing a server under load (${CLUSTER_SKIP_REASON})`, () => {
  it('leaves no drift, returns the dead requests\' points after expiry and runs every staged '
    + 'delivery exactly once', async () => {
    const initial = await expectNoDrift();
    await stageFailedDeliveries();
    const lookups = await startLookupsInFlight();

    await cluster!.kill(0);
    const outcomes = await Promise.all(lookups);
    // Every lookup was cut off: none got an answer, so none was charged.
    expect(outcomes.every((outcome) => outcome instanceof Error)).toBe(true);
    const reservedPoints = IN_FLIGHT_LOOKUPS * ACCOUNTS_PER_LOOKUP * HOLDER_POINTS;
    expect(await expectNoDrift()).toEqual({ ...initial, reservedPoints });

    await cluster!.restart(0);
    // Held until their expiry, which lies a TTL after they were made.
    const held = await query<{ status: string; ttl_ms: number; due: boolean }>(`
      select status, (extract(epoch from expires_at - created_at) * 1000)::int as ttl_ms,
        expires_at <= now() as due
      from point_reservations where account_id = $1`, [account.accountId]);
    expect(new Set(held.map((row) => JSON.stringify(row)))).toEqual(new Set([JSON.stringify(
      { status: 'reserved', ttl_ms: RESERVATION_TTL_MS, due: false })]));

    // Time passes: the reservations expire, and the retries come due.
    await cluster!.assertions.db.execute(sql`update point_reservations
      set expires_at = now() - interval '1 second' where account_id = ${account.accountId}`);
    await cluster!.assertions.db.execute(sql`update pgboss.job set start_after = now()
      where name = ${DELIVERY_QUEUE} and state = 'created'`);
    await control!.jobs.boss.send(EXPIRE_RESERVATIONS_QUEUE, {});

    const expired = await pollUntil(reservationStatuses,
      (rows) => rows.length === 1 && rows[0]!.status === 'expired', JOB_POLL);
    expect(expired).toEqual([{ status: 'expired', count: IN_FLIGHT_LOOKUPS }]);
    expect(await expectNoDrift()).toEqual(initial);

    const delivered = await pollUntil(deliveries,
      (rows) => rows.every((row) => row.status === 'succeeded'), JOB_POLL);
    expect(delivered.map((row) => [row.status, row.attempt_count]))
      .toEqual(Array(EVENT_COUNT).fill(['succeeded', 2]));
    const pendingJobs = await query(`select id from pgboss.job where name = $1
      and state in ('created', 'retry', 'active')`, [DELIVERY_QUEUE]);
    expect(pendingJobs).toEqual([]);
    // Each delivery reached the receiver twice: the failed attempt before the kill and the
    // retry after the restart, never a third time.
    const perDelivery = new Map<string, number>();
    for (const { headers } of receiver!.received) {
      const id = String(headers['etax-delivery-id']);
      perDelivery.set(id, (perDelivery.get(id) ?? 0) + 1);
    }
    expect(Object.fromEntries(perDelivery)).toEqual(
      Object.fromEntries(delivered.map((row) => [row.id, 2])));
  });
});
