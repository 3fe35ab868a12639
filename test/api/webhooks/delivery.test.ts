// Webhook delivery end to end against a real HTTP receiver on 127.0.0.1 (docs/webhooks.md), which
// WEBHOOK_PRIVATE_TARGETS_ALLOWED lets endpoints target: signed POSTs that verify with the
// endpoint's secret (both secrets during a rotation), retries after 5xx answers, timeouts and
// redirects on the documented schedule, refusal of an address embedding IPv4 when DNS changes
// after creation, one error message for every attempt that got no answer (no port oracle),
// nothing delivered for a rolled-back transaction, and fan-out only within one account and
// environment. Workers are off: each test works the queued jobs by hand with a manual clock, so
// nothing sleeps through a retry delay. delivery-targets.test.ts has the default settings.
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_ANSWER_ERROR } from '../../../src/areas/webhooks/deliver.ts';
import {
  DELIVERY_ATTEMPTS_MAX,
  RETRY_DELAYS_SECONDS,
} from '../../../src/areas/webhooks/retry-schedule.ts';
import { verifyWebhookSignature } from '@etax/sdk';
import {
  clearDeliveryJobs,
  createEndpoint as createWebhookEndpoint,
  createFakeDns,
  createManualClock,
  ISSUANCE_SUCCESS,
  queuedDeliveryJobs,
  RECEIVER_ON_LOOPBACK,
  recordEvent,
  request,
  workQueuedDeliveries,
  type Receiver,
  type WebhookTestApp,
  useWebhookApp,
  useReceiver,
} from './harness.ts';

const TIMEOUT_MS = 300;
const PUBLIC_ADDRESS = '93.184.215.14';

let app: WebhookTestApp;
let receiver: Receiver;
const dns = createFakeDns();
const clock = createManualClock();

useWebhookApp({
  env: { ...RECEIVER_ON_LOOPBACK, WORKERS_ENABLED: 'false',
    WEBHOOK_DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS) },
  // Jitter at its midpoint, so each retry comes exactly its documented delay later.
  webhooks: { now: clock.now, random: () => 0.5, resolveHost: dns.resolveHost },
}, (made) => {
  app = made;
});
useReceiver((made) => {
  receiver = made;
});
beforeEach(async () => {
  clock.setTo(new Date());
  await clearDeliveryJobs(app);
});

type Account = Awaited<ReturnType<WebhookTestApp['createAccount']>>;

function createEndpoint(key: string, url = receiver.url, events?: string[]) {
  return createWebhookEndpoint(app, key,
    { url, events: events ?? ['TAX_INVOICE_ISSUANCE_SUCCESS'] });
}

function record(account: Account, environment: 'test' | 'live' = 'test') {
  return recordEvent(app, { accountId: account.accountId, environment });
}

async function deliveries(key: string, endpointId: string) {
  const response = await request(app, key, 'GET', `/v1/webhookEndpoints/${endpointId}/deliveries`);
  expect(response.statusCode).toBe(200);
  return response.json().results as Array<Record<string, unknown> & {
    attempts: Array<Record<string, unknown>>;
  }>;
}

