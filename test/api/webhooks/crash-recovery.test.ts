// The outbox survives a process that dies between commit and delivery (docs/webhooks.md): an
// app without workers records an event and closes before anything is sent; a new app with
// workers on the same database delivers it, signed with the endpoint's secret.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyWebhookSignature } from '@etax/sdk';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { pollUntil } from '../../helpers/poll.ts';
import {
  ISSUANCE_SUCCESS,
  openWebhookApp,
  RECEIVER_ON_LOOPBACK,
  request,
  startReceiver,
  type Receiver,
  type WebhookTestApp,
} from './harness.ts';

// pg-boss polls the delivery queue every second; 200 probes 100 ms apart leave room for a
// slow, shared machine.
const DELIVERY_POLL = { attemptsMax: 200, intervalMs: 100 };

let database: TestDatabase;
let receiver: Receiver;
let restarted: WebhookTestApp | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startReceiver();
});
afterAll(async () => {
  await restarted?.close();
  await receiver?.close();
  await database?.drop();
});

async function waitForDelivery() {
  await pollUntil(async () => receiver.received.length, (count) => count > 0, DELIVERY_POLL);
}

it('delivers an event committed by a process that stopped before sending it', async () => {
  const first = await openWebhookApp(database, { env: { ...RECEIVER_ON_LOOPBACK,
    WORKERS_ENABLED: 'false' } });
  const account = await first.createAccount();
  const created = await request(first, account.keys.test, 'POST', '/v1/webhookEndpoints', {
    url: receiver.url, events: ['TAX_INVOICE_ISSUANCE_SUCCESS'],
  });
  expect(created.statusCode).toBe(201);
  const { secret } = created.json() as { secret: string };
  const scope = { accountId: account.accountId, environment: 'test' as const };
  const event = await first.platform.database.db.transaction(
    (tx) => first.webhooks.recordEvent(tx, scope, ISSUANCE_SUCCESS));
  await first.close();
  expect(receiver.received).toEqual([]);

  restarted = await openWebhookApp(database, { env: RECEIVER_ON_LOOPBACK });
  await waitForDelivery();
  expect(receiver.received).toHaveLength(1);
  const [delivered] = receiver.received;
  expect(delivered!.headers['etax-event-id']).toBe(event.id);
  expect(verifyWebhookSignature({
    payload: delivered!.body,
    header: String(delivered!.headers['etax-signature']),
    secrets: secret,
  })).toBe(true);
});
