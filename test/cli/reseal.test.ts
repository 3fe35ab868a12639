// `etax reseal` after a rotation of the encryption key (docs/operations.md § Rotating the
// encryption key), run as an operator runs it: every secret at rest, a registered certificate's
// private key and a webhook endpoint's current and previous signing secrets, is sealed again
// with the new key, so that the app signs with only the new key configured; a box that no
// configured key opens is reported and left alone, with a failing exit status.
import 'reflect-metadata';
import { randomBytes, verify, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createSealingKey, SealedBoxError } from '../../src/domain/sealed-box.ts';
import {
  corporateSubject,
  createTestCa,
  issueCertificate,
  signPriKey,
} from '../areas/issuers/certificate-fixtures.ts';
import {
  createIssuer,
  request,
  uploadBody,
  VALID_NUMBER,
  waitForHistory,
} from '../api/issuers/helpers.ts';
import { runEtax, runEtaxJson } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const newKeyText = () => randomBytes(32).toString('base64');
const [OLD_KEY, NEW_KEY, UNRELATED_KEY] = [newKeyText(), newKeyText(), newKeyText()];
const PASSWORD = 'Reseal-Test-Password';

let database: TestDatabase;
let app: App | null = null;
let account: { accountId: string; keys: { test: string } };
let supplierKey: string;
let issuerId: string;
let endpoint: { id: string; secret: string; rotated: string };

// The app on the test's database with these keys, started so that registration jobs run.
async function openApp(keys: Record<string, string>) {
  await app?.close();
  app = await createApp(loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: undefined,
    WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true', ...database.env, ...keys }));
  await app.start();
  await app.server.ready();
  return app;
}

async function closeApp() {
  await app?.close();
  app = null;
}

async function storedBoxes() {
  const pool = (await openApp({ ENCRYPTION_KEY: UNRELATED_KEY })).platform.database
    .pool;
  const certificate = await pool.query<{ box: string }>(
    'select sealed_private_key as box from issuer_certificates where issuer_id = $1', [issuerId]);
  const secrets = await pool.query<{ current: string; previous: string }>(
    `select sealed_secret as current, sealed_previous_secret as previous from webhook_endpoints
      where id = $1`, [endpoint.id]);
  await closeApp();
  return { privateKey: certificate.rows[0]!.box, ...secrets.rows[0]! };
}

beforeAll(async () => {
  database = await createTestDatabase();
  const live = await openApp({ ENCRYPTION_KEY: OLD_KEY });
  account = await live.platform.accounts.createAccount({ name: 'Reseal', plan: 'FREE' });
  const key = account.keys.test;
  ({ issuerId, supplierKey } = await createIssuer(live, key));
  const certificate = await issueCertificate(await createTestCa(),
    { subject: corporateSubject('이택스', VALID_NUMBER) });
  const accepted = await live.server.inject(request(key, 'POST',
    `/v1/issuers/${issuerId}/certificates`, uploadBody(certificate.certificateDer,
      signPriKey(certificate.pkcs8, PASSWORD, 'pbes2'), PASSWORD)));
  expect(accepted.statusCode).toBe(202);
  const record = await waitForHistory(live, key, issuerId, accepted.json().identifier);
  expect(record.code).toBe('REGISTERED');
  const created = await live.server.inject(request(key, 'POST', '/v1/webhookEndpoints',
    { url: 'http://127.0.0.1:9/hooks', events: ['TAX_INVOICE_ISSUANCE_SUCCESS'] }));
  expect(created.statusCode).toBe(201);
  const rotated = await live.server.inject(request(key, 'POST',
    `/v1/webhookEndpoints/${created.json().id}:rotateSecret`, {}));
  endpoint = { ...created.json(), rotated: rotated.json().secret };
  await closeApp();
});
afterAll(async () => {
  await closeApp();
  await database?.drop();
});

it('seals every secret again with the new key, and the app then signs with it alone',
  async () => {
    const printed = await runEtaxJson({ ...database.env, ENCRYPTION_KEY: NEW_KEY,
      ENCRYPTION_PREVIOUS_KEYS: OLD_KEY }, ['reseal']);
    expect(printed.columns).toEqual(expect.arrayContaining([
      { column: 'issuer_certificates.sealed_private_key', resealed: 1, unreadable: 0 },
      { column: 'webhook_endpoints.sealed_secret', resealed: 1, unreadable: 0 },
      { column: 'webhook_endpoints.sealed_previous_secret', resealed: 1, unreadable: 0 },
    ]));

    const boxes = await storedBoxes();
    const newSealing = createSealingKey(Buffer.from(NEW_KEY, 'base64'));
    const oldSealing = createSealingKey(Buffer.from(OLD_KEY, 'base64'));
    expect(newSealing.open(boxes.current, endpoint.id).toString()).toBe(endpoint.rotated);
    expect(newSealing.open(boxes.previous, endpoint.id).toString()).toBe(endpoint.secret);
    expect(newSealing.open(boxes.privateKey, issuerId).length).toBeGreaterThan(0);
    for (const [box, context] of [[boxes.current, endpoint.id], [boxes.previous, endpoint.id],
      [boxes.privateKey, issuerId]] as const) {
      expect(() => oldSealing.open(box, context)).toThrow(SealedBoxError);
    }

    const retired = await openApp({ ENCRYPTION_KEY: NEW_KEY });
    const scope = { accountId: account.accountId, environment: 'test' as const };
    const { signer } = await retired.issuers.requireIssuerCertificate(scope, supplierKey,
      'STANDARD');
    const data = Buffer.from('<TaxInvoice/>');
    const publicKey = new X509Certificate(signer!.certificate).publicKey;
    expect(verify('sha256', data, publicKey, await signer!.sign(data))).toBe(true);
    await closeApp();
  });

it('reports secrets no configured key opens, leaves them alone and fails', async () => {
  const before = await storedBoxes();
  const result = await runEtax({ ...database.env, ENCRYPTION_KEY: UNRELATED_KEY },
    ['reseal']);
  expect(result.code).toBe(2);
  expect(result.stdout).toContain('issuer_certificates.sealed_private_key: 0 sealed again, ' +
    '1 unreadable');
  expect(result.stderr).toMatch(/3 sealed values open with none of the configured keys/);
  expect(await storedBoxes()).toEqual(before);
});