describe('signatures', () => {
  it('POSTs the event with its id and type headers and a signature the secret verifies',
    async () => {
      const account = await app.createAccount();
      const endpoint = await createEndpoint(account.keys.test);
      const event = await record(account);
      expect(await workQueuedDeliveries(app)).toEqual(['succeeded']);

      expect(receiver.received).toHaveLength(1);
      const [delivered] = receiver.received;
      expect(delivered!.method).toBe('POST');
      expect(delivered!.path).toBe('/hooks');
      expect(delivered!.headers['content-type']).toBe('application/json');
      expect(delivered!.headers['etax-event-id']).toBe(event.id);
      expect(delivered!.headers['etax-event-type']).toBe('TAX_INVOICE_ISSUANCE_SUCCESS');
      expect(JSON.parse(delivered!.body)).toEqual({
        id: event.id, type: ISSUANCE_SUCCESS.type, eventType: ISSUANCE_SUCCESS.type,
        createdAt: expect.any(String), data: ISSUANCE_SUCCESS.data,
      });
      const header = String(delivered!.headers['etax-signature']);
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(header.startsWith(`t=${Math.floor(clock.now().getTime() / 1000)},`)).toBe(true);
      const check = { payload: delivered!.body, header, now: clock.now() };
      expect(verifyWebhookSignature({ ...check, secrets: endpoint.secret })).toBe(true);
      expect(verifyWebhookSignature({ ...check, secrets: 'whsec_wrong' })).toBe(false);

      const [logged] = await deliveries(account.keys.test, endpoint.id);
      expect(logged).toMatchObject({
        eventId: event.id, status: 'succeeded', attemptCount: 1, lastResponseStatus: 200,
        nextAttemptAt: null, lastError: null,
      });
      expect(logged!.attempts).toEqual([expect.objectContaining({
        attemptNumber: 1, outcome: 'succeeded', responseStatus: 200, error: null,
      })]);
    });

  it('signs with both secrets while a rotation overlaps, then with the new one only',
    async () => {
      const account = await app.createAccount();
      const { id, secret: oldSecret } = await createEndpoint(account.keys.test);
      const rotated = await request(app, account.keys.test, 'POST',
        `/v1/webhookEndpoints/${id}:rotateSecret`, { overlapSeconds: 3600 });
      expect(rotated.statusCode).toBe(200);
      const newSecret = rotated.json().secret as string;
      expect(newSecret).not.toBe(oldSecret);

      await record(account);
      await workQueuedDeliveries(app);
      const during = receiver.received[0]!;
      const duringHeader = String(during.headers['etax-signature']);
      expect(duringHeader).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      for (const secret of [oldSecret, newSecret]) {
        expect(verifyWebhookSignature({
          payload: during.body, header: duringHeader, secrets: secret, now: clock.now(),
        })).toBe(true);
      }

      clock.advanceMs(2 * 3600 * 1000);
      await record(account);
      await workQueuedDeliveries(app);
      const after = receiver.received[1]!;
      const afterHeader = String(after.headers['etax-signature']);
      expect(afterHeader).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const afterCheck = { payload: after.body, header: afterHeader, now: clock.now() };
      expect(verifyWebhookSignature({ ...afterCheck, secrets: newSecret })).toBe(true);
      expect(verifyWebhookSignature({ ...afterCheck, secrets: oldSecret })).toBe(false);
    });
});

describe('retries', () => {
  it('retries a 500 on the documented schedule and fails after the last attempt', async () => {
    const account = await app.createAccount();
    const endpoint = await createEndpoint(account.keys.test);
    receiver.answers.push(...Array.from({ length: DELIVERY_ATTEMPTS_MAX }, () => ({
      status: 500 })));
    await record(account);

    const expectedDelaysMs: number[] = [];
    for (let attemptNumber = 1; attemptNumber <= DELIVERY_ATTEMPTS_MAX; attemptNumber += 1) {
      const jobs = await queuedDeliveryJobs(app);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]!.data.attemptNumber).toBe(attemptNumber);
      if (attemptNumber > 1) {
        // The job waits exactly the schedule's delay after the failed attempt's clock time.
        expectedDelaysMs.push(RETRY_DELAYS_SECONDS[attemptNumber - 2]! * 1000);
        expect(jobs[0]!.startAfter.getTime() - clock.now().getTime())
          .toBe(expectedDelaysMs.at(-1));
        clock.setTo(jobs[0]!.startAfter);
      }
      const expected = attemptNumber === DELIVERY_ATTEMPTS_MAX ? 'failed' : 'retrying';
      expect(await workQueuedDeliveries(app)).toEqual([expected]);
    }

    expect(await queuedDeliveryJobs(app)).toEqual([]);
    expect(receiver.received).toHaveLength(DELIVERY_ATTEMPTS_MAX);
    const [logged] = await deliveries(account.keys.test, endpoint.id);
    expect(logged).toMatchObject({
      status: 'failed', attemptCount: DELIVERY_ATTEMPTS_MAX, lastResponseStatus: 500,
      nextAttemptAt: null, completedAt: expect.any(String),
      lastError: 'The receiver answered HTTP 500.',
    });
    expect(logged!.attempts.map((attempt) => attempt.responseStatus))
      .toEqual(Array(DELIVERY_ATTEMPTS_MAX).fill(500));
    // About a day from the first attempt to the last.
    const totalHours = expectedDelaysMs.reduce((sum, delay) => sum + delay, 0) / 3_600_000;
    expect(totalHours).toBeGreaterThan(20);
    expect(totalHours).toBeLessThan(26);
  });

  it('retries a receiver that does not answer within the timeout, then succeeds', async () => {
    const account = await app.createAccount();
    const endpoint = await createEndpoint(account.keys.test);
    receiver.answers.push({ status: 200, delayMs: TIMEOUT_MS * 10 });
    await record(account);
    expect(await workQueuedDeliveries(app)).toEqual(['retrying']);
    const [job] = await queuedDeliveryJobs(app);
    expect(job!.startAfter.getTime() - clock.now().getTime()).toBe(RETRY_DELAYS_SECONDS[0] * 1000);
    clock.setTo(job!.startAfter);
    expect(await workQueuedDeliveries(app)).toEqual(['succeeded']);

    const [logged] = await deliveries(account.keys.test, endpoint.id);
    expect(logged).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(logged!.attempts).toEqual([
      expect.objectContaining({ attemptNumber: 1, outcome: 'failed', responseStatus: null,
        error: NO_ANSWER_ERROR }),
      expect.objectContaining({ attemptNumber: 2, outcome: 'succeeded', responseStatus: 200 }),
    ]);
  });

  it('does not follow a redirect: a 302 is a failed attempt and the target is never asked',
    async () => {
      const account = await app.createAccount();
      const endpoint = await createEndpoint(account.keys.test);
      receiver.answers.push({ status: 302, headers: { location: '/elsewhere' } });
      await record(account);
      expect(await workQueuedDeliveries(app)).toEqual(['retrying']);
      expect(receiver.received.map((received) => received.path)).toEqual(['/hooks']);
      const [logged] = await deliveries(account.keys.test, endpoint.id);
      expect(logged).toMatchObject({ status: 'pending', lastResponseStatus: 302,
        lastError: 'The receiver answered HTTP 302.' });
    });

  it('cancels a pending retry when the endpoint is disabled', async () => {
    const account = await app.createAccount();
    const endpoint = await createEndpoint(account.keys.test);
    receiver.answers.push({ status: 503 });
    await record(account);
    expect(await workQueuedDeliveries(app)).toEqual(['retrying']);
    const disabled = await request(app, account.keys.test, 'PATCH',
      `/v1/webhookEndpoints/${endpoint.id}`, { enabled: false });
    expect(disabled.statusCode).toBe(200);
    expect(await workQueuedDeliveries(app)).toEqual(['canceled']);
    expect(receiver.received).toHaveLength(1);
    const [logged] = await deliveries(account.keys.test, endpoint.id);
    expect(logged).toMatchObject({ status: 'canceled', attemptCount: 1 });
  });
});

