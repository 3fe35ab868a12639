// Webhook signing secrets at rest (docs/webhooks.md § Secrets at rest): the table holds them
// only sealed with the encryption key, deliveries are still signed with them, a secret an
// earlier release stored in plain text still signs and is sealed at the next start, and after a
// key rotation the endpoints' secrets are sealed again with the new key. Apps open one after the
// other on the same database, each with the keys of the moment.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createSealingKey, SealedBoxError } from '../../../src/domain/sealed-box.ts';
import { verifyWebhookSignature } from '@etax/sdk';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import {
  clearDeliveryJobs,
  createEndpoint,
  openWebhookApp,
  RECEIVER_ON_LOOPBACK,
  recordEvent,
  request,
  startReceiver,
  workQueuedDeliveries,
  type Receiver,
  type WebhookTestApp,
} from './harness.ts';

const OLD_KEY = randomBytes(32);
const NEW_KEY = randomBytes(32);
const EVENTS = ['TAX_INVOICE_ISSUANCE_SUCCESS'];

let database: TestDatabase;
let receiver: Receiver;
let app: WebhookTestApp | null = null;

beforeAll(async () => {
  database = await createTestDatabase();
  receiver = await startReceiver();
});
beforeEach(() => {
  receiver.received.length = 0;
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await database?.drop();
});

// Closes the app of the previous step, if any, and opens one with these keys.
async function reopen(keys: { current: Buffer; previous?: Buffer[] }) {
  await app?.close();
  app = await openWebhookApp(database, { env: {
    ...RECEIVER_ON_LOOPBACK,
    WORKERS_ENABLED: 'false',
    ENCRYPTION_KEY: keys.current.toString('base64'),
    ...(keys.previous
      ? { ENCRYPTION_PREVIOUS_KEYS: keys.previous.map((key) =>
        key.toString('base64')).join(',') }
      : {}),
  } });
  return app;
}

type StoredRow = { id: string; secret: string | null; previous_secret: string | null;
  sealed_secret: string | null; sealed_previous_secret: string | null };

async function storedRow(endpointId: string): Promise<StoredRow> {
  const result = await app!.platform.database.pool.query<StoredRow>(
    `select id, secret, previous_secret, sealed_secret, sealed_previous_secret
       from webhook_endpoints where id = $1`, [endpointId]);
  return result.rows[0]!;
}

// Records an event for the account, works its delivery and returns the request the receiver got.
async function deliverOne(account: { accountId: string }) {
  await clearDeliveryJobs(app!);
  await recordEvent(app!, { accountId: account.accountId, environment: 'test' });
  expect(await workQueuedDeliveries(app!)).toEqual(['succeeded']);
  expect(receiver.received).toHaveLength(1);
  return receiver.received.pop()!;
}

function verifies(delivered: { headers: Record<string, unknown>; body: string }, secret: string) {
  return verifyWebhookSignature({ payload: delivered.body,
    header: String(delivered.headers['etax-signature']), secrets: [secret] });
}

async function rotate(key: string, endpointId: string) {
  const response = await request(app!, key, 'POST',
    `/v1/webhookEndpoints/${endpointId}:rotateSecret`, {});
  expect(response.statusCode).toBe(200);
  return (response.json() as { secret: string }).secret;
}

it('stores secrets only sealed, and signs deliveries with them', async () => {
  await reopen({ current: OLD_KEY });
  const account = await app!.createAccount();
  const endpoint = await createEndpoint(app!, account.keys.test,
    { url: receiver.url, events: EVENTS });
  const rotated = await rotate(account.keys.test, endpoint.id);

  const row = await storedRow(endpoint.id);
  expect(row).toMatchObject({ secret: null, previous_secret: null });
  expect(JSON.stringify(row)).not.toContain(endpoint.secret);
  expect(JSON.stringify(row)).not.toContain(rotated);
  expect(JSON.stringify(row)).not.toContain('whsec_');
  const opened = createSealingKey(OLD_KEY);
  expect(opened.open(row.sealed_secret!, endpoint.id).toString()).toBe(rotated);
  expect(opened.open(row.sealed_previous_secret!, endpoint.id).toString()).toBe(endpoint.secret);
  // Bound to its endpoint: the box does not open as another endpoint's.
  expect(() => opened.open(row.sealed_secret!, 'whe_other')).toThrow(SealedBoxError);

  const delivered = await deliverOne(account);
  expect(verifies(delivered, rotated)).toBe(true);
  expect(verifies(delivered, endpoint.secret)).toBe(true);
});

