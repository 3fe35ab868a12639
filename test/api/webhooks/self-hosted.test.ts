// WEBHOOK_PRIVATE_TARGETS_ALLOWED=true (docs/webhooks.md § Allowed URLs): a self-hosted setup
// lets live endpoints target private addresses, while https stays required and link-local and
// metadata addresses stay refused.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { createFakeDns, openWebhookApp, request, type WebhookTestApp } from './harness.ts';

let database: TestDatabase;
let app: WebhookTestApp;
const dns = createFakeDns();

beforeAll(async () => {
  database = await createTestDatabase();
  dns.hosts.set('erp.internal', ['10.20.30.40']);
  app = await openWebhookApp(database, {
    env: { WORKERS_ENABLED: 'false', WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true' },
    webhooks: { resolveHost: dns.resolveHost },
  });
});
afterAll(async () => {
  await app?.close();
  await database?.drop();
});

function create(key: string, url: string) {
  return request(app, key, 'POST', '/v1/webhookEndpoints',
    { url, events: ['CERTIFICATE_REGISTRATION_SUCCESS'] });
}

it('accepts private and loopback https targets for a live key', async () => {
  const { keys } = await app.createAccount();
  for (const url of ['https://erp.internal/hooks', 'https://192.168.0.10/hooks',
    'https://127.0.0.1:8443/hooks']) {
    const response = await create(keys.live, url);
    expect(response.statusCode, url).toBe(201);
  }
});

it('still refuses http, link-local and metadata targets for a live key', async () => {
  const { keys } = await app.createAccount();
  for (const url of ['http://erp.internal/hooks', 'https://169.254.169.254/latest',
    'https://[fe80::1]/hooks', 'https://[fd00:ec2::254]/']) {
    const response = await create(keys.live, url);
    expect(response.statusCode, url).toBe(400);
    expect(response.json().code).toBe('WEBHOOK_URL_NOT_ALLOWED');
  }
});
