// Delivery-time checks with default settings (docs/webhooks.md § Allowed URLs): an endpoint saved
// while its host resolved to a public address is refused at every attempt once the host resolves
// to loopback, a private address or an IPv6 address embedding IPv4, for test and live keys alike.
// Nothing connects, the delivery log shows the one message every unanswered attempt gets, and
// only the server log, at debug, says that the address was refused.
import net, { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NO_ANSWER_ERROR } from '../../../src/areas/webhooks/deliver.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import {
  clearDeliveryJobs,
  createEndpoint,
  createFakeDns,
  openWebhookApp,
  recordEvent,
  request,
  workQueuedDeliveries,
  type WebhookTestApp,
} from './harness.ts';

const PUBLIC_ADDRESS = '93.184.215.14';
const REBOUND_ADDRESSES = ['127.0.0.1', '::1', '10.0.0.7', '::ffff:127.0.0.1', '::127.0.0.1',
  '64:ff9b::7f00:1', '2002:7f00:1::1'];

let database: TestDatabase;
let app: WebhookTestApp;
let listener: net.Server;
let port: number;
let connections = 0;
const logLines: Array<Record<string, unknown>> = [];
const dns = createFakeDns();

beforeAll(async () => {
  database = await createTestDatabase();
  // A listener on loopback that counts connections: any connection at all means a refused
  // address was reached.
  listener = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  ({ port } = listener.address() as AddressInfo);
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  app = await openWebhookApp(database, {
    env: { WORKERS_ENABLED: 'false', LOG_LEVEL: 'debug' },
    webhooks: { resolveHost: dns.resolveHost, logDestination },
  });
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => listener?.close(resolve));
  await database?.drop();
});

it.each(['test', 'live'] as const)('refuses every internal or IPv4-embedding address a %s ' +
  'endpoint\'s host comes to resolve to', async (environment) => {
  const account = await app.createAccount();
  const key = account.keys[environment];
  const scheme = environment === 'test' ? 'http' : 'https';
  const endpoints = [];
  for (const [index, address] of REBOUND_ADDRESSES.entries()) {
    const host = `rebound-${environment}-${index}.example.test`;
    dns.hosts.set(host, [PUBLIC_ADDRESS]);
    const endpoint = await createEndpoint(app, key,
      { url: `${scheme}://${host}:${port}/hooks`, events: ['TAX_INVOICE_ISSUANCE_SUCCESS'] });
    dns.hosts.set(host, [address]);
    endpoints.push({ ...endpoint, address });
  }

  // Only this test's first attempts: the other environment's retries wait in the queue too.
  await clearDeliveryJobs(app);
  await recordEvent(app, { accountId: account.accountId, environment });
  expect(await workQueuedDeliveries(app)).toEqual(endpoints.map(() => 'retrying'));
  expect(connections).toBe(0);
  for (const endpoint of endpoints) {
    const response = await request(app, key, 'GET',
      `/v1/webhookEndpoints/${endpoint.id}/deliveries`);
    const [delivery] = response.json().results;
    expect(delivery, endpoint.address).toMatchObject({ lastResponseStatus: null,
      lastError: NO_ANSWER_ERROR });
    const logged = logLines.find((line) => line.msg === 'webhook attempt got no answer' &&
      line.deliveryId === delivery.id);
    expect(JSON.stringify(logged?.reason), endpoint.address).toContain('ETAX_TARGET_REFUSED');
  }
});
