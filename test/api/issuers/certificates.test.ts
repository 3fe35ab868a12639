// Joint certificate registration by direct upload (docs/issuers.md): POST answers 202 with the
// attempt's identifier, a pg-boss job checks the files, and latestHistory shows the result
// within the 30 seconds the specification allows — one test per registration code. Also the
// certificate's public facts, its deregistration (recorded in the history), the 4xx of bad
// uploads, isolation, what the database holds (no clear key material, no password, not even in
// the job queue), and the functions tax-invoice work calls: resolveSupplierKey and
// requireIssuerCertificate.
import 'reflect-metadata';
import { verify, X509Certificate } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/platform/errors.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import {
  corporateSubject,
  createCaWithCertificate,
  issueCertificate,
  signPriKey,
  type TestCa,
  type TestCertificate,
} from '../../areas/issuers/certificate-fixtures.ts';
import {
  createIssuer,
  expectError,
  request,
  uploadBody,
  VALID_NUMBER,
  waitForHistory,
} from './helpers.ts';

const PASSWORD = 'Sup3r-Secret-Cert-Password';
const DAY_MS = 86_400_000;

let app: TestApp;
let ca: TestCa;
let good: TestCertificate;

beforeAll(async () => {
  // The webhook endpoint of the events test is on loopback.
  app = await createTestApp({ jobs: true, env: { WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true' } });
  ({ ca, certificate: good } = await createCaWithCertificate('이택스', VALID_NUMBER));
});
afterAll(async () => {
  await app?.close();
});

async function submit(key: string, issuerId: string, body: unknown) {
  return app.server.inject(request(key, 'POST', `/v1/issuers/${issuerId}/certificates`, body));
}

// Registers and waits for the record; returns it.
async function register(key: string, issuerId: string, body: unknown) {
  const response = await submit(key, issuerId, body);
  expect(response.statusCode).toBe(202);
  const accepted = response.json() as { identifier: string; issuerId: string };
  expect(accepted).toEqual({ identifier: expect.stringMatching(/^crg_/), issuerId });
  return waitForHistory(app, key, issuerId, accepted.identifier);
}

const goodUpload = (format: 'pbes2' | 'seedCbcWithSha1' | 'seedCbc' = 'pbes2') =>
  uploadBody(good.certificateDer, signPriKey(good.pkcs8, PASSWORD, format), PASSWORD);

// Every test makes accounts of its own, so the tests that wait for the registration job run at
// once.
describe.concurrent('happy', () => {
  it('registers within the window: REGISTERED, facts readable, issuer.certificate set',
    async () => {
      const { keys } = await app.createAccount();
      const { issuerId } = await createIssuer(app, keys.test);
      const record = await register(keys.test, issuerId, goodUpload('seedCbcWithSha1'));
      expect(record).toEqual({ identifier: record.identifier, issuerId, code: 'REGISTERED',
        message: 'The certificate was registered.', occurredAt: expect.any(String) });
      const facts = await app.server.inject(request(keys.test, 'GET',
        `/v1/issuers/${issuerId}/certificates`));
      expect(facts.statusCode).toBe(200);
      expect(facts.json()).toMatchObject({ subject: expect.stringContaining(VALID_NUMBER),
        issuerName: expect.stringContaining('yessignCA-Test'),
        registrationIdentifier: record.identifier, keyUsages: ['digitalSignature',
          'nonRepudiation'] });
      expect(JSON.stringify(facts.json())).not.toMatch(/PRIVATE|sealed|pkcs8/i);
      const issuer = await app.server.inject(request(keys.test, 'GET', `/v1/issuers/${issuerId}`));
      expect(issuer.json()).toMatchObject({ certificate: { issuedAt: expect.any(String),
        expiresAt: expect.any(String) } });
    });

  it('deregisters: 204, DEREGISTERED in the history, then 404 for the facts and a repeat',
    async () => {
      const { keys } = await app.createAccount();
      const { issuerId } = await createIssuer(app, keys.test);
      await register(keys.test, issuerId, goodUpload('seedCbc'));
      const url = `/v1/issuers/${issuerId}/certificates`;
      const response = await app.server.inject(request(keys.test, 'DELETE', url));
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      const history = await app.server.inject(request(keys.test, 'GET', `${url}/latestHistory`));
      expect(history.json()).toMatchObject({ latestHistory: { issuerId, code: 'DEREGISTERED' } });
      expectError(await app.server.inject(request(keys.test, 'GET', url)), 404, 'NOT_FOUND');
      expectError(await app.server.inject(request(keys.test, 'DELETE', url)), 404, 'NOT_FOUND');
    });

  it('reports each attempt as a webhook event; a deregistration is not one', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    const endpoint = await app.server.inject(request(keys.test, 'POST', '/v1/webhookEndpoints', {
      url: 'http://127.0.0.1:9/etax-events',
      events: ['CERTIFICATE_REGISTRATION_SUCCESS', 'CERTIFICATE_REGISTRATION_FAILURE'],
    }));
    expect(endpoint.statusCode).toBe(201);
    const failed = await register(keys.test, issuerId, uploadBody(good.certificateDer,
      signPriKey(good.pkcs8, PASSWORD, 'pbes2'), 'wrong'));
    const registered = await register(keys.test, issuerId, goodUpload());
    const url = `/v1/issuers/${issuerId}/certificates`;
    expect((await app.server.inject(request(keys.test, 'DELETE', url))).statusCode).toBe(204);
    const events = await app.server.inject(request(keys.test, 'GET', '/v1/webhookEvents'));
    expect(events.statusCode).toBe(200);
    const { results } = events.json() as { results: Array<{ type: string; data: unknown }> };
    expect(results.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'CERTIFICATE_REGISTRATION_SUCCESS', data: registered },
      { type: 'CERTIFICATE_REGISTRATION_FAILURE', data: failed },
    ]);
  });

  it('signs for the issuance types that need a certificate, and not for a reverse request',
    async () => {
      const { accountId, keys } = await app.createAccount();
      const { issuerId, supplierKey } = await createIssuer(app, keys.test);
      const scope = { accountId, environment: 'test' as const };
      await expect(app.issuers.requireIssuerCertificate(scope, supplierKey, 'STANDARD'))
        .rejects.toMatchObject({ code: 'CERTIFICATE_NOT_REGISTERED' });
      const request = await app.issuers.requireIssuerCertificate(scope, supplierKey,
        'REVERSE_REQUEST');
      expect(request).toMatchObject({ issuer: { id: issuerId }, signer: null });
      await register(keys.test, issuerId, goodUpload());
      for (const type of ['STANDARD', 'REVERSE_APPROVAL'] as const) {
        const { issuer, signer } = await app.issuers.requireIssuerCertificate(scope, supplierKey,
          type);
        expect(issuer.id).toBe(issuerId);
        const data = Buffer.from('<TaxInvoice/>');
        const { publicKey } = new X509Certificate(signer!.certificate);
        expect(verify('sha256', data, publicKey, await signer!.sign(data))).toBe(true);
        expect(signer!.randomNumber).toEqual(good.randomNumber);
      }
    });
});

