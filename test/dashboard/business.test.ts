import 'reflect-metadata';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expiryState } from '../../src/dashboard/pages/business.tsx';
import type { Role } from '../../src/dashboard/roles.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import {
  corporateSubject,
  createTestCa,
  issueCertificate,
  signPriKey,
  type TestCa,
  type TestCertificate,
} from '../areas/issuers/certificate-fixtures.ts';
import { multipartBody, OTHER_VALID_NUMBER, VALID_NUMBER } from '../api/issuers/helpers.ts';
import { createUser, signedInAccount, signIn, type Browser } from './helpers.ts';

// The owner business page: the business is set by the same service as PUT /v1/account/business,
// its certificate registered on the issuers area's hosted page through a link the page makes
// with the same service as GET /v1/issuers/{issuerId}/certificates/url; the registration
// history and the expiry warning; roles, environments and hostile names.

const PASSWORD = 'Dashboard-Cert-Secret-4k2';
const DAY_MS = 86_400_000;
const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

let app: TestApp;
let ca: TestCa;
beforeAll(async () => {
  app = await createTestApp({ env: { PUBLIC_BASE_URL: 'http://localhost:80' } });
  ca = await createTestCa();
});
afterAll(async () => {
  await app?.close();
});

const business = { businessNumber: VALID_NUMBER, name: '주식회사 이택스',
  representativeName: '홍길동' };

async function saveBusiness(browser: Browser, form: Record<string, string> = business) {
  await browser.get('/dashboard/business');
  return browser.post('/dashboard/business', form);
}

const apiBusiness = (key: string) => app.server.inject({ method: 'GET',
  url: '/v1/account/business', headers: { authorization: basicAuth(key) } });

// The hosted page's path from the dashboard's link page.
async function registrationPath(browser: Browser) {
  await browser.get('/dashboard/business');
  const response = await browser.post('/dashboard/business/certificate-link', {});
  expect(response.statusCode).toBe(200);
  const url = /href="(http:\/\/localhost:80\/certificate-registration\/[\w-]{43})"/
    .exec(response.body)?.[1];
  expect(url).toBeDefined();
  return new URL(url!).pathname;
}

async function upload(path: string, certificate: TestCertificate, password = PASSWORD) {
  return app.server.inject({ method: 'POST', url: path, ...multipartBody([
    { name: 'signCert', filename: 'signCert.der', content: certificate.certificateDer },
    { name: 'signPri', filename: 'signPri.key',
      content: signPriKey(certificate.pkcs8, PASSWORD, 'pbes2') },
    { name: 'password', content: password },
  ]) });
}

const certificateFor = (name: string, number: string, notAfter?: Date) =>
  issueCertificate(ca, { subject: corporateSubject(name, number), notAfter });

