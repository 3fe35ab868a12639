// Events and the delivery log (docs/webhooks.md § Delivery log and resend): events of the
// key's account and environment are listed newest first with a cursor and read one by one;
// a delivery log pages the same way; an event is resent to one endpoint as a new delivery with
// the same body; ids from another account or environment are 404.
import { beforeEach, describe, expect, it } from 'vitest';
import { DELIVERY_QUEUE } from '../../../src/areas/webhooks/recorder.ts';
import {
  clearDeliveryJobs,
  createEndpoint as createWebhookEndpoint,
  ISSUANCE_SUCCESS,
  RECEIVER_ON_LOOPBACK,
  recordEvent,
  request,
  workQueuedDeliveries,
  type Receiver,
  type WebhookEvent,
  type WebhookTestApp,
  useWebhookApp,
  useReceiver,
} from './harness.ts';

let app: WebhookTestApp;
let receiver: Receiver;

useWebhookApp({ env: { ...RECEIVER_ON_LOOPBACK, WORKERS_ENABLED: 'false' } }, (made) => {
  app = made;
});
useReceiver((made) => {
  receiver = made;
});
beforeEach(async () => {
  await clearDeliveryJobs(app);
});

type Account = Awaited<ReturnType<WebhookTestApp['createAccount']>>;

const FAILURE = {
  type: 'TAX_INVOICE_ISSUANCE_FAILURE',
  data: {
    issuanceKey: 'iss_2',
    cause: { code: 'NOT_FOUND_CERTIFICATE', message: 'No joint certificate is registered.' },
  },
} as const;

function record(account: Account, event: WebhookEvent = ISSUANCE_SUCCESS) {
  return recordEvent(app, { accountId: account.accountId, environment: 'test' }, event);
}

function createEndpoint(key: string) {
  return createWebhookEndpoint(app, key, { url: receiver.url,
    events: ['TAX_INVOICE_ISSUANCE_SUCCESS', 'TAX_INVOICE_ISSUANCE_FAILURE'] });
}

async function pages(key: string, path: string, limit: number) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pageIndex = 0; pageIndex < 10; pageIndex += 1) {
    const query = `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const response = await request(app, key, 'GET', `${path}${query}`);
    expect(response.statusCode).toBe(200);
    const body = response.json() as { results: Array<{ id: string }>; nextCursor: string | null };
    expect(body.results.length).toBeLessThanOrEqual(limit);
    ids.push(...body.results.map((item) => item.id));
    cursor = body.nextCursor;
    if (cursor === null) break;
  }
  return ids;
}

describe('happy', () => {
  it('lists events newest first across pages and reads one as it is delivered', async () => {
    const account = await app.createAccount();
    const recorded = [];
    for (let index = 0; index < 5; index += 1) recorded.push((await record(account)).id);
    const failure = await record(account, FAILURE);

    expect(await pages(account.keys.test, '/v1/webhookEvents', 2))
      .toEqual([failure.id, ...recorded.reverse()]);
    const onlyFailures = await request(app, account.keys.test, 'GET',
      '/v1/webhookEvents?type=TAX_INVOICE_ISSUANCE_FAILURE');
    expect(onlyFailures.json()).toEqual({
      results: [{ id: failure.id, type: FAILURE.type, eventType: FAILURE.type,
        createdAt: expect.any(String), data: FAILURE.data }],
      nextCursor: null,
      hasMore: false,
    });
    const read = await request(app, account.keys.test, 'GET', `/v1/webhookEvents/${failure.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(onlyFailures.json().results[0]);
  });

  it('pages an endpoint\'s deliveries newest first', async () => {
    const account = await app.createAccount();
    const endpoint = await createEndpoint(account.keys.test);
    const eventIds = [];
    for (let index = 0; index < 5; index += 1) eventIds.push((await record(account)).id);
    await workQueuedDeliveries(app);
    const path = `/v1/webhookEndpoints/${endpoint.id}/deliveries`;
    const deliveryIds = await pages(account.keys.test, path, 2);
    expect(deliveryIds).toHaveLength(5);
    const all = await request(app, account.keys.test, 'GET', `${path}?limit=100`);
    expect(all.json().results.map((item: { eventId: string }) => item.eventId))
      .toEqual(eventIds.reverse());
    const pending = await request(app, account.keys.test, 'GET', `${path}?status=pending`);
    expect(pending.json().results).toEqual([]);
  });

  it('resends an event as a new delivery with the same body', async () => {
    const account = await app.createAccount();
    const endpoint = await createEndpoint(account.keys.test);
    const event = await record(account);
    await workQueuedDeliveries(app);
    const response = await request(app, account.keys.test, 'POST',
      `/v1/webhookEndpoints/${endpoint.id}/deliveries:resend`, { eventId: event.id });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toMatchObject({
      endpointId: endpoint.id, eventId: event.id, eventType: ISSUANCE_SUCCESS.type,
      status: 'pending', attemptCount: 0, attempts: [],
    });
    expect(await workQueuedDeliveries(app)).toEqual(['succeeded']);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
    expect(receiver.received[1]!.headers['etax-event-id']).toBe(event.id);
    expect(receiver.received[1]!.headers['etax-delivery-id'])
      .not.toBe(receiver.received[0]!.headers['etax-delivery-id']);
  });
});