describe.concurrent('registration codes', () => {
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['WRONG_PASSWORD', async () => uploadBody(good.certificateDer,
      signPriKey(good.pkcs8, PASSWORD, 'pbes2'), 'not-the-password')],
    ['CERTIFICATE_EXPIRED', async () => {
      const expired = await issueCertificate(ca, { keys: good.keys,
        subject: corporateSubject('이택스', VALID_NUMBER),
        notBefore: new Date(Date.now() - 400 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
      return uploadBody(expired.certificateDer, signPriKey(good.pkcs8, PASSWORD, 'pbes2'),
        PASSWORD);
    }],
    ['CERTIFICATE_NOT_YET_VALID', async () => {
      const future = await issueCertificate(ca, { keys: good.keys,
        subject: corporateSubject('이택스', VALID_NUMBER),
        notBefore: new Date(Date.now() + DAY_MS), notAfter: new Date(Date.now() + 400 * DAY_MS) });
      return uploadBody(future.certificateDer, signPriKey(good.pkcs8, PASSWORD, 'pbes2'),
        PASSWORD);
    }],
    ['KEY_MISMATCH', async () => {
      const other = await issueCertificate(ca, { subject: corporateSubject('이택스',
        VALID_NUMBER) });
      return uploadBody(good.certificateDer, signPriKey(other.pkcs8, PASSWORD, 'pbes2'),
        PASSWORD);
    }],
    ['VID_MISMATCH', async () => {
      const other = await issueCertificate(ca, { subject: corporateSubject('다른회사',
        '2208112341') });
      return uploadBody(other.certificateDer, signPriKey(other.pkcs8, PASSWORD, 'pbes2'),
        PASSWORD);
    }],
    ['VID_MISSING', async () => {
      const bare = await issueCertificate(ca, { identity: null,
        subject: corporateSubject('이택스', VALID_NUMBER) });
      return uploadBody(bare.certificateDer, signPriKey(bare.pkcs8, PASSWORD, 'pbes2'),
        PASSWORD);
    }],
    ['UNSUPPORTED_CERTIFICATE_FORMAT', async () => uploadBody(Buffer.from('garbage cert'),
      signPriKey(good.pkcs8, PASSWORD, 'pbes2'), PASSWORD)],
    ['UNSUPPORTED_KEY_FORMAT', async () => uploadBody(good.certificateDer,
      Buffer.from('garbage key file'), PASSWORD)],
  ];

  it.each(cases)('records %s and registers nothing', async (code, makeBody) => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    const record = await register(keys.test, issuerId, await makeBody());
    expect(record).toMatchObject({ issuerId, code });
    expectError(await app.server.inject(request(keys.test, 'GET',
      `/v1/issuers/${issuerId}/certificates`)), 404, 'NOT_FOUND');
  });

  it('keeps the registered certificate when a later attempt fails', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    const registered = await register(keys.test, issuerId, goodUpload());
    await register(keys.test, issuerId, uploadBody(good.certificateDer,
      signPriKey(good.pkcs8, PASSWORD, 'pbes2'), 'wrong'));
    const facts = await app.server.inject(request(keys.test, 'GET',
      `/v1/issuers/${issuerId}/certificates`));
    expect(facts.json()).toMatchObject({ registrationIdentifier: registered.identifier });
  });
});