describe('owner business page', () => {
  it('sets the owner business with the API\'s service, and changes it in place', async () => {
    const { browser, keys, accountId } = await signedInAccount(app, 'owner');
    const empty = await browser.get('/dashboard/business');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('계정 사업자가 아직 없습니다');
    const saved = await saveBusiness(browser);
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/dashboard/business?notice=saved');
    const api = await apiBusiness(keys.test);
    expect(api.statusCode).toBe(200);
    expect(api.json()).toMatchObject({ ...business, certificate: null });
    const page = await browser.get('/dashboard/business?notice=saved');
    expect(page.body).toContain('주식회사 이택스');
    expect(page.body).toContain('등록된 공동인증서가 없습니다');
    await saveBusiness(browser, { ...business, name: '이택스 주식회사',
      businessNumber: '123-45-67891' });
    expect((await apiBusiness(keys.test)).json()).toMatchObject({ name: '이택스 주식회사',
      issuerId: api.json().issuerId });
    const { rows } = await app.platform.database.db.execute(sql`select action from
      dashboard_audit_events where account_id = ${accountId} and action like 'business.%'`);
    expect(rows).toEqual([{ action: 'business.saved' }, { action: 'business.saved' }]);
  });

  it('refuses bad input with 400, the form kept, nothing saved', async () => {
    const { browser, keys } = await signedInAccount(app, 'admin');
    const cases: Array<[Record<string, string>, string]> = [
      [{ ...business, businessNumber: '1234567890' }, '사업자등록번호가 올바르지 않습니다'],
      [{ ...business, businessNumber: '12345' }, '사업자등록번호가 올바르지 않습니다'],
      [{ ...business, businessNumber: 'abcdefghij' }, '사업자등록번호가 올바르지 않습니다'],
      [{ ...business, name: '' }, '상호는 1~100자'],
      [{ ...business, name: 'x'.repeat(101) }, '상호는 1~100자'],
      [{ ...business, representativeName: 'a\u0000b' }, '상호는 1~100자'],
      [{ businessNumber: VALID_NUMBER }, '상호는 1~100자'],
    ];
    for (const [form, words] of cases) {
      const response = await saveBusiness(browser, form);
      expect(response.statusCode, JSON.stringify(form)).toBe(400);
      expect(response.body).toContain(words);
    }
    expect((await apiBusiness(keys.test)).statusCode).toBe(409);
  });

  it('registers a sandbox certificate on the hosted page and shows the history', async () => {
    const { browser, keys, accountId } = await signedInAccount(app, 'owner');
    await saveBusiness(browser);
    const path = await registrationPath(browser);
    const certificate = await certificateFor('이택스', VALID_NUMBER);
    expect((await upload(path, certificate, 'wrong-password')).statusCode).toBe(422);
    expect((await upload(path, certificate)).statusCode).toBe(200);
    // Used up by the registration.
    expect((await upload(path, certificate)).statusCode).toBe(410);
    const api = (await apiBusiness(keys.test)).json();
    expect(api.certificate).not.toBeNull();
    const page = await browser.get('/dashboard/business');
    expect(page.body).toContain(`이택스(${VALID_NUMBER})`);
    expect(page.body).not.toContain('등록된 공동인증서가 없습니다');
    expect(page.body).not.toContain('만료됩니다');
    const history = page.body.slice(page.body.indexOf('id="history-title"'));
    expect(history.indexOf('REGISTERED')).toBeLessThan(history.indexOf('WRONG_PASSWORD'));
    expect(history).toMatch(/REGISTERED[\s\S]*WRONG_PASSWORD/);
    expect(history).toContain('(최근)');
    const { rows } = await app.platform.database.db.execute(sql`select action from
      dashboard_audit_events where account_id = ${accountId}
      and action = 'business.certificateLinkCreated'`);
    expect(rows).toHaveLength(1);
  });

  it('warns 30 days before the certificate expires', async () => {
    const { browser } = await signedInAccount(app, 'owner');
    await saveBusiness(browser);
    const soon = await certificateFor('이택스', VALID_NUMBER, new Date(Date.now() + 10 * DAY_MS));
    expect((await upload(await registrationPath(browser), soon)).statusCode).toBe(200);
    const page = await browser.get('/dashboard/business');
    expect(page.body).toMatch(/공동인증서가 1[01]일 뒤에 만료됩니다/);
    const now = new Date('2026-11-27T00:00:00Z');
    expect(expiryState(new Date(now.getTime() + 31 * DAY_MS), now)).toBe('valid');
    expect(expiryState(new Date(now.getTime() + 30 * DAY_MS), now)).toBe('expiring');
    expect(expiryState(new Date(now.getTime() + 1), now)).toBe('expiring');
    expect(expiryState(now, now)).toBe('expired');
  });

  it('keeps test and live owner businesses apart', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    await saveBusiness(browser);
    await browser.post('/dashboard/environment', { environment: 'live' });
    const live = await browser.get('/dashboard/business');
    expect(live.body).toContain('계정 사업자가 아직 없습니다');
    expect(live.body).not.toContain('주식회사 이택스');
    const refused = await browser.post('/dashboard/business/certificate-link', {});
    expect(refused.statusCode).toBe(409);
    await saveBusiness(browser, { ...business, businessNumber: OTHER_VALID_NUMBER,
      name: '라이브 상회' });
    expect((await apiBusiness(keys.live)).json().name).toBe('라이브 상회');
    expect((await apiBusiness(keys.test)).json().name).toBe('주식회사 이택스');
  });

  it.each(['developer', 'issuer', 'viewer'] as Role[])('lets the %s role read but change nothing',
    async (role) => {
      const owner = await signedInAccount(app, 'owner');
      await saveBusiness(owner.browser);
      const user = await createUser(app, owner.accountId, role);
      const browser = await signIn(app, user.email);
      const page = await browser.get('/dashboard/business');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('주식회사 이택스');
      expect(page.body).not.toContain('action="/dashboard/business"');
      expect(page.body).not.toContain('certificate-link');
      expect((await browser.post('/dashboard/business', { ...business, name: 'Changed' }))
        .statusCode).toBe(403);
      const link = await browser.post('/dashboard/business/certificate-link', {});
      expect(link.statusCode).toBe(403);
      expect(link.body).not.toContain('/certificate-registration/');
      expect((await apiBusiness(owner.keys.test)).json().name).toBe('주식회사 이택스');
    });

  it('refuses a POST without the token or from another origin', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    await browser.get('/dashboard/business');
    expect((await browser.post('/dashboard/business', { ...business, _csrf: 'x' })).statusCode)
      .toBe(403);
    expect((await browser.post('/dashboard/business', business,
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect((await apiBusiness(keys.test)).statusCode).toBe(409);
  });

  it('shows hostile business names inert, with the page\'s headers', async () => {
    const { browser } = await signedInAccount(app, 'owner');
    expect((await saveBusiness(browser, { ...business, name: HOSTILE,
      representativeName: '<b>x</b>' })).statusCode).toBe(303);
    for (const path of ['/dashboard/business']) {
      const page = await browser.get(path);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toMatch(/<script>alert|<img src=x|<b>x<\/b>/);
      expect(page.body).toContain('&lt;script>alert(1)&lt;/script>');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
    }
    const link = await browser.post('/dashboard/business/certificate-link', {});
    expect(link.body).not.toMatch(/<script>alert|<img src=x/);
    expect(link.headers['cache-control']).toBe('no-store');
  });
});
