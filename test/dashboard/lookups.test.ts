import 'reflect-metadata';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createUser, signedInAccount, signIn, type Browser } from './helpers.ts';

// The lookups page: a business profile, registration statuses and bank account holders through
// the same charged services as the API, the price shown before the call, a confirmation that
// runs once, the typed confirmation in live, the same rate limit, CSV of the results; roles,
// CSRF and hostile input.

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
const PROFILE = '999-99-00005';

let app: TestApp;
beforeAll(async () => {
  // A small limit on status checks, so the rate limit can be reached in a test.
  app = await createTestApp({ env: { RATE_LIMIT_OVERRIDES: JSON.stringify({
    'businesses.registrationStatus.bulkInquire': { limit: 3, windowSeconds: 60 } }) } });
});
afterAll(async () => {
  await app?.close();
});

const balance = async (accountId: string, environment: 'test' | 'live' = 'test') =>
  (await app.platform.points.getBalance({ accountId, environment })).available;

// The preview's confirmation form: its hidden fields, as the browser would post them.
function confirmation(body: string): Record<string, string> {
  const form = body.slice(body.indexOf('/run"'));
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)?.[1];
  const decode = (value: string | undefined) => (value ?? '').replaceAll('&quot;', '"')
    .replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
  return { input: decode(field('input')), bankCode: decode(field('bankCode')),
    nonce: field('nonce') ?? '' };
}

async function preview(browser: Browser, kind: string, form: Record<string, string>) {
  await browser.get('/dashboard/lookups');
  return browser.post(`/dashboard/lookups/${kind}/preview`, form);
}

async function lookUp(browser: Browser, kind: string, form: Record<string, string>,
  extra: Record<string, string> = {}) {
  const shown = await preview(browser, kind, form);
  expect(shown.statusCode, shown.body).toBe(200);
  return browser.post(`/dashboard/lookups/${kind}/run`, { ...confirmation(shown.body), ...extra });
}

function csvForm(body: string) {
  const results = /name="results" value="([^"]*)"/.exec(body)?.[1] ?? '';
  const signature = /name="signature" value="([^"]*)"/.exec(body)?.[1] ?? '';
  return { results: results.replaceAll('&quot;', '"').replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>').replaceAll('&amp;', '&'), signature };
}