describe('errors', () => {
  it('returns 404 CERTIFICATE_HISTORY_NOT_FOUND before any attempt', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    expectError(await app.server.inject(request(keys.test, 'GET',
      `/v1/issuers/${issuerId}/certificates/latestHistory`)), 404,
    'CERTIFICATE_HISTORY_NOT_FOUND');
  });

  it('returns 400 INVALID_REQUEST naming the field for missing, ill-typed and non-base64 files',
    async () => {
      const { keys } = await app.createAccount();
      const { issuerId } = await createIssuer(app, keys.test);
      const body = goodUpload();
      const cases: Array<[unknown, string]> = [
        [{ ...body, signCert: undefined }, 'signCert'],
        [{ ...body, signPri: 12 }, 'signPri'],
        [{ ...body, password: '' }, 'password'],
        [{ ...body, password: 'x'.repeat(129) }, 'password'],
        [{ ...body, signCert: 'not base64!' }, 'signCert'],
        [{ ...body, extra: 'x' }, 'body'],
      ];
      for (const [payload, field] of cases) {
        const error = expectError(await submit(keys.test, issuerId, payload), 400,
          'INVALID_REQUEST');
        expect(error.message).toContain(field);
      }
    });

  it('returns 413 PAYLOAD_TOO_LARGE for a body over 64 KiB and stages nothing', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    const payload = { ...goodUpload(), signCert: 'A'.repeat(70_000) };
    expectError(await submit(keys.test, issuerId, payload), 413, 'PAYLOAD_TOO_LARGE');
    expectError(await app.server.inject(request(keys.test, 'GET',
      `/v1/issuers/${issuerId}/certificates/latestHistory`)), 404,
    'CERTIFICATE_HISTORY_NOT_FOUND');
  });

  it('returns 415 UNSUPPORTED_MEDIA_TYPE for a form body on the API route', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    const options = request(keys.test, 'POST', `/v1/issuers/${issuerId}/certificates`);
    const response = await app.server.inject({ ...options, payload: 'password=x',
      headers: { ...options.headers, 'content-type': 'application/x-www-form-urlencoded' } });
    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('returns 409 ISSUER_DEACTIVATED for an upload to a deactivated issuer', async () => {
    const { keys } = await app.createAccount();
    const { issuerId } = await createIssuer(app, keys.test);
    await app.server.inject(request(keys.test, 'DELETE', `/v1/issuers/${issuerId}`));
    expectError(await submit(keys.test, issuerId, goodUpload()), 409, 'ISSUER_DEACTIVATED');
  });
});

