import 'reflect-metadata';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { OTHER_VALID_NUMBER, VALID_NUMBER } from '../api/issuers/helpers.ts';
import { pollUntil } from '../helpers/poll.ts';
import { createUser, signedInAccount, signIn, type Browser } from './helpers.ts';

// The connections page: the tax portal and bank accounts connected on the connections area's
// hosted page through a link the page makes (the bank chosen there by its name), their state
// and last sync, collect and sync now behind the plan gate, disconnect; roles, CSRF, test and
// live, another account's connection by its id, hostile values.

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

let app: TestApp;
beforeAll(async () => {
  // Workers run: a collection or sync asked for on the page is carried out, as in production.
  app = await createTestApp({ jobs: true, env: { PUBLIC_BASE_URL: 'http://localhost:80' } });
});
afterAll(async () => {
  await app?.close();
});

const api = (key: string, url: string) => app.server.inject({ method: 'GET', url,
  headers: { authorization: basicAuth(key) } });

// An issuer of the account, so that a sandbox Hometax connection is to a business it may see.
async function createIssuer(browser: Browser, number = VALID_NUMBER, name = '주식회사 이택스') {
  await browser.get('/dashboard/issuers');
  const response = await browser.post('/dashboard/issuers', { identificationNumber: number,
    organizationName: name, representativeName: '홍길동' });
  expect(response.statusCode, response.body).toBe(303);
}

// The hosted page's path from the dashboard's link page.
async function linkPath(browser: Browser, kind: 'HOMETAX' | 'BANK_ACCOUNT') {
  await browser.get('/dashboard/connections');
  const response = await browser.post('/dashboard/connections/link', { kind });
  expect(response.statusCode, response.body).toBe(200);
  const url = /href="(http:\/\/localhost:80\/connections\/[\w-]+)"/.exec(response.body)?.[1];
  expect(url).toBeDefined();
  return new URL(url!).pathname;
}

const submit = (path: string, fields: Record<string, string>) => app.server.inject({
  method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString() });

async function connectHometax(browser: Browser, number = VALID_NUMBER) {
  await createIssuer(browser, number);
  const response = await submit(await linkPath(browser, 'HOMETAX'),
    { businessRegistrationNumber: number, userId: 'portal-user', password: 'portal-pass' });
  expect(response.statusCode, response.body).toBe(200);
}

async function connectBank(browser: Browser, accountNumber = '123456789012') {
  const path = await linkPath(browser, 'BANK_ACCOUNT');
  const response = await submit(path, { bankCode: '004', accountNumber, userId: 'bank-user',
    password: 'bank-pass' });
  expect(response.statusCode, response.body).toBe(200);
}

const connectionIds = async (key: string) =>
  ((await api(key, '/v1/connections')).json() as { items: Array<{ id: string; kind: string }> })
    .items;

