// The webhook management API (docs/webhooks.md): endpoints are created with a secret shown
// once, listed, read, changed, rotated and deleted within the key's account and environment;
// URLs are checked (public addresses only with default settings, for test and live keys alike;
// https for live keys; never an IPv6 address that embeds an IPv4 address);
// bad input is 400 in the error shape; another account's or environment's ids are
// 404; nothing charges points.
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { signingSecrets } from '../../../src/areas/webhooks/secrets-at-rest.ts';
import { webhookEndpoints } from '../../../src/areas/webhooks/tables.ts';
import { expectError } from '../../helpers/errors.ts';
import { pollUntil } from '../../helpers/poll.ts';
import {
  createFakeDns,
  INTERNAL_HOSTS,
  IPV4_EMBEDDING_HOSTS,
  request,
  urlFor,
  useInternalNames,
  type WebhookTestApp,
  useWebhookApp,
} from './harness.ts';

const PUBLIC_ADDRESS = '93.184.215.14';
const TEST_URL = 'http://hooks.example.test:9/hooks';
const LIVE_URL = 'https://hooks.example.test/hooks';
// The default overlap of a rotated secret: a day (docs/webhooks.md).
const DAY_MS = 24 * 3_600_000;

let app: WebhookTestApp;
const dns = createFakeDns();
dns.hosts.set('hooks.example.test', [PUBLIC_ADDRESS]);
dns.hosts.set('internal.example.test', [PUBLIC_ADDRESS, '10.0.0.7']);
useInternalNames(dns);

useWebhookApp({
  env: { WORKERS_ENABLED: 'false' },
  webhooks: { resolveHost: dns.resolveHost },
}, (made) => {
  app = made;
});

type Account = Awaited<ReturnType<WebhookTestApp['createAccount']>>;

function create(key: string, body: unknown) {
  return request(app, key, 'POST', '/v1/webhookEndpoints', body);
}

async function created(key: string, url = TEST_URL) {
  const response = await create(key, { url, events: ['TAX_INVOICE_ISSUANCE_SUCCESS'] });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; secret: string };
}

