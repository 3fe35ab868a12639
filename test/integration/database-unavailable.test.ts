// A database that cannot be reached is an internal communication failure: every operation
// answers 503 SERVICE_UNAVAILABLE in the error shape (never 500) and charges nothing, and the
// server recovers by itself once the database is back. That holds before authentication too (a
// key that is not cached cannot be looked up), and for the hosted pages outside /v1, which
// answer an HTML page with status 503. /readyz answers 503 meanwhile and logs only when
// readiness changes. A transaction whose connection drops fails without taking the process
// down. The test puts a TCP proxy between the server and PostgreSQL and cuts it.
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/platform/db/unavailable.ts';
import { upsertProfileRow } from '../../src/areas/businesses/profiles/store.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { createCuttableProxy, proxiedUrl, targetOf, type CuttableProxy }
  from '../helpers/cuttable-proxy.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';
import { pollUntil } from '../helpers/poll.ts';

const LIVE_NUMBER = '1208147521';
// Well-formed keys and page tokens that nobody was given: looking them up needs the database.
const UNKNOWN_KEY = `live_${'A'.repeat(43)}`;
const UNKNOWN_TOKEN = 'B'.repeat(43);
const PAGES = [
  { method: 'GET' as const, url: `/certificate-registration/${UNKNOWN_TOKEN}` },
  { method: 'GET' as const, url: `/taxInvoices/issueRequests/approval/${UNKNOWN_TOKEN}` },
  { method: 'POST' as const, url: `/taxInvoices/issueRequests/approval/${UNKNOWN_TOKEN}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'decision=approve' },
];
const PROBES_PER_STATE = 5;

type LogLine = { level: number; msg: string };

describe.skipIf(!usingPostgres)('when the database cannot be reached', () => {
  let database: TestDatabase;
  let app: TestApp;
  let proxy: CuttableProxy;
  let liveKey: string;
  let accountId: string;
  const logLines: LogLine[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    proxy = createCuttableProxy(targetOf(database.env.DATABASE_URL!));
    const url = proxiedUrl(database.env.DATABASE_URL!, await proxy.open());
    const logDestination = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(JSON.parse(String(chunk)) as LogLine);
        done();
      },
    });
    app = await createTestApp({ env: { DATABASE_URL: url, LOG_LEVEL: 'info' }, logDestination });
    const account = await app.createAccount();
    accountId = account.accountId;
    liveKey = account.keys.live;
    await app.platform.points.grant({ accountId, environment: 'live', points: 1_000 });
    await upsertProfileRow(app.platform.database.db, {
      businessRegistrationNumber: LIVE_NUMBER,
      organizationName: '연결시험 주식회사',
    }, []);
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  const retrieve = () => app.server.inject({
    method: 'GET',
    url: `/v1/businessProfiles/${LIVE_NUMBER}`,
    headers: { authorization: basicAuth(liveKey) },
  });

  const getPoints = (key: string) => app.server.inject({
    method: 'GET', url: '/v1/points', headers: { authorization: basicAuth(key) },
  });

  const readyz = () => app.server.inject({ method: 'GET', url: '/readyz' });

  // Runs `work` with the database cut off, and reconnects it whatever happens.
  async function whileCut(work: () => Promise<void>) {
    await proxy.cut();
    try {
      await work();
    } finally {
      await proxy.open();
    }
  }

  function expectUnavailable(response: Awaited<ReturnType<typeof retrieve>>) {
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.any(String),
      traceId: response.headers['trace-id'],
    });
  }

  it('answers 503 SERVICE_UNAVAILABLE, charges nothing, and recovers', async () => {
    expect((await retrieve()).statusCode).toBe(200);
    await whileCut(async () => {
      expectUnavailable(await retrieve());
      expectUnavailable(await getPoints(liveKey));
    });
    expect((await retrieve()).statusCode).toBe(200);
    const balance = await app.platform.points.getBalance({ accountId, environment: 'live' });
    expect(balance).toEqual({ balance: 1_000 - 2 * 90, reserved: 0, available: 1_000 - 2 * 90 });
  });

  it('answers 503, not 401, to a key it cannot look up', async () => {
    expect((await getPoints(UNKNOWN_KEY)).statusCode).toBe(401);
    // The key cache remembers the unknown key for AUTH_CACHE_TTL_MS; another one is looked up.
    const otherUnknownKey = `live_${'C'.repeat(43)}`;
    await whileCut(async () => {
      const response = await getPoints(otherUnknownKey);
      expectUnavailable(response);
      expect(response.headers['www-authenticate']).toBeUndefined();
    });
    expect((await getPoints(otherUnknownKey)).statusCode).toBe(401);
  });

  it('answers the hosted pages with a 503 HTML page, not 500', async () => {
    for (const request of PAGES) {
      expect((await app.server.inject(request)).statusCode, request.url).toBe(404);
    }
    await whileCut(async () => {
      for (const request of PAGES) {
        const response = await app.server.inject(request);
        expect(response.statusCode, `${request.method} ${request.url}`).toBe(503);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.body).toContain('A temporary internal communication error occurred.');
        expect(response.headers['trace-id']).toMatch(/^[0-9a-f]{32}$/);
      }
    });
    for (const request of PAGES) {
      expect((await app.server.inject(request)).statusCode, request.url).toBe(404);
    }
  });

  it('answers /readyz 503 while cut off and logs each change of readiness once', async () => {
    expect((await readyz()).statusCode).toBe(200);
    const firstLine = logLines.length;
    await whileCut(async () => {
      for (let probe = 0; probe < PROBES_PER_STATE; probe += 1) expectUnavailable(await readyz());
    });
    const ready = await pollUntil(async () => (await readyz()).statusCode, (status) =>
      status === 200);
    expect(ready).toBe(200);
    for (let probe = 0; probe < PROBES_PER_STATE; probe += 1) {
      expect((await readyz()).statusCode).toBe(200);
    }
    const lines = logLines.slice(firstLine).map(({ level, msg }) => ({ level, msg }));
    expect(lines).toEqual([{ level: 40, msg: 'not ready' }, { level: 30, msg: 'ready again' }]);
  });

  it('fails a transaction whose connection drops, and the process carries on', async () => {
    // node-postgres emits the error of a checked-out client on the client itself; without a
    // listener it is an uncaught exception, which fails this run.
    const failed = await app.platform.database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await proxy.cut();
      return tx.execute(sql`select 1`).then(() => null, (error: unknown) => error);
    }).catch((error: unknown) => error);
    await proxy.open();
    expect(isDatabaseUnavailable(failed), String(failed)).toBe(true);
    const ready = await pollUntil(async () => (await readyz()).statusCode, (status) =>
      status === 200);
    expect(ready).toBe(200);
    expect((await retrieve()).statusCode).toBe(200);
  });
});