describe('connections page', () => {
  it('connects the tax portal on the hosted page and collects now', async () => {
    const { browser, keys, accountId } = await signedInAccount(app, 'owner');
    const empty = await browser.get('/dashboard/connections');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('연결된 홈택스가 없습니다');
    expect(empty.body).toContain('연결된 은행 계좌가 없습니다');
    await connectHometax(browser);
    const page = await browser.get('/dashboard/connections');
    expect(page.body).toContain('123-45-67891');
    expect(page.body).toContain('샌드박스 사업자 7891');
    expect(page.body).toContain('연결됨');
    expect(page.body).toContain('지금 수집');
    const [connection] = await connectionIds(keys.test);
    const collected = await browser.post(`/dashboard/connections/${connection!.id}/collect`,
      { from: '2026-10', to: '2026-11' });
    expect(collected.statusCode, collected.body).toBe(303);
    const collectionId = /collection=([\w-]+)/.exec(collected.headers.location as string)?.[1];
    expect(collectionId).toBeDefined();
    // The same collection the API reads, queued for the job.
    const viaApi = await api(keys.test, `/v1/revenueExpenses/collections/${collectionId}`);
    expect(viaApi.statusCode).toBe(200);
    expect(viaApi.json()).toMatchObject({ from: '2026-10', to: '2026-11' });
    const first = await browser.get(collected.headers.location as string);
    expect(first.body).toMatch(/수집 요청: (대기 중|진행 중|완료)/);
    // The page asks for the state while the collection is under way, then shows its outcome.
    const fragmentPath = `/dashboard/connections/collections/${collectionId}`;
    const fragment = await pollUntil(() => browser.get(fragmentPath, { 'hx-request': 'true' }),
      (response) => response.body.includes('완료'));
    expect(fragment.statusCode).toBe(200);
    expect(fragment.body).toContain('수집 요청: 완료');
    expect(fragment.body).toMatch(/2026-10~2026-11: 조회 \d+건/);
    expect(fragment.body).not.toContain('hx-get');
    expect(fragment.body).not.toContain('<html');
    const after = await browser.get('/dashboard/connections');
    expect(after.body).not.toMatch(/마지막 수집·동기화<\/dt><dd>아직 없음/);
    expect(after.body).toContain('<dt>마지막 결과</dt><dd>성공</dd>');
    const { rows } = await app.platform.database.db.execute(sql`select action from
      dashboard_audit_events where account_id = ${accountId} and action like 'connection.%'
      order by sequence`);
    expect(rows.map((row) => row.action)).toEqual(['connection.linkCreated',
      'connection.collectRequested']);
  });

  it('refuses a month that is not YYYY-MM and a range the API refuses', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    await connectHometax(browser);
    const [connection] = await connectionIds(keys.test);
    const path = `/dashboard/connections/${connection!.id}/collect`;
    const bad = await browser.post(path, { from: '2026-13', to: HOSTILE });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('YYYY-MM');
    expect(bad.body).not.toMatch(/<script>alert|<img src=x/);
    const reversed = await browser.post(path, { from: '2026-11', to: '2026-01' });
    expect(reversed.statusCode).toBe(400);
    expect(reversed.body).toContain('INVALID_REQUEST');
    const future = await browser.post(path, { from: '2026-01', to: '2099-01' });
    expect(future.statusCode).toBe(400);
  });

  it('connects a bank account chosen by its name and syncs it now', async () => {
    const { browser, keys } = await signedInAccount(app, 'admin');
    const path = await linkPath(browser, 'BANK_ACCOUNT');
    const form = await app.server.inject({ method: 'GET', url: path });
    expect(form.body).toContain('<select name="bankCode" required>');
    expect(form.body).toContain('<option value="004">KB국민은행 · Kookmin Bank</option>');
    expect(form.body).not.toContain('maxlength="3"');
    const unknown = await submit(path, { bankCode: '999', accountNumber: '123456789012',
      userId: 'u', password: 'p' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('은행을 목록에서 고르세요');
    await connectBank(browser);
    const page = await browser.get('/dashboard/connections');
    expect(page.body).toContain('KB국민은행');
    expect(page.body).toContain('********9012');
    expect(page.body).toContain('샌드박스 예금주');
    expect(page.body).not.toContain('123456789012');
    const [connection] = await connectionIds(keys.test);
    const synced = await browser.post(`/dashboard/connections/${connection!.id}/sync`, {});
    expect(synced.statusCode, synced.body).toBe(303);
    const location = synced.headers.location as string;
    const [, syncId, accountId] = /sync=([\w-]+)&account=([\w-]+)/.exec(location) ?? [];
    const viaApi = await api(keys.test, `/v1/bankAccounts/${accountId}/syncs/${syncId}`);
    expect(viaApi.statusCode).toBe(200);
    const after = await pollUntil(() => browser.get(location),
      (response) => response.body.includes('동기화 요청: 완료'));
    expect(after.body).toContain('동기화 요청: 완료');
    expect(after.body, after.body.slice(after.body.indexOf('id="run"')))
      .toContain('<dt>마지막 결과</dt><dd>성공</dd>');
    expect(after.body).toMatch(/<dt>잔액<\/dt><dd>[0-9,]+원<\/dd>/);
  });

  it('shows a failed sync as the connection\'s last outcome', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    // The sandbox connects an account ending in 9001, and refuses its syncs.
    await connectBank(browser, '123456789001');
    const [connection] = await connectionIds(keys.test);
    const synced = await browser.post(`/dashboard/connections/${connection!.id}/sync`, {});
    expect(synced.statusCode).toBe(303);
    const after = await pollUntil(() => browser.get(synced.headers.location as string),
      (response) => response.body.includes('동기화 요청: 실패'));
    expect(after.body).toContain('동기화 요청: 실패');
    expect(after.body).toContain('<span class="state bad">실패</span>');
    expect(after.body).toMatch(/<dt>마지막 결과<\/dt><dd><code>INVALID_CREDENTIALS<\/code>/);
    const viaApi = (await api(keys.test, '/v1/connections')).json() as { items: Array<{
      state: string; failure: { code: string } | null }> };
    expect(viaApi.items[0]).toMatchObject({ state: 'FAILED',
      failure: { code: 'INVALID_CREDENTIALS' } });
  });

  it('shows what plan collections and syncs need instead of a bare error', async () => {
    const account = await app.createAccount({ plan: 'FREE' });
    const user = await createUser(app, account.accountId, 'owner');
    const browser = await signIn(app, user.email);
    await connectHometax(browser);
    await connectBank(browser);
    const page = await browser.get('/dashboard/connections');
    expect(page.body).toContain('홈택스 자료 수집에는 STANDARD 요금제 이상이 필요합니다. ' +
      '이 계정은 FREE 요금제입니다.');
    expect(page.body).toContain('은행 거래내역 동기화에는 STANDARD 요금제 이상이 필요합니다');
    expect(page.body).toContain('href="/dashboard/plan"');
    expect(page.body).not.toContain('지금 수집');
    const [hometax, bank] = await connectionIds(account.keys.test);
    for (const [id, action] of [[hometax!.id, 'collect'], [bank!.id, 'sync']] as const) {
      const refused = await browser.post(`/dashboard/connections/${id}/${action}`,
        { from: '2026-10', to: '2026-11' });
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('STANDARD 요금제 이상이 필요합니다');
    }
    const { rows } = await app.platform.database.db.execute(sql`select count(*)::int as n from
      revenue_expense_collections where account_id = ${account.accountId}`);
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('disconnects, and answers 404 for another account\'s connection', async () => {
    const owner = await signedInAccount(app, 'owner');
    const other = await signedInAccount(app, 'owner');
    await connectHometax(owner.browser);
    await connectBank(other.browser);
    const [mine] = await connectionIds(owner.keys.test);
    const [theirs] = await connectionIds(other.keys.test);
    for (const action of ['disconnect', 'collect', 'sync']) {
      const response = await owner.browser.post(`/dashboard/connections/${theirs!.id}/${action}`,
        { from: '2026-10', to: '2026-11' });
      expect(response.statusCode, action).toBe(404);
    }
    expect(await connectionIds(other.keys.test)).toHaveLength(1);
    const fragment = await owner.browser.get('/dashboard/connections/collections/rec_nope');
    expect(fragment.statusCode).toBe(404);
    const gone = await owner.browser.post(`/dashboard/connections/${mine!.id}/disconnect`, {});
    expect(gone.statusCode).toBe(303);
    expect(gone.headers.location).toBe('/dashboard/connections?notice=disconnected');
    expect(await connectionIds(owner.keys.test)).toEqual([]);
    expect((await owner.browser.get(gone.headers.location as string)).body)
      .toContain('연결을 해제했습니다');
    expect((await owner.browser.post(`/dashboard/connections/${mine!.id}/disconnect`, {}))
      .statusCode).toBe(404);
  });

  it('keeps test and live connections apart', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    await connectBank(browser);
    const [connection] = await connectionIds(keys.test);
    await browser.post('/dashboard/environment', { environment: 'live' });
    const live = await browser.get('/dashboard/connections');
    expect(live.body).toContain('연결된 은행 계좌가 없습니다');
    expect(live.body).not.toContain('********9012');
    for (const action of ['disconnect', 'sync']) {
      expect((await browser.post(`/dashboard/connections/${connection!.id}/${action}`,
        { confirm: 'LIVE' })).statusCode).toBe(404);
    }
    // A live link is made for the live environment; its page says nothing of the sandbox.
    const path = await linkPath(browser, 'BANK_ACCOUNT');
    expect((await app.server.inject({ method: 'GET', url: path })).body)
      .not.toContain('Sandbox');
    expect(await connectionIds(keys.test)).toHaveLength(1);
  });

  it.each(['developer', 'issuer', 'viewer'] as Role[])('lets the %s role read but change nothing',
    async (role) => {
      const owner = await signedInAccount(app, 'owner');
      await connectBank(owner.browser);
      const [connection] = await connectionIds(owner.keys.test);
      const user = await createUser(app, owner.accountId, role);
      const browser = await signIn(app, user.email);
      const page = await browser.get('/dashboard/connections');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('********9012');
      expect(page.body).not.toContain('/disconnect"');
      expect(page.body).not.toContain('action="/dashboard/connections/link"');
      expect(page.body).toContain('연결은 소유자와 관리자가 관리합니다');
      const link = await browser.post('/dashboard/connections/link', { kind: 'HOMETAX' });
      expect(link.statusCode).toBe(403);
      expect(link.body).not.toContain('/connections/');
      for (const action of ['disconnect', 'sync']) {
        expect((await browser.post(`/dashboard/connections/${connection!.id}/${action}`, {}))
          .statusCode).toBe(403);
      }
      expect(await connectionIds(owner.keys.test)).toHaveLength(1);
    });

  it('refuses a POST without the token or from another origin', async () => {
    const { browser, keys } = await signedInAccount(app, 'owner');
    await connectBank(browser);
    const [connection] = await connectionIds(keys.test);
    const path = `/dashboard/connections/${connection!.id}/disconnect`;
    expect((await browser.post(path, { _csrf: 'x' })).statusCode).toBe(403);
    expect((await browser.post(path, {}, { origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect((await browser.post('/dashboard/connections/link', { kind: 'HOMETAX', _csrf: '' }))
      .statusCode).toBe(403);
    expect(await connectionIds(keys.test)).toHaveLength(1);
  });

  it('shows hostile values inert, with the page\'s headers', async () => {
    const { browser } = await signedInAccount(app, 'owner');
    await connectHometax(browser, OTHER_VALID_NUMBER);
    const hostile = encodeURIComponent(HOSTILE);
    const page = await browser.get(`/dashboard/connections?collection=${hostile}` +
      `&sync=${hostile}&account=${hostile}&notice=${hostile}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toMatch(/<script>alert|<img src=x/);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    const kind = await browser.post('/dashboard/connections/link', { kind: HOSTILE });
    expect(kind.statusCode).toBe(400);
    expect(kind.body).not.toMatch(/<script>alert|<img src=x/);
    const link = await browser.post('/dashboard/connections/link', { kind: 'HOMETAX' });
    expect(link.headers['cache-control']).toBe('no-store');
  });
});