describe('jobs that run twice or late', () => {
  it('records an attempt once when its job runs twice, even at the same time', async () => {
    const account = await app.createAccount();
    const endpoint = await createEndpoint(account.keys.test);
    receiver.answers.push({ status: 500 }, { status: 500 });
    await record(account);
    const [job] = await queuedDeliveryJobs(app);
    await app.platform.database.pool.query('delete from pgboss.job where id = $1', [job!.id]);
    const results = await Promise.all([
      app.webhooks.deliverer.runAttempt(job!.data),
      app.webhooks.deliverer.runAttempt(job!.data),
    ]);
    expect(results.sort()).toEqual(['retrying', 'skipped']);
    expect(await app.webhooks.deliverer.runAttempt(job!.data)).toBe('skipped');
    const queued = await queuedDeliveryJobs(app);
    expect(queued.map((queuedJob) => queuedJob.data.attemptNumber)).toEqual([2]);
    const [logged] = await deliveries(account.keys.test, endpoint.id);
    expect(logged).toMatchObject({ status: 'pending', attemptCount: 1 });
    expect(logged!.attempts).toHaveLength(1);
  });

  it('sends nothing for a delivery whose endpoint was deleted', async () => {
    const account = await app.createAccount();
    const endpoint = await createEndpoint(account.keys.test);
    await record(account);
    const deleted = await request(app, account.keys.test, 'DELETE',
      `/v1/webhookEndpoints/${endpoint.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(await workQueuedDeliveries(app)).toEqual(['skipped']);
    expect(receiver.received).toEqual([]);
  });
});

describe('security', () => {
  it('refuses to connect when an endpoint\'s host later resolves to loopback as IPv4-mapped ' +
    'IPv6, which the setting does not allow', async () => {
    const account = await app.createAccount();
    dns.hosts.set('hooks.example.test', [PUBLIC_ADDRESS]);
    const url = `http://hooks.example.test:${receiver.port}/hooks`;
    const endpoint = await createEndpoint(account.keys.test, url);
    // DNS rebinding: the name now points at the receiver, through a dual-stack socket.
    dns.hosts.set('hooks.example.test', ['::ffff:127.0.0.1']);
    await record(account);
    expect(await workQueuedDeliveries(app)).toEqual(['retrying']);
    expect(receiver.received).toEqual([]);
    const [logged] = await deliveries(account.keys.test, endpoint.id);
    expect(logged).toMatchObject({ status: 'pending', lastResponseStatus: null,
      lastError: NO_ANSWER_ERROR });
  });

  describe('one message for every attempt that got no answer', () => {
    const servers: net.Server[] = [];
    const sockets = new Set<net.Socket>();

    // A TCP server on loopback that handles each connection its own way; its port.
    async function tcpServer(onConnection: (socket: net.Socket) => void) {
      const server = net.createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {});
        onConnection(socket);
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    }

    async function closedPort() {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      await new Promise((resolve) => server.close(resolve));
      return port;
    }

    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    });

    it('is the same for a closed port, another protocol, a silent port, a TLS failure and a ' +
      'refused address', async () => {
      const banner = await tcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
      const redisLike = await tcpServer((socket) => socket.once('data', () =>
        socket.end('-ERR unknown command \'POST\'\r\n')));
      const silent = await tcpServer(() => {});
      const account = await app.createAccount();
      const targets: Array<['test' | 'live', string]> = [
        ['test', `http://127.0.0.1:${await closedPort()}/hooks`],
        ['test', `http://127.0.0.1:${banner}/hooks`],
        ['test', `http://127.0.0.1:${redisLike}/hooks`],
        ['test', `http://127.0.0.1:${silent}/hooks`],
        // The receiver speaks plain HTTP, so the TLS handshake fails.
        ['live', `https://127.0.0.1:${receiver.port}/hooks`],
      ];
      const endpoints = [];
      for (const [environment, url] of targets) {
        const endpoint = await createEndpoint(account.keys[environment], url);
        endpoints.push({ environment, url, ...endpoint });
      }
      // Metadata: saved while its name looked public, refused at delivery.
      dns.hosts.set('metadata.example.test', [PUBLIC_ADDRESS]);
      endpoints.push({ environment: 'test' as const, url: 'metadata',
        ...await createEndpoint(account.keys.test, 'http://metadata.example.test/latest') });
      dns.hosts.set('metadata.example.test', ['169.254.169.254']);

      await record(account);
      await record(account, 'live');
      expect(await workQueuedDeliveries(app)).toEqual(endpoints.map(() => 'retrying'));
      for (const endpoint of endpoints) {
        const [logged] = await deliveries(account.keys[endpoint.environment], endpoint.id);
        expect(logged, endpoint.url).toMatchObject({ lastResponseStatus: null,
          lastError: NO_ANSWER_ERROR });
        expect(logged!.attempts, endpoint.url).toEqual([expect.objectContaining({
          outcome: 'failed', responseStatus: null, error: NO_ANSWER_ERROR })]);
      }
      expect(receiver.received).toEqual([]);
    });
  });

  it('never queues or delivers an event whose transaction rolled back', async () => {
    const account = await app.createAccount();
    await createEndpoint(account.keys.test);
    const scope = { accountId: account.accountId, environment: 'test' as const };
    await expect(app.platform.database.db.transaction(async (tx) => {
      await app.webhooks.recordEvent(tx, scope, ISSUANCE_SUCCESS);
      throw new Error('the change failed');
    })).rejects.toThrow('the change failed');

    expect(await queuedDeliveryJobs(app)).toEqual([]);
    expect(await workQueuedDeliveries(app)).toEqual([]);
    expect(receiver.received).toEqual([]);
    const events = await request(app, account.keys.test, 'GET', '/v1/webhookEvents');
    expect(events.json().results).toEqual([]);
  });

  it('delivers an event only to the subscribed, enabled endpoints of its account and ' +
    'environment', async () => {
    const account = await app.createAccount();
    const other = await app.createAccount();
    dns.hosts.set('hooks.example.test', [PUBLIC_ADDRESS]);
    const own = await createEndpoint(account.keys.test);
    const live = await createEndpoint(account.keys.live, 'https://hooks.example.test/hooks');
    const foreign = await createEndpoint(other.keys.test);
    const unsubscribed = await createEndpoint(account.keys.test, receiver.url,
      ['TAX_INVOICE_ISSUANCE_FAILURE']);
    const disabled = await createEndpoint(account.keys.test);
    await request(app, account.keys.test, 'PATCH', `/v1/webhookEndpoints/${disabled.id}`,
      { enabled: false });

    await record(account);
    expect(await workQueuedDeliveries(app)).toEqual(['succeeded']);
    expect(await deliveries(account.keys.test, own.id)).toHaveLength(1);
    expect(await deliveries(account.keys.live, live.id)).toEqual([]);
    expect(await deliveries(other.keys.test, foreign.id)).toEqual([]);
    expect(await deliveries(account.keys.test, unsubscribed.id)).toEqual([]);
    expect(await deliveries(account.keys.test, disabled.id)).toEqual([]);
  });
});
