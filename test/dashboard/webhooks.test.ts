import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import {
  clearDeliveryJobs,
  RECEIVER_ON_LOOPBACK,
  startReceiver,
  workQueuedDeliveries,
  type Receiver,
} from '../api/webhooks/harness.ts';
import { createUser, ORIGIN, signedInAccount, signIn, type Browser } from './helpers.ts';

// The webhooks page: every action is the webhooks service behind /v1/webhookEndpoints (an
// endpoint added here is listed by the API, a test event sent here is the API's WEBHOOK_TEST
// and is delivered by the same worker); roles, environments and accounts are kept apart; every
// value the page shows is inert. Workers are off: each test works the queued deliveries by hand.

const ISSUANCE_SUCCESS = 'TAX_INVOICE_ISSUANCE_SUCCESS';
const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

let app: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  app = await createTestApp({ jobs: true,
    env: { ...RECEIVER_ON_LOOPBACK, WORKERS_ENABLED: 'false' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await app?.close();
});
beforeEach(async () => {
  receiver.received.length = 0;
  receiver.answers.length = 0;
  await clearDeliveryJobs(app);
});

const apiEndpoints = async (key: string) => (await app.server.inject({ method: 'GET',
  url: '/v1/webhookEndpoints', headers: { authorization: basicAuth(key) } })).json().results as
  Array<{ id: string; url: string; description: string | null; events: string[];
    enabled: boolean }>;

async function addEndpoint(browser: Browser, form: Record<string, string> = {}) {
  await browser.get('/dashboard/webhooks');
  const posted = await browser.post('/dashboard/webhooks', { url: receiver.url,
    events: ISSUANCE_SUCCESS, ...form });
  // The POST redirects to the page that shows the secret once.
  const response = posted.statusCode === 303
    ? await browser.get(posted.headers.location as string) : posted;
  const secret = /id="new-secret"[^>]*>([^<]+)</.exec(response.body)?.[1];
  const endpointId = /href="\/dashboard\/webhooks\/(whe_[A-Za-z0-9_-]+)"/.exec(response.body)?.[1];
  return { response, secret, endpointId: endpointId! };
}

const auditActions = async (accountId: string) => ((await app.platform.database.db.execute(
  sql`select action, target from dashboard_audit_events
      where account_id = ${accountId} and action like 'webhook.%' order by sequence`))
  .rows as Array<{ action: string; target: string | null }>);

describe('webhooks page', () => {
  it('adds an endpoint whose secret is shown once, the same endpoint the API lists', async () => {
    const { browser, keys, accountId } = await signedInAccount(app, 'developer');
    const { response, secret, endpointId } = await addEndpoint(browser,
      { description: 'Order system' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(secret).toMatch(/^whsec_/);
    const [endpoint] = await apiEndpoints(keys.test);
    expect(endpoint).toMatchObject({ id: endpointId, url: receiver.url,
      description: 'Order system', events: [ISSUANCE_SUCCESS], enabled: true });
    const list = await browser.get('/dashboard/webhooks');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('Order system');
    expect(list.body).not.toContain(secret);
    const page = await browser.get(`/dashboard/webhooks/${endpointId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(secret);
    expect(await auditActions(accountId)).toEqual([
      { action: 'webhook.endpointCreated', target: endpointId }]);
  });

  it('sends the API\'s test event, delivered by the worker and shown with its request and answer',
    async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    const { endpointId } = await addEndpoint(browser);
    receiver.answers.push({ status: 503 });
    const sent = await browser.post(`/dashboard/webhooks/${endpointId}/test`, {});
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location)
      .toBe(`/dashboard/webhooks/${endpointId}?notice=webhooks.testSentNotice`);
    const pending = await browser.get(sent.headers.location as string);
    expect(pending.body).toContain('WEBHOOK_TEST');
    expect(pending.body).toContain('대기 중');
    expect(pending.body).toContain('테스트 이벤트를 보냈습니다');
    await workQueuedDeliveries(app);
    expect(receiver.received).toHaveLength(1);
    const delivered = JSON.parse(receiver.received[0]!.body) as { id: string; type: string };
    expect(delivered.type).toBe('WEBHOOK_TEST');
    // The same delivery the API's log shows.
    const log = (await app.server.inject({ method: 'GET',
      url: `/v1/webhookEndpoints/${endpointId}/deliveries`,
      headers: { authorization: basicAuth(keys.test) } })).json().results as
      Array<{ eventId: string; eventType: string }>;
    expect(log).toMatchObject([{ eventId: delivered.id, eventType: 'WEBHOOK_TEST' }]);
    const page = await browser.get(`/dashboard/webhooks/${endpointId}`);
    expect(page.body).toContain(delivered.id);
    expect(page.body).toContain('HTTP 503');
    expect(page.body).toContain('The receiver answered HTTP 503.');
  });

  it('resends a delivered event as a new delivery', async () => {
    const { browser, accountId } = await signedInAccount(app, 'admin');
    const { endpointId } = await addEndpoint(browser);
    await browser.post(`/dashboard/webhooks/${endpointId}/test`, {});
    await workQueuedDeliveries(app);
    const page = await browser.get(`/dashboard/webhooks/${endpointId}`);
    const eventId = /\/events\/(evt_[A-Za-z0-9_-]+)\/resend/.exec(page.body)?.[1];
    const resent = await browser.post(
      `/dashboard/webhooks/${endpointId}/events/${eventId}/resend`, {});
    expect(resent.statusCode).toBe(303);
    await workQueuedDeliveries(app);
    expect(receiver.received.map((request) => JSON.parse(request.body).id))
      .toEqual([eventId, eventId]);
    expect((await auditActions(accountId)).map((row) => row.action))
      .toEqual(['webhook.endpointCreated', 'webhook.eventResent']);
    const unknown = await browser.post(
      `/dashboard/webhooks/${endpointId}/events/evt_nope/resend`, {});
    expect(unknown.statusCode).toBe(404);
  });

  it('changes the events and the note, disables and enables', async () => {
    const { browser, keys } = await signedInAccount(app, 'developer');
    const { endpointId } = await addEndpoint(browser);
    const path = `/dashboard/webhooks/${endpointId}`;
    const changed = await app.server.inject({ method: 'POST', url: path,
      headers: { host: 'localhost:80', origin: ORIGIN,
        cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${browser.csrf}&description=Billing&events=CASH_RECEIPT_ISSUED&` +
        `events=${ISSUANCE_SUCCESS}&events=NOT_AN_EVENT` });
    expect(changed.statusCode).toBe(303);
    expect((await apiEndpoints(keys.test))[0]).toMatchObject({ description: 'Billing',
      events: [ISSUANCE_SUCCESS, 'CASH_RECEIPT_ISSUED'] });
    expect((await browser.post(`${path}/enabled`, { enabled: 'false' })).statusCode).toBe(303);
    expect((await apiEndpoints(keys.test))[0]!.enabled).toBe(false);
    const disabledPage = await browser.get(path);
    expect(disabledPage.body).not.toContain(`action="${path}/test"`);
    const refused = await browser.post(`${path}/test`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('사용 중지된 엔드포인트에는 보낼 수 없습니다');
    expect((await browser.post(`${path}/enabled`, { enabled: 'true' })).statusCode).toBe(303);
    expect((await apiEndpoints(keys.test))[0]!.enabled).toBe(true);
  });

  it('rotates the secret: the new one shown once and signing the next delivery', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    const { endpointId, secret } = await addEndpoint(browser);
    const posted = await browser.post(`/dashboard/webhooks/${endpointId}/rotate-secret`, {});
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe(`/dashboard/webhooks/${endpointId}/secret`);
    const rotated = await browser.get(`/dashboard/webhooks/${endpointId}/secret`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const newSecret = /id="new-secret"[^>]*>([^<]+)</.exec(rotated.body)?.[1];
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    // Shown once: the same address again shows the endpoint, not the secret.
    const again = await browser.get(`/dashboard/webhooks/${endpointId}/secret`);
    expect(again.statusCode).toBe(410);
    expect(again.body).not.toContain(newSecret);
    const page = await browser.get(`/dashboard/webhooks/${endpointId}`);
    expect(page.body).not.toContain(newSecret);
    expect(page.body).toContain('이전 비밀 키');
    await browser.post(`/dashboard/webhooks/${endpointId}/test`, {});
    await workQueuedDeliveries(app);
    // Two signatures during the overlap: the new secret's and the previous one's.
    expect(receiver.received[0]!.headers['etax-signature']).toMatch(/v1=.*v1=/);
    expect((await auditActions(accountId)).map((row) => row.action))
      .toEqual(['webhook.endpointCreated', 'webhook.secretRotated']);
  });

  it('refuses bad input with 400 and nothing made', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    await browser.get('/dashboard/webhooks');
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ url: receiver.url }, 400, '받을 이벤트를 하나 이상 고르세요'],
      [{ url: receiver.url, events: 'NOT_AN_EVENT' }, 400, '받을 이벤트를 하나 이상'],
      [{ url: '', events: ISSUANCE_SUCCESS }, 400, 'URL 또는 메모가 올바르지 않습니다'],
      [{ url: `https://example.com/${'a'.repeat(2_100)}`, events: ISSUANCE_SUCCESS }, 400,
        'URL 또는 메모가'],
      [{ url: receiver.url, events: ISSUANCE_SUCCESS, description: 'x'.repeat(501) }, 400,
        'URL 또는 메모가'],
      [{ url: receiver.url, events: ISSUANCE_SUCCESS, description: 'a\u0000b' }, 400,
        'URL 또는 메모가'],
      [{ url: 'ftp://example.com/x', events: ISSUANCE_SUCCESS }, 400, '이 URL로는 보낼 수 없습니다'],
      [{ url: 'not a url', events: ISSUANCE_SUCCESS }, 400, '이 URL로는 보낼 수 없습니다'],
    ];
    for (const [form, status, words] of cases) {
      const response = await browser.post('/dashboard/webhooks', form);
      expect(response.statusCode, JSON.stringify(form)).toBe(status);
      expect(response.body).toContain(words);
    }
    expect(await apiEndpoints(keys.test)).toEqual([]);
  });

  it('refuses a live endpoint on plain http, as the API does', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    await browser.post('/dashboard/environment', { environment: 'live' });
    await browser.get('/dashboard/webhooks');
    const response = await browser.post('/dashboard/webhooks', { url: 'http://example.com/hooks',
      events: ISSUANCE_SUCCESS });
    expect(response.statusCode).toBe(400);
    expect(await apiEndpoints(keys.live)).toEqual([]);
  });

  it('keeps test and live endpoints apart', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    const { endpointId } = await addEndpoint(browser, { description: 'test one' });
    await browser.post('/dashboard/environment', { environment: 'live' });
    const live = await browser.get('/dashboard/webhooks');
    expect(live.body).not.toContain('test one');
    expect((await browser.get(`/dashboard/webhooks/${endpointId}`)).statusCode).toBe(404);
    expect((await browser.post(`/dashboard/webhooks/${endpointId}/test`, {})).statusCode)
      .toBe(404);
    expect(await apiEndpoints(keys.live)).toEqual([]);
  });

  it('answers 404 for another account\'s endpoint, for every route', async () => {
    const owner = await signedInAccount(app, 'owner');
    const { endpointId } = await addEndpoint(owner.browser, { description: 'theirs' });
    const { browser } = await signedInAccount(app, 'owner');
    await browser.get('/dashboard/webhooks');
    const path = `/dashboard/webhooks/${endpointId}`;
    expect((await browser.get(path)).statusCode).toBe(404);
    for (const [action, form] of [['', { events: ISSUANCE_SUCCESS }],
      ['/enabled', { enabled: 'false' }], ['/rotate-secret', {}], ['/test', {}],
      ['/events/evt_x/resend', {}]] as const) {
      expect((await browser.post(`${path}${action}`, form)).statusCode, action).toBe(404);
    }
    expect((await apiEndpoints(owner.keys.test))[0]).toMatchObject({ enabled: true,
      events: [ISSUANCE_SUCCESS] });
    expect(await queuedDeliveryCount()).toBe(0);
  });

  it.each(['viewer', 'issuer'] as Role[])('lets the %s role read but change nothing',
    async (role) => {
    const owner = await signedInAccount(app, 'owner');
    const { endpointId } = await addEndpoint(owner.browser);
    const user = await createUser(app, owner.accountId, role);
    const browser = await signIn(app, user.email);
    const list = await browser.get('/dashboard/webhooks');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain('action="/dashboard/webhooks"');
    const page = await browser.get(`/dashboard/webhooks/${endpointId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('/rotate-secret');
    const path = `/dashboard/webhooks/${endpointId}`;
    const attempts: Array<[string, Record<string, string>]> = [
      ['/dashboard/webhooks', { url: receiver.url, events: ISSUANCE_SUCCESS }],
      [path, { events: ISSUANCE_SUCCESS }], [`${path}/enabled`, { enabled: 'false' }],
      [`${path}/rotate-secret`, {}], [`${path}/test`, {}]];
    for (const [url, form] of attempts) {
      const response = await browser.post(url, form);
      expect(response.statusCode, url).toBe(403);
    }
    expect(await apiEndpoints(owner.keys.test)).toHaveLength(1);
    expect((await apiEndpoints(owner.keys.test))[0]!.enabled).toBe(true);
    expect(await queuedDeliveryCount()).toBe(0);
  });

  it('refuses a POST without the token or from another origin', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    await browser.get('/dashboard/webhooks');
    const form = { url: receiver.url, events: ISSUANCE_SUCCESS };
    expect((await browser.post('/dashboard/webhooks', { ...form, _csrf: 'wrong' })).statusCode)
      .toBe(403);
    expect((await browser.post('/dashboard/webhooks', form,
      { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await browser.post('/dashboard/webhooks', form,
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect(await apiEndpoints(keys.test)).toEqual([]);
  });

  it('shows every value inert: URLs, notes, and what a receiver answered', async () => {
    const { browser } = await signedInAccount(app, 'owner');
    const url = `${receiver.url}?q="><script>alert(3)</script>`;
    const { endpointId, response } = await addEndpoint(browser,
      { url, description: HOSTILE });
    expect(response.statusCode).toBe(200);
    receiver.answers.push({ status: 500, headers: { 'x-note': '<script>alert(4)</script>' } });
    await browser.post(`/dashboard/webhooks/${endpointId}/test`, {});
    await workQueuedDeliveries(app);
    for (const path of ['/dashboard/webhooks', `/dashboard/webhooks/${endpointId}`]) {
      const page = await browser.get(path);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toMatch(/<script>alert|<img src=x/);
      expect(page.body).toContain('&lt;script>alert(1)&lt;/script>');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
    }
  });
});