describe('lookups page', () => {
  it('shows each price, then looks up a profile and charges it once', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    const page = await browser.get('/dashboard/lookups');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('찾은 경우에만 90 P 차감');
    expect(page.body).toContain('답을 받은 번호마다 10 P 차감');
    expect(page.body).toContain('예금주를 찾은 계좌마다 50 P 차감');
    const before = await balance(accountId);
    const shown = await preview(browser, 'profile', { input: PROFILE });
    expect(shown.body).toContain('단가 90 P, 최대 90 P 차감');
    expect(await balance(accountId)).toBe(before);
    const form = confirmation(shown.body);
    const results = await browser.post('/dashboard/lookups/profile/run', form);
    expect(results.statusCode, results.body).toBe(200);
    expect(results.body).toContain('9999900005');
    expect(await balance(accountId)).toBe(before - 90);
    // The same confirmation again (a double click, a reload) runs nothing.
    const again = await browser.post('/dashboard/lookups/profile/run', form);
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('이미 실행되었습니다');
    expect(await balance(accountId)).toBe(before - 90);
    const csv = await browser.post('/dashboard/lookups/csv', csvForm(results.body));
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toBe(
      'attachment; filename="etax-profile-test.csv"; filename*=UTF-8\'\'etax-profile-test.csv');
    expect(csv.body.startsWith('\uFEFFbusinessRegistrationNumber,organizationName,')).toBe(true);
    expect(csv.body).toContain('9999900005');
    const { rows } = await app.platform.database.db.execute(sql`select action, target from
      dashboard_audit_events where account_id = ${accountId} and action like 'lookup.%'`);
    expect(rows).toEqual([{ action: 'lookup.businessProfile', target: '1' }]);
  });

  it('answers a profile the source has not with the API\'s 404, and charges nothing', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    const before = await balance(accountId);
    const missing = await lookUp(browser, 'profile', { input: '999-99-00039' });
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('NOT_FOUND');
    const unsandboxed = await lookUp(browser, 'profile', { input: '123-45-67891' });
    expect(unsandboxed.statusCode).toBe(400);
    expect(unsandboxed.body).toContain('INVALID_REQUEST');
    expect(await balance(accountId)).toBe(before);
  });

  it('checks up to 100 registration statuses and downloads them as CSV', async () => {
    const { browser, accountId } = await signedInAccount(app, 'developer');
    const before = await balance(accountId);
    const input = '999-99-01004\n999-99-01019\n\n9999901004\n';
    const shown = await preview(browser, 'status', { input });
    expect(shown.body).toContain('입력 3건');
    expect(shown.body).toContain('단가 10 P, 최대 30 P 차감');
    const results = await browser.post('/dashboard/lookups/status/run',
      confirmation(shown.body));
    expect(results.statusCode, results.body).toBe(200);
    expect(results.body).toContain('SIMPLIFIED_RECEIPT_ISSUER');
    // Two distinct numbers: charged for two.
    expect(await balance(accountId)).toBe(before - 20);
    const csv = await browser.post('/dashboard/lookups/csv', csvForm(results.body));
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe('\uFEFFbusinessRegistrationNumber,status,closedOn,taxType,checkedAt');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/^9999901019,ACTIVE,,SIMPLIFIED_RECEIPT_ISSUER,/);
    const tooMany = await preview(browser, 'status', { input: Array.from({ length: 101 },
      () => '999-99-01004').join('\n') });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.body).toContain('한 번에 최대 100개까지 조회합니다. 입력은 101개입니다');
    const bad = await lookUp(browser, 'status', { input: '999-99-01004\n1234567890' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('INVALID_BUSINESS_REGISTRATION_NUMBER');
    expect(await balance(accountId)).toBe(before - 20);
  });

  it('looks up bank holders with banks chosen by name, hostile lines shown as text', async () => {
    const { browser, accountId } = await signedInAccount(app, 'issuer');
    const before = await balance(accountId);
    const input = ['123-456-789012', 'KB국민은행, 9990000002', '신한은행\t110123456789',
      `Kookmin Bank, ${HOSTILE.slice(0, 40)}`].join('\n');
    const shown = await preview(browser, 'holders', { bankCode: '088', input });
    expect(shown.statusCode, shown.body).toBe(200);
    expect(shown.body).not.toMatch(/<script>alert|<img src=x/);
    expect(shown.body).toContain('최대 200 P 차감');
    const results = await browser.post('/dashboard/lookups/holders/run',
      confirmation(shown.body));
    expect(results.statusCode, results.body).toBe(200);
    expect(results.body).not.toMatch(/<script>alert|<img src=x/);
    expect(results.body).toContain('&lt;script>alert(1)&lt;/script>');
    expect(results.body).toContain('ACCOUNT_NOT_FOUND');
    expect(results.body).toContain('INVALID_ACCOUNT_NUMBER');
    expect(results.body).toContain('신한은행');
    // Two holders found: 100 points.
    expect(await balance(accountId)).toBe(before - 100);
    const csv = await browser.post('/dashboard/lookups/csv', csvForm(results.body));
    expect(csv.body).toContain('004,KB국민은행,9990000002,,ACCOUNT_NOT_FOUND');
    expect(csv.body).toContain('088,신한은행,123-456-789012,');
    const unknownBank = await preview(browser, 'holders', { bankCode: '',
      input: `${HOSTILE}, 123456789012` });
    expect(unknownBank.statusCode).toBe(400);
    expect(unknownBank.body).toContain('1번째 줄의 은행을 찾을 수 없습니다');
    expect(unknownBank.body).not.toMatch(/<script>alert|<img src=x/);
    const noBank = await preview(browser, 'holders', { bankCode: '', input: '123456789012' });
    expect(noBank.statusCode).toBe(400);
    expect(noBank.body).toContain('1번째 줄에 은행이 없습니다');
  });

  it('refuses a download it did not sign for this session', async () => {
    const one = await signedInAccount(app, 'owner');
    const two = await signedInAccount(app, 'owner');
    const results = await lookUp(one.browser, 'status', { input: '999-99-01004' });
    const form = csvForm(results.body);
    await two.browser.get('/dashboard/lookups');
    expect((await two.browser.post('/dashboard/lookups/csv', form)).statusCode).toBe(400);
    const forged = { ...form, results: form.results.replace('ACTIVE', 'CLOSED') };
    expect((await one.browser.post('/dashboard/lookups/csv', forged)).statusCode).toBe(400);
  });

  it('counts lookups against the API\'s rate limit of the operation', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    for (let call = 0; call < 3; call += 1) {
      expect((await lookUp(browser, 'status', { input: '999-99-01004' })).statusCode).toBe(200);
    }
    const before = await balance(accountId);
    const limited = await lookUp(browser, 'status', { input: '999-99-01004' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^[0-9]+$/);
    expect(limited.body).toContain('요청이 너무 많습니다');
    expect(await balance(accountId)).toBe(before);
  });

  it('asks for LIVE in live, and spends nothing without it', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    await app.platform.points.grant({ accountId, environment: 'live', points: 1_000 });
    await browser.post('/dashboard/environment', { environment: 'live' });
    const shown = await preview(browser, 'holders', { bankCode: '004', input: '123456789012' });
    expect(shown.body).toContain('name="confirm"');
    const form = confirmation(shown.body);
    const unconfirmed = await browser.post('/dashboard/lookups/holders/run', form);
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.body).toContain('확인란에 LIVE를 정확히 입력하세요');
    expect(await balance(accountId, 'live')).toBe(1_000);
    // Confirmed, it reaches the service, which has no live bank network on this server.
    const confirmed = await browser.post('/dashboard/lookups/holders/run',
      { ...form, confirm: 'LIVE' });
    expect(confirmed.statusCode).toBe(503);
    expect(confirmed.body).toContain('LOOKUP_UNAVAILABLE');
    expect(await balance(accountId, 'live')).toBe(1_000);
  });

  it('shows the records pages in English when the user chose it', async () => {
    const { browser } = await signedInAccount(app, 'owner');
    await browser.get('/dashboard');
    expect((await browser.post('/dashboard/language', { locale: 'en', return: '/dashboard' }))
      .statusCode).toBe(303);
    const expected: Array<[string, string]> = [['/dashboard/lookups', 'See the price'],
      ['/dashboard/connections', 'Connect the tax portal'],
      ['/dashboard/issuers', 'Register an issuer']];
    for (const [path, words] of expected) {
      const page = await browser.get(path);
      expect(page.statusCode, path).toBe(200);
      expect(page.body).toContain('<html lang="en">');
      expect(page.body, path).toContain(words);
    }
    const shown = await preview(browser, 'status', { input: '999-99-01004' });
    expect(shown.body).toContain('10 P each, at most 10 P');
  });

  it('lets a Viewer read the prices but look nothing up', async () => {
    const owner = await signedInAccount(app, 'owner');
    const viewer = await createUser(app, owner.accountId, 'viewer' as Role);
    const browser = await signIn(app, viewer.email);
    const page = await browser.get('/dashboard/lookups');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('90 P');
    expect(page.body).not.toContain('/preview"');
    const before = await balance(owner.accountId);
    expect((await browser.post('/dashboard/lookups/profile/preview', { input: PROFILE }))
      .statusCode).toBe(403);
    expect((await browser.post('/dashboard/lookups/profile/run',
      { input: PROFILE, nonce: 'a'.repeat(22) })).statusCode).toBe(403);
    expect(await balance(owner.accountId)).toBe(before);
  });

  it('refuses a POST without the token or from another origin, and unknown kinds', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    const before = await balance(accountId);
    const shown = await preview(browser, 'profile', { input: PROFILE });
    const form = confirmation(shown.body);
    expect((await browser.post('/dashboard/lookups/profile/run', { ...form, _csrf: 'x' }))
      .statusCode).toBe(403);
    expect((await browser.post('/dashboard/lookups/profile/run', form,
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect(await balance(accountId)).toBe(before);
    expect((await browser.post('/dashboard/lookups/other/preview', { input: PROFILE }))
      .statusCode).toBe(404);
    const hostile = await preview(browser, 'profile', { input: HOSTILE });
    expect(hostile.body).not.toMatch(/<script>alert|<img src=x/);
  });
});
