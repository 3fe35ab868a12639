// The hosted certificate registration page (docs/issuers.md § Hosted registration), end to
// end: GET …/certificates/url → the page's HTML → the browser's multipart POST → the outcome at
// once: 303 to the key's redirect URL (or etax's own page) for a registration, a 422 page that
// names the failure and shows the form again for a failed attempt → latestHistory. A link works
// for five minutes and until a registration succeeds (an injected clock moves time, nothing
// sleeps); unknown, used and expired links are HTML 404/410 pages. The whole log stream, at
// trace level, never contains the certificate password.
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
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
  multipartBody,
  request,
  OTHER_VALID_NUMBER,
  VALID_NUMBER,
  waitForHistory,
} from './helpers.ts';

const PASSWORD = 'Hosted-Page-Secret-9f3c';
const REDIRECT = 'https://app.example.com/certificates/done?from=etax';
// A registration link is valid this long (docs/issuers.md).
const FIVE_MINUTES_MS = 5 * 60 * 1000;
const DAY_MS = 86_400_000;

let app: App;
let database: TestDatabase;
let ca: TestCa;
let good: TestCertificate;
let clockOffsetMs = 0;
const logLines: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const config = loadConfig({ LOG_LEVEL: 'trace', REDIS_URL: undefined, ...database.env,
    PUBLIC_BASE_URL: 'https://etax.example.com' });
  const logDestination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  app = await createApp(config, { outside: { logDestination,
    now: () => new Date(Date.now() + clockOffsetMs) } });
  await app.start();
  await app.server.ready();
  ({ ca, certificate: good } = await createCaWithCertificate('이택스', VALID_NUMBER));
});
afterAll(async () => {
  await app?.close();
  await database?.drop();
});

async function newIssuer(organizationName = '주식회사 이택스') {
  const account = await app.platform.accounts.createAccount({ name: 'Hosted', plan: 'FREE' });
  const issuer = await createIssuer(app, account.keys.test, { organizationName });
  return { key: account.keys.test, ...issuer };
}

async function registrationPath(key: string, issuerId: string) {
  // The app's clock read before and after the request brackets the moment the link was made.
  const beforeMs = Date.now() + clockOffsetMs;
  const response = await app.server.inject(request(key, 'GET',
    `/v1/issuers/${issuerId}/certificates/url`));
  const afterMs = Date.now() + clockOffsetMs;
  expect(response.statusCode).toBe(200);
  const { url, expiresAt } = response.json() as { url: string; expiresAt: string };
  expect(url).toMatch(/^https:\/\/etax\.example\.com\/certificate-registration\/[\w-]{43}$/);
  // Valid five minutes from then.
  expect(new Date(expiresAt).getTime()).toBeGreaterThanOrEqual(beforeMs + FIVE_MINUTES_MS);
  expect(new Date(expiresAt).getTime()).toBeLessThanOrEqual(afterMs + FIVE_MINUTES_MS);
  return new URL(url).pathname;
}

function form(password = PASSWORD, format: 'pbes2' | 'seedCbc' = 'pbes2',
  certificate = good) {
  return multipartBody([
    { name: 'signCert', filename: 'signCert.der', content: certificate.certificateDer },
    { name: 'signPri', filename: 'signPri.key', content: signPriKey(certificate.pkcs8, PASSWORD,
      format) },
    { name: 'password', content: password },
  ]);
}

async function latestCode(key: string, issuerId: string) {
  const response = await app.server.inject(request(key, 'GET',
    `/v1/issuers/${issuerId}/certificates/latestHistory`));
  return (response.json() as { latestHistory: { code: string } }).latestHistory.code;
}

const postForm = (path: string, body = form()) =>
  app.server.inject({ method: 'POST', url: path, ...body });