describe('happy', () => {
  let account: Account;
  beforeAll(async () => {
    account = await app.createAccount();
  });

  it('returns 201 with the endpoint and a secret shown only once', async () => {
    const response = await create(account.keys.test, {
      url: TEST_URL, events: ['TAX_INVOICE_ISSUANCE_SUCCESS', 'CERTIFICATE_REGISTRATION_FAILURE'],
      description: '발행 결과',
    });
    expect(response.statusCode).toBe(201);
    const endpoint = response.json();
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^whe_[A-Za-z0-9_-]{22}$/),
      url: TEST_URL,
      events: ['TAX_INVOICE_ISSUANCE_SUCCESS', 'CERTIFICATE_REGISTRATION_FAILURE'],
      description: '발행 결과',
      enabled: true,
      previousSecretExpiresAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const read = await request(app, account.keys.test, 'GET',
      `/v1/webhookEndpoints/${endpoint.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).not.toHaveProperty('secret');
    const listed = await request(app, account.keys.test, 'GET', '/v1/webhookEndpoints');
    expect(listed.json().results.map((item: { id: string }) => item.id)).toContain(endpoint.id);
    expect(JSON.stringify(listed.json())).not.toContain(endpoint.secret);
  });

  it('accepts a test key\'s http URL and a live key\'s https URL at public addresses', async () => {
    await created(account.keys.test, 'http://hooks.example.test:4000/hooks');
    const live = await created(account.keys.live, LIVE_URL);
    const read = await request(app, account.keys.live, 'GET', `/v1/webhookEndpoints/${live.id}`);
    expect(read.json().url).toBe(LIVE_URL);
  });

  it('returns 200 with the changed fields and keeps the others', async () => {
    const { id } = await created(account.keys.test);
    const response = await request(app, account.keys.test, 'PATCH', `/v1/webhookEndpoints/${id}`,
      { events: ['TAX_INVOICE_ISSUANCE_FAILURE'], enabled: false, description: null });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id, url: TEST_URL, events: ['TAX_INVOICE_ISSUANCE_FAILURE'], enabled: false,
      description: null,
    });
  });

  it('rotates the secret and reports when the previous one stops signing', async () => {
    const { id, secret } = await created(account.keys.test);
    // The clock read before and after the request brackets the moment of the rotation.
    const beforeMs = Date.now();
    const response = await request(app, account.keys.test, 'POST',
      `/v1/webhookEndpoints/${id}:rotateSecret`, {});
    const afterMs = Date.now();
    expect(response.statusCode).toBe(200);
    const rotated = response.json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    // The previous secret keeps signing for the default overlap: a day from the rotation.
    const previousExpiresMs = Date.parse(rotated.previousSecretExpiresAt);
    expect(previousExpiresMs).toBeGreaterThanOrEqual(beforeMs + DAY_MS);
    expect(previousExpiresMs).toBeLessThanOrEqual(afterMs + DAY_MS);
    const immediate = await request(app, account.keys.test, 'POST',
      `/v1/webhookEndpoints/${id}:rotateSecret`, { overlapSeconds: 0 });
    expect(immediate.json().previousSecretExpiresAt).toBeNull();
  });

  // The secrets an endpoint signs with now: its own, and the previous one while it overlaps.
  async function signingNow(id: string) {
    const [row] = await app.platform.database.db.select().from(webhookEndpoints)
      .where(eq(webhookEndpoints.id, id));
    return signingSecrets(app.sealing, row!, new Date());
  }

  const rotate = (id: string) => request(app, account.keys.test, 'POST',
    `/v1/webhookEndpoints/${id}:rotateSecret`, { overlapSeconds: 3_600 });

  it('answers ten concurrent rotations with secrets that each signed in turn', async () => {
    const { id, secret: first } = await created(account.keys.test);
    const answers = await Promise.all(Array.from({ length: 10 }, () => rotate(id)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(10).fill(200));
    const answered = answers.map((answer) => answer.json().secret as string);
    expect(new Set([first, ...answered]).size).toBe(11);
    const [current, previous] = await signingNow(id);
    expect(answered).toContain(current);
    expect(answered).toContain(previous);
  });

  // Two rotations held at the same moment by a transaction of the test that locks the
  // endpoint: each must read the endpoint as the other left it. Without turns both read the
  // first secret, and the one that wrote last kept it as the previous secret, so the secret
  // answered to the other never signed. The embedded database serves one transaction at a time.
  it.runIf(process.env.DATABASE_URL)('lets a rotation keep the secret of the one before it',
    async () => {
      const { id } = await created(account.keys.test);
      const holder = await app.platform.database.pool.connect();
      let answers: Array<{ statusCode: number; json(): { secret: string } }>;
      try {
        await holder.query('begin');
        await holder.query('select 1 from webhook_endpoints where id = $1 for update', [id]);
        const rotations = Promise.all([rotate(id), rotate(id)]);
        const waiting = await pollUntil(async () => (await holder.query(`select count(*)::int
          as n from pg_stat_activity where datname = current_database()
          and wait_event_type = 'Lock'`)).rows[0].n as number, (count) => count === 2);
        expect(waiting).toBe(2);
        await holder.query('commit');
        answers = await rotations;
      } finally {
        holder.release();
      }
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
      const answered = answers.map((answer) => answer.json().secret);
      expect([...await signingNow(id)].sort()).toEqual([...answered].sort());
    });

  it('returns 204 on delete, then 404', async () => {
    const { id } = await created(account.keys.test);
    const url = `/v1/webhookEndpoints/${id}`;
    const deleted = await request(app, account.keys.test, 'DELETE', url);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expectError(await request(app, account.keys.test, 'GET', url), 404, 'NOT_FOUND');
    expectError(await request(app, account.keys.test, 'DELETE', url), 404, 'NOT_FOUND');
  });

  it('charges no points for managing endpoints', async () => {
    const fresh = await app.createAccount();
    const scope = { accountId: fresh.accountId, environment: 'test' as const };
    const before = await app.platform.points.getBalance(scope);
    const { id } = await created(fresh.keys.test);
    await request(app, fresh.keys.test, 'GET', '/v1/webhookEndpoints');
    await request(app, fresh.keys.test, 'GET', `/v1/webhookEndpoints/${id}/deliveries`);
    await request(app, fresh.keys.test, 'GET', '/v1/webhookEvents');
    expect(await app.platform.points.getBalance(scope)).toEqual(before);
  });
});

describe('errors', () => {
  let key: string;
  let liveKey: string;
  beforeAll(async () => {
    ({ keys: { test: key, live: liveKey } } = await app.createAccount());
  });
  const valid = { url: TEST_URL, events: ['TAX_INVOICE_ISSUANCE_SUCCESS'] };

  it.each([
    ['a url that is not a string', { ...valid, url: 42 }, /body\.url must be string/],
    ['no url', { events: valid.events }, /body\.url is required/],
    ['no events', { url: TEST_URL }, /body\.events is required/],
    ['no event type', { ...valid, events: [] }, /body\.events/],
    ['an unknown event type', { ...valid, events: ['INVOICE_PAID'] },
      /body\.events\[0\] must be one of TAX_INVOICE_ISSUANCE_SUCCESS, /],
    ['a repeated event type', { ...valid, events: [valid.events[0], valid.events[0]] },
      /body\.events/],
    ['a url longer than 2048 characters',
      { ...valid, url: `http://127.0.0.1/${'a'.repeat(2048)}` }, /body\.url/],
    ['a description longer than 500 characters', { ...valid, description: 'x'.repeat(501) },
      /body\.description/],
    ['a NUL character in the description', { ...valid, description: 'a\u0000b' },
      /body\.description/],
    ['a newline in the url', { ...valid, url: 'http://127.0.0.1/a\nb' }, /body\.url/],
    ['an unknown field', { ...valid, secret: 'mine' }, /body/],
    ['an array body', [valid], /body/],
  ])('returns 400 INVALID_REQUEST for %s', async (_name, body, message) => {
    expectError(await create(key, body), 400, 'INVALID_REQUEST', message);
  });

  it('returns 400 INVALID_REQUEST for a body that is not JSON', async () => {
    expectError(await create(key, '{"url":'), 400, 'INVALID_REQUEST');
  });

  it.each([
    ['a relative URL', '/hooks', 'test'],
    ['an ftp URL', 'ftp://hooks.example.test/hooks', 'test'],
    ['credentials in the URL', 'http://user:pass@hooks.example.test/hooks', 'test'],
    ['a host that does not resolve', 'http://nowhere.example.test/hooks', 'test'],
    ['a metadata address with a test key', 'http://169.254.169.254/latest', 'test'],
    ['a private address with a test key', 'http://10.1.2.3/hooks', 'test'],
    ['loopback with a test key', 'http://127.0.0.1:6379/hooks', 'test'],
    ['http with a live key', 'http://hooks.example.test/hooks', 'live'],
    ['loopback with a live key', 'https://127.0.0.1/hooks', 'live'],
    ['IPv6 loopback with a live key', 'https://[::1]/hooks', 'live'],
    ['an IPv4-mapped loopback with a live key', 'https://[::ffff:127.0.0.1]/hooks', 'live'],
    ['localhost with a live key', 'https://localhost/hooks', 'live'],
    ['a private address with a live key', 'https://192.168.0.10/hooks', 'live'],
    ['a name with one private address with a live key',
      'https://internal.example.test/hooks', 'live'],
    ['a link-local address with a live key', 'https://[fe80::1]/hooks', 'live'],
  ])('returns 400 WEBHOOK_URL_NOT_ALLOWED for %s', async (_name, url, environment) => {
    const response = await create(environment === 'live' ? liveKey : key, { ...valid, url });
    expectError(response, 400, 'WEBHOOK_URL_NOT_ALLOWED', /^body\.url /);
  });

  describe.each(['test', 'live'] as const)('with default settings, a %s key', (environment) => {
    const keyOf = () => (environment === 'live' ? liveKey : key);

    it.each(INTERNAL_HOSTS)('is refused %s, and told the setting that allows it',
      async (host) => {
        const response = await create(keyOf(), { ...valid, url: urlFor(environment, host) });
        expectError(response, 400, 'WEBHOOK_URL_NOT_ALLOWED', new RegExp('^body\\.url ' +
          '(targets|resolves to) a loopback or private address; .*' +
          'WEBHOOK_PRIVATE_TARGETS_ALLOWED=true'));
      });

    it.each(IPV4_EMBEDDING_HOSTS)('is refused %s, an address embedding IPv4', async (host) => {
      const response = await create(keyOf(), { ...valid, url: urlFor(environment, host) });
      expectError(response, 400, 'WEBHOOK_URL_NOT_ALLOWED', /embeds an IPv4 address/);
    });

    it('is refused an update that moves the URL to loopback', async () => {
      const { id } = await created(keyOf(), urlFor(environment, 'hooks.example.test'));
      for (const host of ['127.0.0.1', '[::127.0.0.1]']) {
        const response = await request(app, keyOf(), 'PATCH', `/v1/webhookEndpoints/${id}`,
          { url: urlFor(environment, host) });
        expectError(response, 400, 'WEBHOOK_URL_NOT_ALLOWED');
      }
    });
  });

  it('returns 400 WEBHOOK_URL_NOT_ALLOWED when an update moves the URL to a private address',
    async () => {
      const { id } = await created(liveKey, LIVE_URL);
      const response = await request(app, liveKey, 'PATCH', `/v1/webhookEndpoints/${id}`,
        { url: 'https://10.0.0.1/hooks' });
      expectError(response, 400, 'WEBHOOK_URL_NOT_ALLOWED');
      const read = await request(app, liveKey, 'GET', `/v1/webhookEndpoints/${id}`);
      expect(read.json().url).toBe(LIVE_URL);
    });

  it('returns 400 INVALID_REQUEST for an empty update and a negative overlap', async () => {
    const { id } = await created(key);
    expectError(await request(app, key, 'PATCH', `/v1/webhookEndpoints/${id}`, {}), 400,
      'INVALID_REQUEST');
    expectError(await request(app, key, 'POST', `/v1/webhookEndpoints/${id}:rotateSecret`,
      { overlapSeconds: -1 }), 400, 'INVALID_REQUEST', /overlapSeconds/);
    expectError(await request(app, key, 'POST', `/v1/webhookEndpoints/${id}:rotateSecret`,
      { overlapSeconds: '60' }), 400, 'INVALID_REQUEST', /overlapSeconds/);
  });

  it('returns 400 INVALID_REQUEST for a hostile endpoint id and 404 for an unknown one',
    async () => {
      const hostile = encodeURIComponent("x' or '1'='1");
      expectError(await request(app, key, 'GET', `/v1/webhookEndpoints/${hostile}`), 400,
        'INVALID_REQUEST', /params\.endpointId/);
      expectError(await request(app, key, 'GET', '/v1/webhookEndpoints/%00'), 400,
        'INVALID_REQUEST');
      expectError(await request(app, key, 'GET', '/v1/webhookEndpoints/whe_unknown'), 404,
        'NOT_FOUND');
    });

  it('returns 409 WEBHOOK_ENDPOINT_LIMIT_REACHED for the 21st endpoint of a scope', async () => {
    const fresh = await app.createAccount();
    for (let index = 0; index < 20; index += 1) await created(fresh.keys.test);
    expectError(await create(fresh.keys.test, valid), 409, 'WEBHOOK_ENDPOINT_LIMIT_REACHED');
    // The live environment of the same account has its own 20.
    await created(fresh.keys.live, LIVE_URL);
  });
});

describe('security', () => {
  it('returns 404 for another account\'s or environment\'s endpoint, for every operation',
    async () => {
      const owner = await app.createAccount();
      const stranger = await app.createAccount();
      const { id } = await created(owner.keys.test);
      const url = `/v1/webhookEndpoints/${id}`;
      for (const key of [stranger.keys.test, owner.keys.live]) {
        expectError(await request(app, key, 'GET', url), 404, 'NOT_FOUND');
        expectError(await request(app, key, 'PATCH', url, { enabled: false }), 404, 'NOT_FOUND');
        expectError(await request(app, key, 'POST', `${url}:rotateSecret`, {}), 404, 'NOT_FOUND');
        expectError(await request(app, key, 'GET', `${url}/deliveries`), 404, 'NOT_FOUND');
        expectError(await request(app, key, 'DELETE', url), 404, 'NOT_FOUND');
        const listed = await request(app, key, 'GET', '/v1/webhookEndpoints');
        expect(listed.json().results.map((item: { id: string }) => item.id)).not.toContain(id);
      }
      const read = await request(app, owner.keys.test, 'GET', url);
      expect(read.json().enabled).toBe(true);
    });
});