describe('recording many events at once', () => {
  it('gives each event the deliveries of its own scope\'s subscribed endpoints, in order',
    async () => {
      const [onlySuccess, both, none] = await Promise.all([app.createAccount(),
        app.createAccount(), app.createAccount()]);
      const successEndpoint = (await request(app, onlySuccess.keys.test, 'POST',
        '/v1/webhookEndpoints', { url: receiver.url, events: ['TAX_INVOICE_ISSUANCE_SUCCESS'] }))
        .json() as { id: string };
      const bothEndpoint = await createEndpoint(both.keys.test);
      const scopeOf = (account: Account) => ({ accountId: account.accountId,
        environment: 'test' as const });
      const events = [[onlySuccess, ISSUANCE_SUCCESS], [both, FAILURE], [onlySuccess, FAILURE],
        [none, ISSUANCE_SUCCESS], [both, ISSUANCE_SUCCESS]] as const;
      const recorded = await app.platform.database.db.transaction((tx) =>
        app.webhooks.recordEvents(tx, events.map(([account, event]) =>
          ({ scope: scopeOf(account), event }))));
      expect(new Set(recorded.map(({ id }) => id)).size).toBe(5);
      const { rows: eventRows } = await app.platform.database.pool.query(
        'select id, account_id, type from webhook_events where id = any($1) order by sequence',
        [recorded.map(({ id }) => id)]);
      expect(eventRows.map((row) => [row.id, row.account_id, row.type])).toEqual(
        events.map(([account, event], index) =>
          [recorded[index]!.id, account.accountId, event.type]));
      const { rows: deliveries } = await app.platform.database.pool.query(
        `select d.id, d.endpoint_id, d.event_id from webhook_deliveries d
          where d.event_id = any($1) order by d.sequence`, [recorded.map(({ id }) => id)]);
      expect(deliveries.map((row) => [row.event_id, row.endpoint_id])).toEqual([
        [recorded[0]!.id, successEndpoint.id],
        [recorded[1]!.id, bothEndpoint.id],
        [recorded[4]!.id, bothEndpoint.id],
      ]);
      const { rows: jobs } = await app.platform.database.pool.query(
        'select data from pgboss.job where name = $1', [DELIVERY_QUEUE]);
      expect(jobs.map((row) => row.data).sort((a, b) => a.deliveryId.localeCompare(b.deliveryId)))
        .toEqual(deliveries.map((row) => ({ deliveryId: row.id, attemptNumber: 1 }))
          .sort((a, b) => a.deliveryId.localeCompare(b.deliveryId)));
    });

  it('records nothing of a batch with one event whose data does not match its type',
    async () => {
      const account = await app.createAccount();
      const scope = { accountId: account.accountId, environment: 'test' as const };
      const bad = { type: 'TAX_INVOICE_ISSUANCE_SUCCESS', data: { issuanceKey: 1 } } as never;
      await expect(app.webhooks.recordEvents(app.platform.database.db,
        [{ scope, event: ISSUANCE_SUCCESS }, { scope, event: bad }])).rejects.toThrow();
      const { rows } = await app.platform.database.pool.query(
        'select count(*)::int as count from webhook_events where account_id = $1',
        [account.accountId]);
      expect(rows[0].count).toBe(0);
    });
});