describe('what a receiver answered', () => {
  it('keeps the start of the response body, shows it inert, and lists failures on Home',
    async () => {
      const { browser } = await signedInAccount(app, 'owner');
      const { endpointId } = await addEndpoint(browser);
      const body = `${HOSTILE}\u0000${'한'.repeat(1000)}`;
      receiver.answers.push({ status: 500, body });
      await browser.post(`/dashboard/webhooks/${endpointId}/test`, {});
      await workQueuedDeliveries(app);
      const [attempt] = (await app.platform.database.db.execute(sql`select response_body,
        response_body_truncated from webhook_delivery_attempts a join webhook_deliveries d
        on d.id = a.delivery_id where d.endpoint_id = ${endpointId}`)).rows as
        Array<{ response_body: string; response_body_truncated: boolean }>;
      expect(attempt!.response_body.startsWith(HOSTILE)).toBe(true);
      expect(attempt!.response_body).not.toContain('\u0000');
      expect(Buffer.byteLength(attempt!.response_body)).toBeLessThanOrEqual(2048 + 3);
      expect(attempt!.response_body_truncated).toBe(true);
      const page = await browser.get(`/dashboard/webhooks/${endpointId}`);
      expect(page.body).not.toMatch(/<script>alert|<img src=x/);
      expect(page.body).toContain('&lt;script>alert(1)&lt;/script>');
      expect(page.body).toContain('처음 2,048바이트만');

      // A test event has one attempt, so its delivery failed: Home lists it in the session's
      // environment only, and another account's Home does not.
      const failing = await browser.get('/dashboard');
      expect(failing.body).toContain('실패한 웹훅 전달');
      expect(failing.body).toContain(`/dashboard/webhooks/${endpointId}`);
      expect(failing.body).toContain('The receiver answered HTTP 500.');
      const other = await signedInAccount(app, 'owner');
      const otherHome = (await other.browser.get('/dashboard')).body;
      expect(otherHome).not.toContain(endpointId);
      expect(otherHome).toContain('최근 실패가 없습니다');
      await browser.get('/dashboard');
      await browser.post('/dashboard/environment', { environment: 'live', return: '/dashboard' });
      expect((await browser.get('/dashboard')).body).not.toContain(endpointId);
    });
});

async function queuedDeliveryCount() {
  const { rows } = await app.platform.database.pool.query(
    `select count(*)::int as count from pgboss.job
      where name like 'webhook%' and state = 'created'`);
  return (rows[0] as { count: number }).count;
}