describe('happy', () => {
  it('serves the page, accepts the form, redirects with the identifier, then REGISTERED',
    async () => {
      const { key, issuerId } = await newIssuer();
      const saved = await app.server.inject(request(key, 'PUT',
        '/v1/certificateRegistrationSettings', { certificateRedirectUrl: REDIRECT }));
      expect(saved.json()).toEqual({ certificateRedirectUrl: REDIRECT });
      const path = await registrationPath(key, issuerId);
      const page = await app.server.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.body).toContain('주식회사 이택스');
      expect(page.body).toContain(`action="${path}"`);
      const response = await postForm(path, form(PASSWORD, 'seedCbc'));
      expect(response.statusCode).toBe(303);
      const location = new URL(String(response.headers.location));
      expect(`${location.origin}${location.pathname}`)
        .toBe('https://app.example.com/certificates/done');
      expect(location.searchParams.get('from')).toBe('etax');
      expect(location.searchParams.get('issuerId')).toBe(issuerId);
      const identifier = location.searchParams.get('identifier')!;
      const record = await waitForHistory(app, key, issuerId, identifier);
      expect(record.code).toBe('REGISTERED');
    });

  it('shows its own page with the certificate when the key has no redirect URL', async () => {
    const { key, issuerId } = await newIssuer();
    const settings = await app.server.inject(request(key, 'GET',
      '/v1/certificateRegistrationSettings'));
    expect(settings.json()).toEqual({ certificateRedirectUrl: null });
    const response = await postForm(await registrationPath(key, issuerId));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('Certificate registered');
    expect(response.body).toContain(`이택스(${VALID_NUMBER})`);
    expect(response.body).toContain('yessignCA-Test Class 2');
    // Recorded before the page answered: no job to wait for.
    expect(await latestCode(key, issuerId)).toBe('REGISTERED');
  });

  it('shows a wrong password at once, does not redirect, and the same link then registers',
    async () => {
      const { key, issuerId } = await newIssuer();
      await app.server.inject(request(key, 'PUT', '/v1/certificateRegistrationSettings',
        { certificateRedirectUrl: REDIRECT }));
      const path = await registrationPath(key, issuerId);
      const failed = await postForm(path, form('wrong-one'));
      expect(failed.statusCode).toBe(422);
      expect(failed.headers.location).toBeUndefined();
      expect(failed.body).toContain('Wrong password');
      expect(failed.body).toContain('WRONG_PASSWORD');
      // The form again, posting to the same link.
      expect(failed.body).toContain(`action="${path}"`);
      expect(await latestCode(key, issuerId)).toBe('WRONG_PASSWORD');
      expect((await app.server.inject({ method: 'GET', url: path })).statusCode).toBe(200);
      const registered = await postForm(path);
      expect(registered.statusCode).toBe(303);
      const identifier = new URL(String(registered.headers.location)).searchParams
        .get('identifier');
      const record = await waitForHistory(app, key, issuerId, identifier!);
      expect(record.code).toBe('REGISTERED');
    });

  it('names each failure on the page, keeps the link, and records every attempt', async () => {
    const { key, issuerId } = await newIssuer();
    const path = await registrationPath(key, issuerId);
    const subject = corporateSubject('이택스', VALID_NUMBER);
    const expired = await issueCertificate(ca, { subject, keys: good.keys,
      notBefore: new Date(Date.now() - 400 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
    const another = await issueCertificate(ca, { keys: good.keys,
      subject: corporateSubject('남의회사', OTHER_VALID_NUMBER) });
    // good's certificate with the key of another one.
    const mismatched = { ...good, pkcs8: (await issueCertificate(ca, { subject })).pkcs8 };
    const cases: Array<[ReturnType<typeof form>, string, string]> = [
      [form(PASSWORD, 'pbes2', another), 'VID_MISMATCH', 'Another business'],
      [form(PASSWORD, 'pbes2', expired), 'CERTIFICATE_EXPIRED', 'The certificate has expired'],
      [form(PASSWORD, 'pbes2', mismatched), 'KEY_MISMATCH', 'do not belong together'],
      [multipartBody([
        { name: 'signCert', filename: 'signCert.der', content: good.certificateDer },
        { name: 'signPri', filename: 'signPri.key', content: good.certificateDer },
        { name: 'password', content: PASSWORD },
      ]), 'UNSUPPORTED_KEY_FORMAT', 'PBES2 with PBKDF2-HMAC-SHA1 and SEED-CBC'],
    ];
    for (const [body, code, text] of cases) {
      const response = await postForm(path, body);
      expect(response.statusCode, code).toBe(422);
      expect(response.body).toContain(code);
      expect(response.body).toContain(text);
      expect(await latestCode(key, issuerId)).toBe(code);
    }
    expect((await postForm(path)).statusCode).toBe(200);
    expect(await latestCode(key, issuerId)).toBe('REGISTERED');
  });
});

describe('errors', () => {
  it('answers 410 once a registration used the link, for the page and the form', async () => {
    const { key, issuerId } = await newIssuer();
    const path = await registrationPath(key, issuerId);
    expect((await postForm(path)).statusCode).toBe(200);
    const again = await postForm(path);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('already used');
    expect((await app.server.inject({ method: 'GET', url: path })).statusCode).toBe(410);
    // A wrong password after the registration is not an attempt: nothing is recorded.
    expect((await postForm(path, form('wrong-one'))).statusCode).toBe(410);
    expect(await latestCode(key, issuerId)).toBe('REGISTERED');
  });

  it('registers exactly one of two forms posted at once with the same link', async () => {
    const { key, issuerId } = await newIssuer();
    const path = await registrationPath(key, issuerId);
    const statuses = (await Promise.all([postForm(path), postForm(path)]))
      .map((response) => response.statusCode).sort();
    expect(statuses).toEqual([200, 410]);
  });

  it('answers 410 once five minutes have passed, and the page worked just before', async () => {
    const { key, issuerId } = await newIssuer();
    const path = await registrationPath(key, issuerId);
    try {
      clockOffsetMs = 299_000;
      expect((await app.server.inject({ method: 'GET', url: path })).statusCode).toBe(200);
      clockOffsetMs = 300_001;
      const page = await app.server.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(410);
      expect(page.body).toContain('expired');
      expect((await postForm(path)).statusCode).toBe(410);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('answers 410 to a link whose issuer was deactivated after it was made', async () => {
    const { key, issuerId } = await newIssuer();
    const path = await registrationPath(key, issuerId);
    await app.server.inject(request(key, 'DELETE', `/v1/issuers/${issuerId}`));
    expect((await app.server.inject({ method: 'GET', url: path })).statusCode).toBe(410);
    expect((await postForm(path)).statusCode).toBe(410);
  });

  it('answers 404 to a token it never issued, in any shape', async () => {
    for (const token of ['x'.repeat(43), 'short', '%3Cscript%3E']) {
      const response = await app.server.inject({ method: 'GET',
        url: `/certificate-registration/${token}` });
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain('<script>');
    }
  });

  it('answers 400 and keeps the link usable when a file or the password is missing', async () => {
    const { key, issuerId } = await newIssuer();
    const path = await registrationPath(key, issuerId);
    const missing = multipartBody([
      { name: 'signCert', filename: 'signCert.der', content: good.certificateDer },
      { name: 'password', content: PASSWORD },
    ]);
    expect((await postForm(path, missing)).statusCode).toBe(400);
    const extra = multipartBody([{ name: 'other', content: 'x' }]);
    expect((await postForm(path, extra)).statusCode).toBe(400);
    const notMultipart = await app.server.inject({ method: 'POST', url: path,
      payload: '{}', headers: { 'content-type': 'application/json' } });
    expect(notMultipart.statusCode).toBe(400);
    expect((await postForm(path)).statusCode).toBe(200);
  });

  it('answers 400 to a form the multipart parser cannot read, and the link stays usable',
    async () => {
      const { key, issuerId } = await newIssuer();
      const path = await registrationPath(key, issuerId);
      const part = 'Content-Disposition: form-data; name="password"\r\n\r\n' + PASSWORD;
      const malformed: { type: string; payload: string }[] = [
        // Cut off inside a field, before the closing boundary.
        { type: 'multipart/form-data; boundary=b0', payload: `--b0\r\n${part}` },
        // No boundary parameter at all.
        { type: 'multipart/form-data', payload: `--b0\r\n${part}\r\n--b0--\r\n` },
        // A part header that never ends.
        { type: 'multipart/form-data; boundary=b0',
          payload: `--b0\r\nContent-Disposition: form-data; name="${'x'.repeat(20_000)}` },
        // Not multipart at all under a multipart type.
        { type: 'multipart/form-data; boundary=b0', payload: '\u0000\uffff'.repeat(100) },
        { type: 'multipart/form-data; boundary=b0', payload: '' },
      ];
      for (const { type, payload } of malformed) {
        const response = await app.server.inject({ method: 'POST', url: path, payload,
          headers: { 'content-type': type } });
        expect(response.statusCode, `${type}: ${payload.slice(0, 40)}`).toBe(400);
        expect(response.headers['content-type']).toContain('text/html');
      }
      expect((await postForm(path)).statusCode).toBe(200);
    });

  it('answers 413 for a file over 16 KiB', async () => {
    const { key, issuerId } = await newIssuer();
    const body = multipartBody([
      { name: 'signCert', filename: 'signCert.der', content: Buffer.alloc(20_000, 1) },
      { name: 'signPri', filename: 'signPri.key', content: Buffer.alloc(10, 1) },
      { name: 'password', content: PASSWORD },
    ]);
    expect((await postForm(await registrationPath(key, issuerId), body)).statusCode).toBe(413);
  });

  it('returns 400 INVALID_REQUEST for a redirect URL that is not http(s)', async () => {
    const { key } = await newIssuer();
    for (const url of ['javascript:alert(1)', 'ftp://example.com/', 'not a url']) {
      expectError(await app.server.inject(request(key, 'PUT',
        '/v1/certificateRegistrationSettings', { certificateRedirectUrl: url })), 400,
      'INVALID_REQUEST');
    }
  });
});

describe('security', () => {
  it('allows its one stylesheet by hash and no other inline style', async () => {
    const { key, issuerId } = await newIssuer();
    const page = await app.server.inject({ method: 'GET',
      url: await registrationPath(key, issuerId) });
    const policy = String(page.headers['content-security-policy']);
    expect(policy).not.toContain('unsafe-inline');
    const styles = [...page.body.matchAll(/<style>([^<]*)<\/style>/g)].map((match) => match[1]!);
    expect(styles).toHaveLength(1);
    const hash = createHash('sha256').update(styles[0]!).digest('base64');
    expect(policy).toContain(`style-src 'sha256-${hash}';`);
    expect(page.body).not.toMatch(/ style=/);
  });

  it('escapes the organization name in the page', async () => {
    const { key, issuerId } = await newIssuer('<img src=x onerror=alert(1)>');
    const page = await app.server.inject({ method: 'GET',
      url: await registrationPath(key, issuerId) });
    expect(page.body).not.toContain('<img');
    expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('never writes the password or an R-value to the log, even at trace level', async () => {
    const { key, issuerId } = await newIssuer();
    const accepted = await app.server.inject(request(key, 'POST',
      `/v1/issuers/${issuerId}/certificates`, {
        signCert: good.certificateDer.toString('base64'),
        signPri: signPriKey(good.pkcs8, PASSWORD, 'pbes2').toString('base64'),
        password: PASSWORD,
      }));
    const { identifier } = accepted.json() as { identifier: string };
    await waitForHistory(app, key, issuerId, identifier);
    await postForm(await registrationPath(key, issuerId));
    app.platform.log.info({ body: { password: PASSWORD, signPri: 'secret-file' } }, 'probe');
    app.platform.log.info({ request: { signerRandomNumber: 'secret-r-value' } }, 'probe');
    const logs = logLines.join('');
    expect(logs).toContain('probe');
    expect(logs).toContain('[redacted]');
    expect(logs).not.toContain(PASSWORD);
    expect(logs).not.toContain('secret-file');
    expect(logs).not.toContain('secret-r-value');
  });
});
