import 'reflect-metadata';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { pollUntil } from '../helpers/poll.ts';
import { createUser, signedInAccount, signIn, type Browser } from './helpers.ts';

// The issuers page: list, create and edit issuers with the issuers area's service (the API's
// own schemas checking the forms), register an issuer's certificate on the hosted page, the
// registration history and the expiry warning; roles, CSRF, test and live, another account's
// issuer by its id, hostile names.

const PASSWORD = 'Dashboard-Issuer-Cert-5';
const DAY_MS = 86_400_000;
const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
// 1238112303 has digits 4–5 of 81: a corporation, whose business year may end in any month.
const CORPORATION_NUMBER = '1238112303';

let app: TestApp;
let ca: TestCa;
beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { PUBLIC_BASE_URL: 'http://localhost:80' } });
  ca = await createTestCa();
});
afterAll(async () => {
  await app?.close();
});

const issuer = { identificationNumber: VALID_NUMBER, organizationName: '주식회사 이택스',
  representativeName: '홍길동' };

type ApiIssuer = { issuerId: string; organizationName: string; contactEmail: string | null;
  fiscalYearEndMonth: number | null; taxRegistrationId: string | null };
const apiIssuers = async (key: string) => ((await app.server.inject({ method: 'GET',
  url: '/v1/issuers?limit=100', headers: { authorization: basicAuth(key) } }))
  .json() as { issuers: ApiIssuer[] }).issuers;

async function create(browser: Browser, form: Record<string, string> = issuer) {
  await browser.get('/dashboard/issuers');
  return browser.post('/dashboard/issuers', form);
}

async function created(browser: Browser, form: Record<string, string> = issuer) {
  const response = await create(browser, form);
  expect(response.statusCode, response.body).toBe(303);
  return /\/dashboard\/issuers\/([\w-]+)\?/.exec(response.headers.location as string)![1]!;
}

async function registrationPath(browser: Browser, issuerId: string) {
  await browser.get(`/dashboard/issuers/${issuerId}`);
  const response = await browser.post(`/dashboard/issuers/${issuerId}/certificate-link`, {});
  expect(response.statusCode, response.body).toBe(200);
  const url = /href="(http:\/\/localhost:80\/certificate-registration\/[\w-]{43})"/
    .exec(response.body)?.[1];
  expect(url).toBeDefined();
  return new URL(url!).pathname;
}

const upload = (path: string, certificate: TestCertificate, password = PASSWORD) =>
  app.server.inject({ method: 'POST', url: path, ...multipartBody([
    { name: 'signCert', filename: 'signCert.der', content: certificate.certificateDer },
    { name: 'signPri', filename: 'signPri.key',
      content: signPriKey(certificate.pkcs8, PASSWORD, 'pbes2') },
    { name: 'password', content: password },
  ]) });