describe('errors', () => {
  it('refuses to record data that does not match its event type, and records nothing', async () => {
    const account = await app.createAccount();
    const scope = { accountId: account.accountId, environment: 'test' as const };
    const db = app.platform.database.db;
    // @ts-expect-error: the catalogue types reject a payload of another shape at compile time.
    const wrong = app.webhooks.recordEvent(db, scope, {
      type: 'TAX_INVOICE_ISSUANCE_SUCCESS',
      data: { issuanceKey: 'iss_1' },
    });
    await expect(wrong).rejects.toThrow(/does not match its schema/);
    const cast = { type: 'CERTIFICATE_REGISTRATION_SUCCESS', data: ISSUANCE_SUCCESS.data };
    await expect(app.webhooks.recordEvent(db, scope, cast as never))
      .rejects.toThrow(/does not match its schema/);
    // A test event goes to one endpoint on request, never to subscribers.
    const testEvent = { type: 'WEBHOOK_TEST', data: { endpointId: 'whe_1', message: 'x' } };
    await expect(app.webhooks.recordEvent(db, scope, testEvent as never))
      .rejects.toThrow(/sent only on request/);
    const listed = await request(app, account.keys.test, 'GET', '/v1/webhookEvents');
    expect(listed.json().results).toEqual([]);
  });

  it('returns 409 WEBHOOK_ENDPOINT_DISABLED when resending to a disabled endpoint', async () => {
    const account = await app.createAccount();
    const endpoint = await createEndpoint(account.keys.test);
    const event = await record(account);
    await request(app, account.keys.test, 'PATCH', `/v1/webhookEndpoints/${endpoint.id}`,
      { enabled: false });
    const response = await request(app, account.keys.test, 'POST',
      `/v1/webhookEndpoints/${endpoint.id}/deliveries:resend`, { eventId: event.id });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('WEBHOOK_ENDPOINT_DISABLED');
  });

  it.each([
    ['/v1/webhookEvents?limit=0', /query\.limit/],
    ['/v1/webhookEvents?limit=101', /query\.limit/],
    ['/v1/webhookEvents?type=UNKNOWN', /query\.type/],
    ['/v1/webhookEvents?cursor=not-ours', /query\.cursor/],
    [`/v1/webhookEvents?cursor=${Buffer.from('[-1]').toString('base64url')}`, /query\.cursor/],
    ['/v1/webhookEvents?extra=1', /query\.extra is not a field/],
  ])('returns 400 INVALID_REQUEST for %s', async (url, message) => {
    const account = await app.createAccount();
    const response = await request(app, account.keys.test, 'GET', url);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ code: 'INVALID_REQUEST', message: expect.any(String),
      traceId: response.headers['trace-id'] });
    expect(response.json().message).toMatch(message);
  });

  it('returns 400 INVALID_REQUEST for a resend without an event id', async () => {
    const account = await app.createAccount();
    const endpoint = await createEndpoint(account.keys.test);
    const response = await request(app, account.keys.test, 'POST',
      `/v1/webhookEndpoints/${endpoint.id}/deliveries:resend`, { eventId: 7 });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/body\.eventId/);
  });
});

describe('security', () => {
  it('returns 404 for another account\'s or environment\'s events and resends nothing',
    async () => {
      const owner = await app.createAccount();
      const stranger = await app.createAccount();
      const event = await record(owner);
      const strangerEndpoint = await createEndpoint(stranger.keys.test);
      for (const key of [stranger.keys.test, owner.keys.live]) {
        const read = await request(app, key, 'GET', `/v1/webhookEvents/${event.id}`);
        expect(read.statusCode).toBe(404);
        expect(read.json().code).toBe('NOT_FOUND');
        const listed = await request(app, key, 'GET', '/v1/webhookEvents');
        expect(listed.json().results).toEqual([]);
      }
      const resend = await request(app, stranger.keys.test, 'POST',
        `/v1/webhookEndpoints/${strangerEndpoint.id}/deliveries:resend`, { eventId: event.id });
      expect(resend.statusCode).toBe(404);
      expect(await workQueuedDeliveries(app)).toEqual([]);
      expect(receiver.received).toEqual([]);
    });
});
