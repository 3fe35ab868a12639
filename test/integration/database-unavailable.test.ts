// A database that cannot be reached is an internal communication failure: every operation
// answers 503 SERVICE_UNAVAILABLE in the error shape (never 500) and charges nothing, and the
// server recovers by itself once the database is back. The test puts a TCP proxy between the
// server and PostgreSQL and cuts it.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertProfileRow } from '../../src/areas/businesses/profiles/store.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';

const LIVE_NUMBER = '1208147521';

// Forwards connections to PostgreSQL until cut; reopens on the same port.
function createCuttableProxy(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  function open(): Promise<number> {
    server = net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    return new Promise((resolve) => server!.listen(port, '127.0.0.1', () => {
      port = (server!.address() as net.AddressInfo).port;
      resolve(port);
    }));
  }
  async function cut() {
    const closed = new Promise((resolve) => server!.close(resolve));
    for (const socket of sockets) socket.destroy();
    await closed;
  }
  return { open, cut };
}

describe.skipIf(!usingPostgres)('when the database cannot be reached', () => {
  let database: TestDatabase;
  let app: TestApp;
  let proxy: ReturnType<typeof createCuttableProxy>;
  let liveKey: string;
  let accountId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const url = new URL(database.env.DATABASE_URL!);
    proxy = createCuttableProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.port = String(await proxy.open());
    app = await createTestApp({ env: { DATABASE_URL: url.toString() } });
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

  it('answers 503 SERVICE_UNAVAILABLE, charges nothing, and recovers', async () => {
    expect((await retrieve()).statusCode).toBe(200);
    await proxy.cut();
    for (const response of [
      await retrieve(),
      await app.server.inject({
        method: 'GET', url: '/v1/points', headers: { authorization: basicAuth(liveKey) },
      }),
    ]) {
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: expect.any(String),
        traceId: response.headers['trace-id'],
      });
    }
    await proxy.open();
    expect((await retrieve()).statusCode).toBe(200);
    const balance = await app.platform.points.getBalance({ accountId, environment: 'live' });
    expect(balance).toEqual({ balance: 1_000 - 2 * 90, reserved: 0, available: 1_000 - 2 * 90 });
  });
});
