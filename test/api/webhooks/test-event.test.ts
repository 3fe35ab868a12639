// POST /v1/webhookEndpoints/{endpointId}:test (docs/webhooks.md § Testing a receiver): a
// WEBHOOK_TEST event goes to that endpoint only, signed like every delivery, through the queued
// delivery job the worker runs; it is attempted once, shows in the endpoint's delivery log, is
// readable by its id but not listed, charges nothing, and is refused for a disabled endpoint
// and for an endpoint of another account or environment. A real receiver listens on 127.0.0.1;
// workers are off, so each test works the queued jobs by hand and sees exactly what was queued.
import { verifyWebhookSignature } from '@etax/sdk';
import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_EVENT_MESSAGE } from '../../../src/areas/webhooks/service.ts';
import { ledgerSnapshot } from '../../helpers/ledger-audit.ts';
import {
  clearDeliveryJobs,
  createEndpoint,
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

// Calls one key may make to the operation here: low, so the test of the limit reaches it fast,
// and above what any other test makes with one key.
const TEST_EVENTS_PER_KEY_MAX = 3;
const RATE_LIMIT_OVERRIDES = JSON.stringify({
  'webhooks.endpoints.test': { limit: TEST_EVENTS_PER_KEY_MAX, windowSeconds: 3_600 },
});
// Live endpoints need https; nothing listens there, and no test works a live delivery.
const LIVE_ENDPOINT_URL = 'https://127.0.0.1:9/hooks';

let app: WebhookTestApp;
let receiver: Receiver;

useWebhookApp({
  env: { ...RECEIVER_ON_LOOPBACK, WORKERS_ENABLED: 'false', RATE_LIMIT_OVERRIDES },
}, (made) => {
  app = made;
});
useReceiver((made) => {
  receiver = made;
});
beforeEach(async () => {
  await clearDeliveryJobs(app);
});

type Account = Awaited<ReturnType<WebhookTestApp['createAccount']>>;

const testPath = (endpointId: string) => `/v1/webhookEndpoints/${endpointId}:test`;

function sendTestEvent(key: string, endpointId: string) {
  return request(app, key, 'POST', testPath(endpointId));
}

function createTestEndpoint(account: Account, url = receiver.url) {
  return createEndpoint(app, account.keys.test, { url, events: [ISSUANCE_SUCCESS.type] });
}

async function deliveryLog(key: string, endpointId: string) {
  const response = await request(app, key, 'GET', `/v1/webhookEndpoints/${endpointId}/deliveries`);
  expect(response.statusCode).toBe(200);
  return response.json().results as Array<Record<string, unknown>>;
}

// The test events recorded for an account, in either environment.
async function testEventCount(account: Account) {
  const { rows } = await app.platform.database.pool.query(
    `select count(*)::int as count from webhook_events
      where account_id = $1 and type = 'WEBHOOK_TEST'`, [account.accountId]);
  return rows[0].count as number;
}

describe('happy', () => {
  it('returns 202 with a pending delivery and delivers a signed WEBHOOK_TEST event to that ' +
    'endpoint only', async () => {
    const account = await app.createAccount();
    const endpoint = await createTestEndpoint(account);
    const other = await createTestEndpoint(account, new URL('/other', receiver.url).href);

    const response = await sendTestEvent(account.keys.test, endpoint.id);
    expect(response.statusCode, response.body).toBe(202);
    const sent = response.json() as { id: string; eventId: string };
    expect(sent).toEqual({
      id: expect.stringMatching(/^whd_/), endpointId: endpoint.id,
      eventId: expect.stringMatching(/^evt_/), eventType: 'WEBHOOK_TEST', status: 'pending',
      attemptCount: 0, nextAttemptAt: null, lastResponseStatus: null, lastDurationMs: null,
      lastError: null, createdAt: expect.any(String), completedAt: null, attempts: [],
    });
    expect((await queuedDeliveryJobs(app)).map((job) => job.data))
      .toEqual([{ deliveryId: sent.id, attemptNumber: 1 }]);

    expect(await workQueuedDeliveries(app)).toEqual(['succeeded']);
    expect(receiver.received).toHaveLength(1);
    const [delivered] = receiver.received;
    expect(delivered!.path).toBe('/hooks');
    expect(delivered!.headers['etax-event-type']).toBe('WEBHOOK_TEST');
    expect(delivered!.headers['etax-event-id']).toBe(sent.eventId);
    expect(delivered!.headers['etax-delivery-id']).toBe(sent.id);
    const body = JSON.parse(delivered!.body);
    expect(body).toEqual({
      id: sent.eventId, type: 'WEBHOOK_TEST', eventType: 'WEBHOOK_TEST',
      createdAt: expect.any(String),
      data: { endpointId: endpoint.id, message: TEST_EVENT_MESSAGE },
    });
    const header = String(delivered!.headers['etax-signature']);
    const check = { payload: delivered!.body, header };
    expect(verifyWebhookSignature({ ...check, secrets: endpoint.secret })).toBe(true);
    expect(verifyWebhookSignature({ ...check, secrets: other.secret })).toBe(false);

    expect(await deliveryLog(account.keys.test, endpoint.id)).toEqual([expect.objectContaining({
      id: sent.id, eventId: sent.eventId, eventType: 'WEBHOOK_TEST', status: 'succeeded',
      attemptCount: 1, lastResponseStatus: 200,
    })]);
    expect(await deliveryLog(account.keys.test, other.id)).toEqual([]);
    const read = await request(app, account.keys.test, 'GET', `/v1/webhookEvents/${sent.eventId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(body);
  });

  it('leaves test events out of the event list', async () => {
    const account = await app.createAccount();
    const endpoint = await createTestEndpoint(account);
    const before = await recordEvent(app, { accountId: account.accountId, environment: 'test' });
    expect((await sendTestEvent(account.keys.test, endpoint.id)).statusCode).toBe(202);
    const after = await recordEvent(app, { accountId: account.accountId, environment: 'test' });

    const listed = await request(app, account.keys.test, 'GET', '/v1/webhookEvents?limit=1');
    expect(listed.json().results.map((event: { id: string }) => event.id)).toEqual([after.id]);
    const next = await request(app, account.keys.test, 'GET',
      `/v1/webhookEvents?limit=1&cursor=${listed.json().nextCursor}`);
    expect(next.json()).toEqual({ results: [expect.objectContaining({ id: before.id })],
      nextCursor: null, hasMore: false });
    expect(await testEventCount(account)).toBe(1);
  });

  it('attempts a test event once: a failed attempt completes the delivery as failed', async () => {
    const account = await app.createAccount();
    const endpoint = await createTestEndpoint(account);
    receiver.answers.push({ status: 500 });
    expect((await sendTestEvent(account.keys.test, endpoint.id)).statusCode).toBe(202);

    expect(await workQueuedDeliveries(app)).toEqual(['failed']);
    expect(await queuedDeliveryJobs(app)).toEqual([]);
    expect(receiver.received).toHaveLength(1);
    expect(await deliveryLog(account.keys.test, endpoint.id)).toEqual([expect.objectContaining({
      status: 'failed', attemptCount: 1, nextAttemptAt: null, completedAt: expect.any(String),
      lastResponseStatus: 500, lastError: 'The receiver answered HTTP 500.',
    })]);
  });

  it('accepts no body, a zero-length JSON body and {}', async () => {
    const account = await app.createAccount();
    const endpoint = await createTestEndpoint(account);
    for (const payload of [undefined, '', '{}']) {
      const headers: Record<string, string> = { authorization: `Basic ${
        Buffer.from(`${account.keys.test}:`).toString('base64')}` };
      if (payload !== undefined) headers['content-type'] = 'application/json';
      const response = await app.server.inject({ method: 'POST', url: testPath(endpoint.id),
        headers, payload });
      expect(response.statusCode, `${JSON.stringify(payload)}: ${response.body}`).toBe(202);
    }
    expect(await queuedDeliveryJobs(app)).toHaveLength(3);
  });

  it('charges no points in either environment', async () => {
    const account = await app.createAccount();
    await app.platform.points.grant({ accountId: account.accountId, environment: 'live',
      points: 1_000 });
    const endpoints = {
      test: await createTestEndpoint(account),
      live: await createEndpoint(app, account.keys.live,
        { url: LIVE_ENDPOINT_URL, events: [ISSUANCE_SUCCESS.type] }),
    };
    for (const environment of ['test', 'live'] as const) {
      const db = app.platform.database.db;
      const before = await ledgerSnapshot(db, account.accountId, environment);
      const response = await sendTestEvent(account.keys[environment],
        endpoints[environment].id);
      expect(response.statusCode, response.body).toBe(202);
      expect(await ledgerSnapshot(db, account.accountId, environment)).toEqual(before);
    }
    expect(await testEventCount(account)).toBe(2);
  });
});

describe('errors', () => {
  it('returns 404 NOT_FOUND for an endpoint that does not exist and records nothing',
    async () => {
      const account = await app.createAccount();
      const response = await sendTestEvent(account.keys.test, 'whe_none');
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ code: 'NOT_FOUND', message: expect.any(String),
        traceId: response.headers['trace-id'] });
      expect(await testEventCount(account)).toBe(0);
    });

  it('returns 409 WEBHOOK_ENDPOINT_DISABLED for a disabled endpoint and records nothing',
    async () => {
      const account = await app.createAccount();
      const endpoint = await createTestEndpoint(account);
      const disabled = await request(app, account.keys.test, 'PATCH',
        `/v1/webhookEndpoints/${endpoint.id}`, { enabled: false });
      expect(disabled.statusCode).toBe(200);
      const response = await sendTestEvent(account.keys.test, endpoint.id);
      expect(response.statusCode).toBe(409);
      expect(response.json().code).toBe('WEBHOOK_ENDPOINT_DISABLED');
      expect(await testEventCount(account)).toBe(0);
      expect(await queuedDeliveryJobs(app)).toEqual([]);
    });

  it.each([
    ['a body with a field', '{"message":"hello"}', /takes no body/],
    ['a JSON array', '[]', /takes no body/],
    ['unreadable JSON', '{"message":', /./],
  ])('returns 400 INVALID_REQUEST for %s and records nothing', async (_name, payload, message) => {
    const account = await app.createAccount();
    const endpoint = await createTestEndpoint(account);
    const response = await request(app, account.keys.test, 'POST', testPath(endpoint.id),
      payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('INVALID_REQUEST');
    expect(response.json().message).toMatch(message);
    expect(await testEventCount(account)).toBe(0);
  });

  it('returns 400 INVALID_REQUEST naming the parameter for a malformed endpoint id', async () => {
    const account = await app.createAccount();
    const response = await sendTestEvent(account.keys.test, 'whe_%24bad');
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/endpointId/);
  });

  it('returns 400 INVALID_REQUEST to subscribing to WEBHOOK_TEST or listing its events',
    async () => {
      const account = await app.createAccount();
      const subscribed = await request(app, account.keys.test, 'POST', '/v1/webhookEndpoints',
        { url: receiver.url, events: ['WEBHOOK_TEST'] });
      expect(subscribed.statusCode).toBe(400);
      expect(subscribed.json().message).toMatch(/body\.events/);
      const listed = await request(app, account.keys.test, 'GET',
        '/v1/webhookEvents?type=WEBHOOK_TEST');
      expect(listed.statusCode).toBe(400);
      expect(listed.json().message).toMatch(/query\.type/);
    });

  it('returns 401 with an empty body without a key, and records nothing', async () => {
    const account = await app.createAccount();
    const endpoint = await createTestEndpoint(account);
    const response = await app.server.inject({ method: 'POST', url: testPath(endpoint.id) });
    expect(response.statusCode).toBe(401);
    expect(response.body).toBe('');
    expect(await testEventCount(account)).toBe(0);
  });

  it('returns 429 RATE_LIMITED after the key\'s limit and records nothing more', async () => {
    const account = await app.createAccount();
    const endpoint = await createTestEndpoint(account);
    for (let call = 0; call < TEST_EVENTS_PER_KEY_MAX; call += 1) {
      expect((await sendTestEvent(account.keys.test, endpoint.id)).statusCode).toBe(202);
    }
    const refused = await sendTestEvent(account.keys.test, endpoint.id);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('RATE_LIMITED');
    expect(refused.headers['retry-after']).toBeDefined();
    expect(await testEventCount(account)).toBe(TEST_EVENTS_PER_KEY_MAX);
  });
});

describe('security', () => {
  it('returns 404 for another account\'s endpoint and for the other environment\'s, and ' +
    'sends nothing', async () => {
    const owner = await app.createAccount();
    const stranger = await app.createAccount();
    const testEndpoint = await createTestEndpoint(owner);
    const liveEndpoint = await createEndpoint(app, owner.keys.live,
      { url: LIVE_ENDPOINT_URL, events: [ISSUANCE_SUCCESS.type] });
    const refused: Array<[string, string]> = [
      [stranger.keys.test, testEndpoint.id], [stranger.keys.live, liveEndpoint.id],
      [owner.keys.live, testEndpoint.id], [owner.keys.test, liveEndpoint.id],
    ];
    for (const [key, endpointId] of refused) {
      const response = await sendTestEvent(key, endpointId);
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('NOT_FOUND');
    }
    expect(await testEventCount(owner)).toBe(0);
    expect(await testEventCount(stranger)).toBe(0);
    expect(await workQueuedDeliveries(app)).toEqual([]);
    expect(receiver.received).toEqual([]);
  });

  it('keeps a test event in the scope of the key that sent it', async () => {
    const owner = await app.createAccount();
    const stranger = await app.createAccount();
    const endpoint = await createTestEndpoint(owner);
    const sent = (await sendTestEvent(owner.keys.test, endpoint.id)).json() as { eventId: string };
    for (const key of [stranger.keys.test, owner.keys.live]) {
      const read = await request(app, key, 'GET', `/v1/webhookEvents/${sent.eventId}`);
      expect(read.statusCode).toBe(404);
    }
    const resent = await request(app, stranger.keys.test, 'POST',
      `/v1/webhookEndpoints/${(await createTestEndpoint(stranger)).id}/deliveries:resend`,
      { eventId: sent.eventId });
    expect(resent.statusCode).toBe(404);
  });
});