it('signs with a secret an earlier release stored in plain text, and seals it at the next start',
  async () => {
    await reopen({ current: OLD_KEY });
    const account = await app!.createAccount();
    const [secret, previous] = ['whsec_plainCurrent', 'whsec_plainPrevious'];
    // A row as the release before sealing wrote it; the migration that adds the sealed columns
    // leaves it exactly so.
    await app!.platform.database.pool.query(
      `insert into webhook_endpoints (id, account_id, environment, url, event_types, secret,
         previous_secret, previous_secret_expires_at)
       values ('whe_fromEarlierRelease', $1, 'test', $2, $3, $4, $5, now() + interval '1 day')`,
      [account.accountId, receiver.url, EVENTS, secret, previous]);

    const before = await deliverOne(account);
    expect(verifies(before, secret)).toBe(true);
    expect(verifies(before, previous)).toBe(true);

    await reopen({ current: OLD_KEY });
    const row = await storedRow('whe_fromEarlierRelease');
    expect(row).toMatchObject({ secret: null, previous_secret: null });
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(previous);
    const opened = createSealingKey(OLD_KEY);
    expect(opened.open(row.sealed_secret!, row.id).toString()).toBe(secret);
    expect(opened.open(row.sealed_previous_secret!, row.id).toString()).toBe(previous);

    const after = await deliverOne(account);
    expect(verifies(after, secret)).toBe(true);
    expect(verifies(after, previous)).toBe(true);
  });

it('seals the secrets again with the new key after a key rotation', async () => {
  await reopen({ current: OLD_KEY });
  const account = await app!.createAccount();
  const endpoint = await createEndpoint(app!, account.keys.test,
    { url: receiver.url, events: EVENTS });
  const rotated = await rotate(account.keys.test, endpoint.id);
  const sealedBefore = await storedRow(endpoint.id);

  // The new key seals, the old one still opens; then everything is sealed again.
  await reopen({ current: NEW_KEY, previous: [OLD_KEY] });
  expect(verifies(await deliverOne(account), rotated)).toBe(true);
  const counts = await app!.webhooks.resealSecrets!();
  expect(counts).toEqual(expect.arrayContaining([
    expect.objectContaining({ column: 'webhook_endpoints.sealed_secret', unreadable: 0 }),
    expect.objectContaining({ column: 'webhook_endpoints.sealed_previous_secret',
      unreadable: 0 }),
  ]));

  const row = await storedRow(endpoint.id);
  expect(row.sealed_secret).not.toBe(sealedBefore.sealed_secret);
  const [newSealing, oldSealing] = [createSealingKey(NEW_KEY), createSealingKey(OLD_KEY)];
  expect(newSealing.open(row.sealed_secret!, endpoint.id).toString()).toBe(rotated);
  expect(newSealing.open(row.sealed_previous_secret!, endpoint.id).toString())
    .toBe(endpoint.secret);
  expect(() => oldSealing.open(row.sealed_secret!, endpoint.id)).toThrow(SealedBoxError);
  expect(() => oldSealing.open(row.sealed_previous_secret!, endpoint.id))
    .toThrow(SealedBoxError);

  // The old key is retired: the new one alone signs.
  await reopen({ current: NEW_KEY });
  const delivered = await deliverOne(account);
  expect(verifies(delivered, rotated)).toBe(true);
  expect(verifies(delivered, endpoint.secret)).toBe(true);
});