describe('issuers page', () => {
  it('creates an issuer with the API\'s service and edits it', async () => {
    const { browser, keys, accountId } = await signedInAccount(app, 'owner');
    const empty = await browser.get('/dashboard/issuers');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('등록된 발행자가 없습니다');
    const issuerId = await created(browser, { ...issuer, identificationNumber: '123-45-67891',
      taxRegistrationId: '0001', contactName: '김담당', contactEmail: 'tax@example.co.kr',
      contactPhone: '02-1234-5678', fiscalYearEndMonth: '' });
    const [viaApi] = await apiIssuers(keys.test);
    expect(viaApi).toMatchObject({ issuerId, organizationName: '주식회사 이택스',
      taxRegistrationId: '0001', contactEmail: 'tax@example.co.kr', fiscalYearEndMonth: null });
    const detail = await browser.get(`/dashboard/issuers/${issuerId}?notice=issuers.created`);
    expect(detail.body).toContain('발행자를 등록했습니다');
    expect(detail.body).toContain('123-45-67891');
    expect(detail.body).toContain('등록된 공동인증서가 없습니다');
    expect(detail.body).toContain('등록 이력이 없습니다');
    const saved = await browser.post(`/dashboard/issuers/${issuerId}`, {
      organizationName: '이택스 주식회사', representativeName: '홍길동', contactName: '',
      contactEmail: '', contactPhone: '', fiscalYearEndMonth: '' });
    expect(saved.statusCode, saved.body).toBe(303);
    const [changed] = await apiIssuers(keys.test);
    expect(changed).toMatchObject({ organizationName: '이택스 주식회사', contactEmail: null });
    const list = await browser.get('/dashboard/issuers');
    expect(list.body).toContain(`href="/dashboard/issuers/${issuerId}"`);
    expect(list.body).toContain('이택스 주식회사');
    const { rows } = await app.platform.database.db.execute(sql`select action from
      dashboard_audit_events where account_id = ${accountId} and action like 'issuer.%'
      order by sequence`);
    expect(rows.map((row) => row.action)).toEqual(['issuer.created', 'issuer.updated']);
  });

  it('refuses what the API refuses, the form kept, nothing created', async () => {
    const { browser, keys } = await signedInAccount(app, 'admin');
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ ...issuer, identificationNumber: '1234567890' }, 400, '사업자등록번호가 올바르지 않습니다'],
      [{ ...issuer, identificationNumber: 'abc' }, 400, '사업자등록번호가 올바르지 않습니다'],
      [{ ...issuer, organizationName: '' }, 400, '상호 1~100자'],
      [{ ...issuer, organizationName: 'x'.repeat(101) }, 400, '상호 1~100자'],
      [{ ...issuer, taxRegistrationId: '0000' }, 400, '종사업장 번호 숫자 4자리'],
      [{ ...issuer, contactEmail: 'not-an-email' }, 400, '이메일과 전화번호 형식'],
      [{ ...issuer, fiscalYearEndMonth: '13' }, 400, '입력을 확인하세요'],
      [{ ...issuer, fiscalYearEndMonth: '3' }, 400, '사업연도 마지막 달은 법인만'],
    ];
    for (const [form, status, words] of cases) {
      const response = await create(browser, form);
      expect(response.statusCode, JSON.stringify(form)).toBe(status);
      expect(response.body).toContain(words);
      if (form.organizationName !== '') {
        expect(response.body).toContain(`value="${form.organizationName}"`);
      }
    }
    expect(await apiIssuers(keys.test)).toEqual([]);
    await created(browser, { ...issuer, identificationNumber: CORPORATION_NUMBER,
      fiscalYearEndMonth: '3' });
    await created(browser);
    const duplicate = await create(browser);
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.body).toContain('사용 중인 발행자가 이미 있습니다');
    expect(await apiIssuers(keys.test)).toHaveLength(2);
  });

  it('registers a certificate on the hosted page and shows the history', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    const issuerId = await created(browser);
    const path = await registrationPath(browser, issuerId);
    const certificate = await issueCertificate(ca,
      { subject: corporateSubject('이택스', VALID_NUMBER) });
    expect((await upload(path, certificate, 'wrong-password')).statusCode).toBe(422);
    expect((await upload(path, certificate)).statusCode).toBe(200);
    expect((await upload(path, certificate)).statusCode).toBe(410);
    const page = await browser.get(`/dashboard/issuers/${issuerId}`);
    expect(page.body).toContain(`이택스(${VALID_NUMBER})`);
    expect(page.body).not.toContain('만료됩니다');
    const history = page.body.slice(page.body.indexOf('id="history-title"'));
    expect(history).toMatch(/REGISTERED[\s\S]*WRONG_PASSWORD/);
    expect(history).toContain('(최근)');
    const { rows } = await app.platform.database.db.execute(sql`select count(*)::int as n from
      dashboard_audit_events where account_id = ${accountId}
      and action = 'issuer.certificateLinkCreated'`);
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('warns 30 days before a certificate expires, on the list and the issuer', async () => {
    const { browser } = await signedInAccount(app, 'owner');
    const issuerId = await created(browser);
    const soon = await issueCertificate(ca, { subject: corporateSubject('이택스', VALID_NUMBER),
      notAfter: new Date(Date.now() + 10 * DAY_MS) });
    expect((await upload(await registrationPath(browser, issuerId), soon)).statusCode).toBe(200);
    const detail = await pollUntil(() => browser.get(`/dashboard/issuers/${issuerId}`),
      (response) => response.body.includes('만료됩니다'));
    expect(detail.body).toMatch(/공동인증서가 1[01]일 뒤에 만료됩니다/);
    const list = await browser.get('/dashboard/issuers');
    expect(list.body).toMatch(/1[01]일 뒤 만료/);
    expect(list.body).toContain('30일 안에 만료되거나 이미 만료된 인증서가 있습니다: 주식회사 이택스');
  });

  it('answers 404 for another account\'s issuer, and changes nothing of it', async () => {
    const owner = await signedInAccount(app, 'owner');
    const other = await signedInAccount(app, 'owner');
    const theirs = await created(other.browser);
    await owner.browser.get('/dashboard/issuers');
    expect((await owner.browser.get(`/dashboard/issuers/${theirs}`)).statusCode).toBe(404);
    expect((await owner.browser.post(`/dashboard/issuers/${theirs}`,
      { ...issuer, organizationName: 'Taken' })).statusCode).toBe(404);
    const link = await owner.browser.post(`/dashboard/issuers/${theirs}/certificate-link`, {});
    expect(link.statusCode).toBe(404);
    expect(link.body).not.toContain('/certificate-registration/');
    expect((await owner.browser.get('/dashboard/issuers/iss_nope')).statusCode).toBe(404);
    expect((await apiIssuers(other.keys.test))[0]!.organizationName).toBe('주식회사 이택스');
  });

  it('keeps test and live issuers apart, and asks for LIVE in live', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    const testIssuer = await created(browser);
    await browser.post('/dashboard/environment', { environment: 'live' });
    const live = await browser.get('/dashboard/issuers');
    expect(live.body).toContain('등록된 발행자가 없습니다');
    expect(live.body).toContain('name="confirm"');
    expect((await browser.get(`/dashboard/issuers/${testIssuer}`)).statusCode).toBe(404);
    const unconfirmed = await browser.post('/dashboard/issuers',
      { ...issuer, identificationNumber: OTHER_VALID_NUMBER });
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.body).toContain('확인란에 LIVE를 정확히 입력하세요');
    const wrong = await browser.post('/dashboard/issuers',
      { ...issuer, identificationNumber: OTHER_VALID_NUMBER, confirm: 'live please' });
    expect(wrong.statusCode).toBe(400);
    expect(await apiIssuers(keys.live)).toEqual([]);
    const confirmed = await browser.post('/dashboard/issuers',
      { ...issuer, identificationNumber: OTHER_VALID_NUMBER, confirm: 'LIVE' });
    expect(confirmed.statusCode).toBe(303);
    expect(await apiIssuers(keys.live)).toHaveLength(1);
    expect(await apiIssuers(keys.test)).toHaveLength(1);
  });

  it.each(['developer', 'issuer', 'viewer'] as Role[])('lets the %s role read but change nothing',
    async (role) => {
      const owner = await signedInAccount(app, 'owner');
      const issuerId = await created(owner.browser);
      const user = await createUser(app, owner.accountId, role);
      const browser = await signIn(app, user.email);
      const list = await browser.get('/dashboard/issuers');
      expect(list.statusCode).toBe(200);
      expect(list.body).toContain('주식회사 이택스');
      expect(list.body).not.toContain('action="/dashboard/issuers"');
      const detail = await browser.get(`/dashboard/issuers/${issuerId}`);
      expect(detail.statusCode).toBe(200);
      expect(detail.body).not.toContain('certificate-link');
      expect((await browser.post('/dashboard/issuers',
        { ...issuer, identificationNumber: OTHER_VALID_NUMBER })).statusCode).toBe(403);
      expect((await browser.post(`/dashboard/issuers/${issuerId}`,
        { ...issuer, organizationName: 'Changed' })).statusCode).toBe(403);
      expect((await browser.post(`/dashboard/issuers/${issuerId}/certificate-link`, {}))
        .statusCode).toBe(403);
      expect(await apiIssuers(owner.keys.test)).toHaveLength(1);
    });

  it('refuses a POST without the token or from another origin', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    await browser.get('/dashboard/issuers');
    expect((await browser.post('/dashboard/issuers', { ...issuer, _csrf: 'x' })).statusCode)
      .toBe(403);
    expect((await browser.post('/dashboard/issuers', issuer,
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect(await apiIssuers(keys.test)).toEqual([]);
  });

  it('shows hostile names inert, with the page\'s headers', async () => {
    const { browser } = await signedInAccount(app, 'owner');
    // The API refuses control characters, not markup: it is stored and shown as text.
    const issuerId = await created(browser, { ...issuer, organizationName: HOSTILE,
      representativeName: '<b>x</b>', contactName: HOSTILE.slice(0, 50) });
    for (const path of ['/dashboard/issuers', `/dashboard/issuers/${issuerId}`,
      `/dashboard/issuers?cursor=${encodeURIComponent(HOSTILE)}`]) {
      const page = await browser.get(path);
      expect(page.statusCode, path).toBe(200);
      expect(page.body).not.toMatch(/<script>alert|<img src=x|<b>x<\/b>/);
      expect(page.body).toContain('&lt;script>alert(1)&lt;/script>');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
    const refused = await create(browser, { ...issuer, identificationNumber: HOSTILE });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).not.toMatch(/<script>alert|<img src=x/);
    const link = await browser.post(`/dashboard/issuers/${issuerId}/certificate-link`, {});
    expect(link.body).not.toMatch(/<script>alert|<img src=x/);
    expect(link.headers['cache-control']).toBe('no-store');
  });
});