describe.concurrent('security', () => {
  it('returns 404 for an upload, facts or history with another account or the live key',
    async () => {
      const owner = await app.createAccount();
      const stranger = await app.createAccount();
      const { issuerId } = await createIssuer(app, owner.keys.test);
      await register(owner.keys.test, issuerId, goodUpload());
      for (const key of [stranger.keys.test, owner.keys.live]) {
        expectError(await submit(key, issuerId, goodUpload()), 404, 'NOT_FOUND');
        for (const suffix of ['', '/latestHistory', '/url']) {
          expectError(await app.server.inject(request(key, 'GET',
            `/v1/issuers/${issuerId}/certificates${suffix}`)), 404, 'NOT_FOUND');
        }
      }
    });

  it('resolves a Supplier-Key only in its own account and environment', async () => {
    const { accountId, keys } = await app.createAccount();
    const other = await app.createAccount();
    const { issuerId, supplierKey } = await createIssuer(app, keys.test);
    const test = { accountId, environment: 'test' as const };
    expect((await app.issuers.resolveSupplierKey(test, supplierKey)).id).toBe(issuerId);
    for (const scope of [{ accountId, environment: 'live' as const },
      { accountId: other.accountId, environment: 'test' as const }]) {
      const error = await app.issuers.resolveSupplierKey(scope, supplierKey).catch((e) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    }
  });

  it('stores no password, no clear private key and no clear upload, not even in job data',
    async () => {
      const { keys } = await app.createAccount();
      const { issuerId } = await createIssuer(app, keys.test);
      const body = goodUpload();
      await register(keys.test, issuerId, body);
      const pending = await submit(keys.test, issuerId, goodUpload());
      expect(pending.statusCode).toBe(202);
      const dump = await databaseText();
      for (const secret of [PASSWORD, body.signPri, good.pkcs8.toString('base64'),
        good.pkcs8.toString('hex'), good.pkcs8.subarray(40, 80).toString('base64')]) {
        expect(dump).not.toContain(secret);
      }
      expect(dump).toContain(issuerId);
    });
});

// Every row of the issuers tables and of pg-boss's job tables, as text.
async function databaseText(): Promise<string> {
  const db = app.platform.database.db;
  const tables = ['issuers', 'issuer_certificates', 'certificate_uploads',
    'certificate_registration_history', 'certificate_registration_tokens', 'pgboss.job',
    'pgboss.archive'];
  const parts: string[] = [];
  for (const table of tables) {
    const exists = await db.execute(sql`select to_regclass(${table}) as name`);
    if ((exists.rows[0] as { name: string | null }).name === null) continue;
    const rows = await db.execute(sql.raw(`select t::text as row from ${table} t`));
    parts.push(...rows.rows.map((row) => String((row as { row: string }).row)));
  }
  return parts.join('\n');
}

