import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createApp, type App } from '../../../src/app.ts';
import type { Outside } from '../../../src/platform/outside.ts';
import { loadConfig } from '../../../src/config.ts';
import { DELIVERY_QUEUE, type DeliveryJobData } from '../../../src/areas/webhooks/recorder.ts';
import { basicAuth } from '../../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { startFakeServer } from '../../helpers/fake-server.ts';

// What the webhook tests share: an app on a given test database with webhook overrides (clock,
// randomness, DNS), a real HTTP receiver on 127.0.0.1, a resolver the test controls, and a way
// to work queued delivery jobs by hand when workers are off.

// The settings of an app whose endpoints target the test's receiver on 127.0.0.1.
export const RECEIVER_ON_LOOPBACK = { WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true' };

export type WebhookTestApp = App & {
  createAccount(): Promise<{ accountId: string; keys: { test: string; live: string } }>;
};

export async function openWebhookApp(
  database: TestDatabase,
  options: { env?: Record<string, string>; webhooks?: Partial<Outside> } = {},
): Promise<WebhookTestApp> {
  const config = loadConfig({
    LOG_LEVEL: 'silent', REDIS_URL: undefined, ...database.env, ...options.env,
  });
  const app = await createApp(config, { outside: options.webhooks });
  await app.start();
  await app.server.ready();
  return {
    ...app,
    createAccount: () => app.platform.accounts.createAccount({ name: 'Webhooks', plan: 'FREE' }),
  };
}

// A database and a webhook app on it for all the tests of a file: made before the first test,
// closed and dropped after the last. `receive` hands the app to the file's own variable.
export function useWebhookApp(
  options: Parameters<typeof openWebhookApp>[1],
  receive: (app: WebhookTestApp) => void,
): void {
  let database: TestDatabase | undefined;
  let app: WebhookTestApp | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    app = await openWebhookApp(database, options);
    receive(app);
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });
}

type ReceivedRequest = {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
};

// How the receiver answers one request: a status, optionally after a delay or with headers.
type Answer = { status: number; delayMs?: number; headers?: Record<string, string>;
  body?: string };

export type Receiver = {
  url: string;
  port: number;
  received: ReceivedRequest[];
  // Answers given in order; once used up, every request gets 200.
  answers: Answer[];
  close(): Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const answers: Answer[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = await startFakeServer((request, response) => {
    received.push({ method: request.method, path: request.url, headers: request.headers,
      body: request.text });
    const answer = answers.shift() ?? { status: 200 };
    const send = () => {
      if (response.destroyed) return;
      response.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? 'ok');
    };
    if (!answer.delayMs) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      send();
    }, answer.delayMs);
    timers.add(timer);
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `${server.origin}/hooks`,
    port,
    received,
    answers,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await server.close();
    },
  };
}

// A receiver for all the tests of a file, which forgets before each test what it was sent and
// what it was told to answer. Registered after useWebhookApp, it is closed before the app.
export function useReceiver(receive: (receiver: Receiver) => void): void {
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    receiver = await startReceiver();
    receive(receiver);
  });
  afterAll(async () => {
    await receiver?.close();
  });
  beforeEach(() => {
    receiver!.received.length = 0;
    receiver!.answers.length = 0;
  });
}

