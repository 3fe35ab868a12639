import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '../../src/dashboard/roles.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createUser, newBrowser, PASSWORD, signedInAccount, signIn } from './helpers.ts';

// Home, Points, Plan and Settings through HTTP: what each shows from the ledger and the
// operation table, scoped by account and environment; the test top-up; the password and
// sessions; every role's reach; every shown value inert.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const PAGES = ['/dashboard', '/dashboard/points', '/dashboard/plan', '/dashboard/keys',
  '/dashboard/settings'];

// A capture through a reservation and a charge debited with its work: the two ways the ledger
// records spending.
async function spend(accountId: string, environment: 'test' | 'live') {
  const { points } = app.platform;
  const reservation = await points.reserve({ accountId, environment,
    operation: 'bank.holders.inquire', points: 50 });
  await points.capture({ reservation, chargePoints: 50 });
  await points.debit({ accountId, environment, operation: 'cashReceipts.issue', points: 10,
    requiredPoints: 10 });
  return reservation.reservationId;
}

describe('every page', () => {
  it.each(ROLES)('opens for the %s role', async (role) => {
    const { browser } = await signedInAccount(app, role);
    for (const path of PAGES) {
      const response = await browser.get(path);
      expect(response.statusCode, `${role} ${path}`).toBe(200);
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('home', () => {
  it('shows both balances, the usage of the session\'s environment and the deadline', async () => {
    const { browser, accountId } = await signedInAccount(app);
    await app.platform.points.grant({ accountId, environment: 'live', points: 2_000 });
    await spend(accountId, 'test');
    const home = await browser.get('/dashboard');
    expect(home.body).toContain('999,940 P');
    expect(home.body).toContain('2,000 P');
    expect(home.body).toContain('<svg class="chart"');
    expect(home.body.match(/<rect class="bar"/g)).toHaveLength(30);
    expect(home.body).toContain('<code>bank.holders.inquire</code>');
    expect(home.body).toContain('<code>cashReceipts.issue</code>');
    expect(home.body).toMatch(/공급분 세금계산서는 \d{4}-\d{2}-\d{2}까지/);
    await browser.post('/dashboard/environment', { environment: 'live' });
    const live = await browser.get('/dashboard');
    expect(live.body).not.toContain('<code>bank.holders.inquire</code>');
    expect(live.body).toContain('최근 30일 동안 사용한 포인트가 없습니다.');
  });
});

describe('points', () => {
  it('lists the ledger with its operations and reservations, filtered, as a fragment for htmx',
    async () => {
      const { browser, accountId } = await signedInAccount(app);
      const reservationId = await spend(accountId, 'test');
      const open = await app.platform.points.reserve({ accountId, environment: 'test',
        operation: 'businesses.profiles.retrieve', points: 90 });
      const page = await browser.get('/dashboard/points');
      expect(page.body).toContain(`<code>${reservationId}</code>`);
      expect(page.body).toContain(`<code>${open.reservationId}</code>`);
      expect(page.body).toContain('sign-up test points');
      const captures = await browser.get('/dashboard/points?kind=capture');
      expect(captures.body).toContain('<code>bank.holders.inquire</code>');
      expect(captures.body).not.toContain('sign-up test points');
      const fragment = await browser.get('/dashboard/points?kind=grant',
        { 'hx-request': 'true' });
      expect(fragment.statusCode).toBe(200);
      expect(fragment.body.startsWith('<div id="ledger">')).toBe(true);
      expect(fragment.body).not.toContain('<html');
      const future = await browser.get('/dashboard/points?from=2999-01-01');
      expect(future.body).toContain('조건에 맞는 원장 기록이 없습니다.');
      for (const query of ['kind=bogus', 'from=2026-13-01', 'to=yesterday', 'before=x']) {
        expect((await browser.get(`/dashboard/points?${query}`)).statusCode, query).toBe(400);
      }
    });

  it('exports the ledger as CSV with formulas defused', async () => {
    const { browser, accountId } = await signedInAccount(app);
    await app.platform.points.grant({ accountId, environment: 'test', points: 5,
      memo: '=HYPERLINK("http://evil.example")' });
    const csv = await browser.get('/dashboard/points.csv?kind=grant');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe(
      'attachment; filename="etax-points-test.csv"; filename*=UTF-8\'\'etax-points-test.csv');
    const lines = csv.body.replace('\uFEFF', '').trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'createdAt,kind,operation,amountPoints,balanceAfterPoints,reservationId,requestId,' +
      'documentId,memo,id');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(',"\'=HYPERLINK(""http://evil.example"")",');
  });

  it('tops up the test balance through the ledger, for the roles that may', async () => {
    const { browser, accountId } = await signedInAccount(app, 'developer');
    await browser.get('/dashboard/points');
    const topUp = await browser.post('/dashboard/points/top-up', { points: '5000' });
    expect(topUp.statusCode).toBe(303);
    expect((await app.platform.points.getBalance({ accountId, environment: 'test' })).available)
      .toBe(1_005_000);
    for (const points of ['0', '-5', '1.5', 'abc', '10000001', '']) {
      expect((await browser.post('/dashboard/points/top-up', { points })).statusCode, points)
        .toBe(400);
    }
    await browser.post('/dashboard/environment', { environment: 'live' });
    const live = await browser.get('/dashboard/points');
    expect(live.body).not.toContain('action="/dashboard/points/top-up"');
    await browser.post('/dashboard/points/top-up', { points: '5000' });
    expect((await app.platform.points.getBalance({ accountId, environment: 'live' })).available)
      .toBe(0);
    const viewer = await signedInAccount(app, 'viewer');
    expect((await viewer.browser.post('/dashboard/points/top-up', { points: '5' })).statusCode)
      .toBe(403);
    expect((await app.platform.points.getBalance({ accountId: viewer.accountId,
      environment: 'test' })).available).toBe(1_000_000);
  });

  it('shows memos inert', async () => {
    const { browser, accountId } = await signedInAccount(app);
    for (const memo of ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>']) {
      await app.platform.points.grant({ accountId, environment: 'test', points: 1, memo });
    }
    const page = await browser.get('/dashboard/points');
    expect(page.body).not.toMatch(/<script>alert|<img src=x/);
    expect(page.body).toContain('&lt;script>alert(1)&lt;/script>');
  });

  it('never shows another account\'s ledger', async () => {
    const other = await app.createAccount();
    await spend(other.accountId, 'test');
    const { browser } = await signedInAccount(app);
    const page = await browser.get('/dashboard/points?kind=capture');
    expect(page.body).toContain('조건에 맞는 원장 기록이 없습니다.');
  });
});

describe('plan', () => {
  it('shows the account\'s plan and what each plan unlocks with this server\'s prices',
    async () => {
      const { browser } = await signedInAccount(app);
      const page = await browser.get('/dashboard/plan');
      expect(page.body).toContain('현재 요금제: STANDARD');
      expect(page.body).toContain('<code>bank.holders.inquire</code>');
      expect(page.body).toContain('50 P');
    });
});

describe('audit log', () => {
  const NEXT_PAGE_LINK = /href="(\/dashboard\/audit\?before=[^"]+)"/;

  it('shows the account\'s own entries to Owner and Admin only', async () => {
    const { browser, user } = await signedInAccount(app, 'admin');
    await browser.get('/dashboard/keys');
    await browser.post('/dashboard/keys', { label: 'audited' });
    const other = await signedInAccount(app, 'owner');
    const page = await browser.get('/dashboard/audit');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('API 키 생성');
    expect(page.body).toContain(user.email);
    expect(page.body).not.toContain(other.user.email);
    expect(page.body).toContain('href="/dashboard/audit"');
    for (const role of ['developer', 'issuer', 'viewer'] as const) {
      const member = await signedInAccount(app, role);
      expect((await member.browser.get('/dashboard/audit')).statusCode, role).toBe(403);
      expect((await member.browser.get('/dashboard')).body)
        .not.toContain('href="/dashboard/audit"');
    }
    expect((await browser.get('/dashboard/audit?before=nonsense')).statusCode).toBe(404);
  });

  it('pages through entries recorded in the same instant, each once, newest first', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    const { db } = app.platform.database;
    // 120 entries with one time, recorded in the order of their targets.
    await db.execute(sql`insert into dashboard_audit_events (id, account_id, action, target,
      created_at) select 'aud_same' || n, ${accountId}, 'key.created', 'same-instant-' || n,
      timestamptz '2026-01-02 03:04:05.678901+00' from generate_series(1, 120) as n`);
    const seen: string[] = [];
    let path: string | null = '/dashboard/audit';
    while (path !== null) {
      const page = await browser.get(path);
      expect(page.statusCode).toBe(200);
      seen.push(...[...page.body.matchAll(/same-instant-(\d+)/g)].map((match) => match[1]!));
      path = NEXT_PAGE_LINK.exec(page.body)?.[1] ?? null;
    }
    expect(seen).toEqual(Array.from({ length: 120 }, (_, index) => String(120 - index)));
    // The next page's link opens for this account only.
    const first = await browser.get('/dashboard/audit');
    const next = NEXT_PAGE_LINK.exec(first.body)![1]!;
    const other = await signedInAccount(app, 'owner');
    expect((await other.browser.get(next)).statusCode).toBe(404);
  });
});

describe('settings', () => {
  it('changes the password, which ends the user\'s other sessions', async () => {
    const { browser, user } = await signedInAccount(app, 'viewer');
    const other = await signIn(app, user.email);
    await browser.get('/dashboard/settings');
    const wrong = await browser.post('/dashboard/settings/password',
      { current: 'not it at all', next: 'a brand new passphrase' });
    expect(wrong.statusCode).toBe(400);
    const short = await browser.post('/dashboard/settings/password',
      { current: PASSWORD, next: 'short' });
    expect(short.statusCode).toBe(400);
    const changed = await browser.post('/dashboard/settings/password',
      { current: PASSWORD, next: 'a brand new passphrase' });
    expect(changed.statusCode).toBe(303);
    expect((await browser.get('/dashboard/settings')).statusCode).toBe(200);
    expect((await other.get('/dashboard')).statusCode).toBe(303);
    await signIn(app, user.email, 'a brand new passphrase');
  });

  it('lists the sessions with their browser shown inert, and ends one', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'issuer');
    const hostile = '<script>alert(1)</script>"><img src=x onerror=alert(1)>';
    const other = await signIn(app, user.email);
    await other.get('/dashboard');
    const browser = newBrowser(app);
    await browser.get('/dashboard/sign-in');
    expect((await browser.post('/dashboard/sign-in', { email: user.email, password: PASSWORD },
      { 'user-agent': hostile })).statusCode).toBe(303);
    const page = await browser.get('/dashboard/settings');
    expect(page.body).toContain('&lt;script>alert(1)&lt;/script>');
    expect(page.body).not.toMatch(/<script>alert|<img src=x/);
    const ends = [...page.body.matchAll(/action="(\/dashboard\/settings\/sessions\/[^"]+\/end)"/g)];
    expect(ends).toHaveLength(1);
    expect((await browser.post(ends[0]![1]!, {})).statusCode).toBe(303);
    expect((await other.get('/dashboard')).statusCode).toBe(303);
    expect((await browser.get('/dashboard')).statusCode).toBe(200);
    // Another user's session by its id: nothing happens.
    const stranger = await signedInAccount(app);
    const strangerPage = await stranger.browser.get('/dashboard/settings');
    expect(strangerPage.statusCode).toBe(200);
    expect((await stranger.browser.post(ends[0]![1]!, {})).statusCode).toBe(303);
    expect((await browser.get('/dashboard')).statusCode).toBe(200);
  });
});
