// WEBHOOK_PRIVATE_TARGETS_ALLOWED=true (docs/webhooks.md § Allowed URLs): a self-hosted setup
// lets test and live endpoints target loopback and private addresses in every form, while https
// stays required for live keys, and link-local, metadata and IPv4-embedding IPv6 addresses stay
// refused.
import { expect, it } from 'vitest';
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

let app: WebhookTestApp;
const dns = createFakeDns();
dns.hosts.set('erp.internal', ['10.20.30.40']);
useInternalNames(dns);

useWebhookApp({
  env: { WORKERS_ENABLED: 'false', WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true' },
  webhooks: { resolveHost: dns.resolveHost },
}, (made) => {
  app = made;
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

it.each(['test', 'live'] as const)('accepts every loopback and private form for a %s key',
  async (environment) => {
    const { keys } = await app.createAccount();
    for (const host of INTERNAL_HOSTS) {
      const response = await create(keys[environment], urlFor(environment, host));
      expect(response.statusCode, host).toBe(201);
      // Deleted again: an account has at most 20 endpoints per environment.
      const deleted = await request(app, keys[environment], 'DELETE',
        `/v1/webhookEndpoints/${response.json().id}`);
      expect(deleted.statusCode).toBe(204);
    }
  });

it.each(['test', 'live'] as const)('still refuses IPv6 addresses embedding IPv4 for a %s key',
  async (environment) => {
    const { keys } = await app.createAccount();
    for (const host of IPV4_EMBEDDING_HOSTS) {
      const response = await create(keys[environment], urlFor(environment, host));
      expect(response.statusCode, host).toBe(400);
      expect(response.json().message, host).toMatch(/embeds an IPv4 address/);
    }
  });