// A resolver whose answers the test sets per host name; unknown names do not resolve.
export function createFakeDns() {
  const hosts = new Map<string, string[]>();
  const resolveHost = async (hostname: string): Promise<LookupAddress[]> => {
    const addresses = hosts.get(hostname);
    if (!addresses) {
      throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' });
    }
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { hosts, resolveHost };
}

// A clock the test moves by hand.
export function createManualClock(start = new Date()) {
  let nowMs = start.getTime();
  return {
    now: () => new Date(nowMs),
    advanceMs(milliseconds: number) {
      nowMs += milliseconds;
    },
    setTo(date: Date) {
      nowMs = date.getTime();
    },
  };
}

export type QueuedJob = { id: string; data: DeliveryJobData; startAfter: Date };

// Delivery jobs waiting in pg-boss, oldest first (workers are off in these tests).
export async function queuedDeliveryJobs(app: App): Promise<QueuedJob[]> {
  const result = await app.platform.database.pool.query(
    `select id, data, start_after from pgboss.job where name = $1 and state = 'created'
      order by created_on, id`,
    [DELIVERY_QUEUE],
  );
  return result.rows.map((row) => ({ id: row.id, data: row.data, startAfter: row.start_after }));
}

// Works every queued delivery job once, as a worker would, and removes it from the queue.
export async function workQueuedDeliveries(app: App) {
  const results = [];
  for (const job of await queuedDeliveryJobs(app)) {
    await app.platform.database.pool.query('delete from pgboss.job where id = $1', [job.id]);
    results.push(await app.webhooks.deliverer.runAttempt(job.data));
  }
  return results;
}

export function request(
  app: App,
  key: string,
  method: InjectOptions['method'],
  url: string,
  payload?: unknown,
) {
  const headers: Record<string, string> = { authorization: basicAuth(key) };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const body = payload === undefined ? undefined
    : typeof payload === 'string' ? payload : JSON.stringify(payload);
  return app.server.inject({ method, url, headers, payload: body });
}

export const ISSUANCE_SUCCESS = {
  type: 'TAX_INVOICE_ISSUANCE_SUCCESS',
  data: { issuanceKey: 'iss_1', taxInvoiceUrl: 'https://example.com/invoices/iss_1' },
} as const;

export type WebhookEvent = Parameters<WebhookTestApp['webhooks']['recordEvent']>[2];

// POST /v1/webhookEndpoints for `key`, which must succeed; returns the id and the secret.
export async function createEndpoint(app: WebhookTestApp, key: string,
  body: { url: string; events: string[] }) {
  const response = await request(app, key, 'POST', '/v1/webhookEndpoints', body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: string; secret: string };
}

// Hosts of our own machine or network, in every form a URL may spell them, and host names the
// test resolver answers with such addresses (register them with useInternalNames). Refused with
// default settings for test and live keys alike; allowed with WEBHOOK_PRIVATE_TARGETS_ALLOWED.
export const INTERNAL_HOSTS = [
  '127.0.0.1', 'localhost', '[::1]', '127.8.9.10', '10.1.2.3', '172.16.5.4', '192.168.0.10',
  '100.64.0.1', '[fd12::1]',
  // Decimal, hexadecimal, octal and shortened IPv4 forms, which URL parsing turns into 127.0.0.1.
  '2130706433', '0x7f000001', '0x7f.0.0.1', '0177.0.0.1', '127.1',
  'loopback.example.test', 'private.example.test',
];

// IPv6 addresses that carry an IPv4 address, and names resolving to them: refused whatever the
// settings, even when the IPv4 address they carry is public.
export const IPV4_EMBEDDING_HOSTS = [
  '[::127.0.0.1]', '[::169.254.169.254]', '[::93.184.215.14]', // IPv4-compatible
  '[::ffff:127.0.0.1]', '[::ffff:10.0.0.1]', '[0:0:0:0:0:ffff:7f00:1]', // IPv4-mapped
  '[::ffff:0:7f00:1]', // IPv4-translated
  '[64:ff9b::7f00:1]', '[64:ff9b::a9fe:a9fe]', '[64:ff9b:1::a00:1]', // NAT64
  '[2002:7f00:1::1]', // 6to4
  '[2001:0:4136:e378:8000:63bf:80ff:fffe]', // Teredo
  '[2606:4700::5efe:7f00:1]', // ISATAP
  'mapped.example.test', 'nat64.example.test',
];

export function useInternalNames(dns: ReturnType<typeof createFakeDns>) {
  dns.hosts.set('localhost', ['127.0.0.1', '::1']);
  dns.hosts.set('loopback.example.test', ['127.0.0.1']);
  dns.hosts.set('private.example.test', ['93.184.215.14', '10.0.0.7']);
  dns.hosts.set('mapped.example.test', ['::ffff:127.0.0.1']);
  dns.hosts.set('nat64.example.test', ['64:ff9b::a9fe:a9fe']);
}

// A URL on `host` that a key of this environment could use if the host were allowed.
export function urlFor(environment: 'test' | 'live', host: string) {
  return `${environment === 'test' ? 'http' : 'https'}://${host}/hooks`;
}

// Records an event of the account's environment, as the area that emits it would.
export function recordEvent(app: WebhookTestApp, scope: { accountId: string;
  environment: 'test' | 'live' }, event: WebhookEvent = ISSUANCE_SUCCESS) {
  return app.webhooks.recordEvent(app.platform.database.db,
    { accountId: scope.accountId, environment: scope.environment }, event);
}

// Drops every queued delivery job, so a test sees only the deliveries it caused.
export async function clearDeliveryJobs(app: App) {
  await app.platform.database.pool.query('delete from pgboss.job where name = $1',
    [DELIVERY_QUEUE]);
}
