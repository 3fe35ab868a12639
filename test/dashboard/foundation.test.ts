import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createUser, newBrowser, PASSWORD, signedInAccount, signIn } from './helpers.ts';

// The dashboard's foundation through HTTP: the headers of every page, signing in and its
// limits, sessions (hashed, idle and absolute lifetimes, sign out everywhere), CSRF, the
// environment and language switches, and escaping.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const sessionRows = async (userId: string) => (await app.platform.database.db.execute(
  sql`select token_hash, created_at from dashboard_sessions where user_id = ${userId}`))
  .rows as Array<{ token_hash: string }>;

function expectPageHeaders(headers: Record<string, unknown>) {
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("default-src 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['cache-control']).toBe('no-store');
}

describe('signing in', () => {
  it('sends a browser without a session to the sign-in page, and back after it', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'viewer');
    const browser = newBrowser(app);
    const keys = await browser.get('/dashboard/keys');
    expect(keys.statusCode).toBe(303);
    expect(keys.headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fkeys');
    const form = await browser.get(keys.headers.location as string);
    expect(form.statusCode).toBe(200);
    expectPageHeaders(form.headers);
    expect(form.body).toContain('<html lang="ko">');
    const signedIn = await browser.post('/dashboard/sign-in',
      { email: user.email.toUpperCase(), password: PASSWORD, next: '/dashboard/keys' });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/dashboard/keys');
    expect((await browser.get('/dashboard/keys')).statusCode).toBe(200);
  });

  it('never sends the browser to another site after signing in', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'viewer');
    for (const next of ['https://evil.example/', '//evil.example/x', '/dashboard/../x',
      'javascript:alert(1)']) {
      const browser = newBrowser(app);
      await browser.get('/dashboard/sign-in');
      const response = await browser.post('/dashboard/sign-in',
        { email: user.email, password: PASSWORD, next });
      expect(response.headers.location).toBe('/dashboard');
    }
  });

  it('answers a wrong password and an unknown email in the same words', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'owner');
    const answers = [];
    for (const email of [user.email, `nobody-${Date.now()}@example.com`]) {
      const browser = newBrowser(app);
      await browser.get('/dashboard/sign-in');
      const response = await browser.post('/dashboard/sign-in',
        { email, password: 'wrong-pass-1' });
      expect(response.statusCode).toBe(401);
      expect(browser.cookies.has('etax_session')).toBe(false);
      answers.push(response.body.replace(/value="[^"]*"/g, ''));
    }
    expect(answers[0]).toBe(answers[1]);
    expect(answers[0]).toContain('이메일 또는 비밀번호가 올바르지 않습니다.');
  });

  it('locks an email out after repeated attempts, known or not, alike', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'owner');
    const unknown = `nobody-lock-${Date.now()}@example.com`;
    const lastAnswers = [];
    for (const email of [user.email, unknown]) {
      const browser = newBrowser(app);
      await browser.get('/dashboard/sign-in');
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const response = await browser.post('/dashboard/sign-in',
          { email, password: 'wrong-pass' });
        expect(response.statusCode).toBe(401);
      }
      // The right password no longer helps until the window ends.
      const locked = await browser.post('/dashboard/sign-in', { email, password: PASSWORD });
      expect(locked.statusCode).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(browser.cookies.has('etax_session')).toBe(false);
      lastAnswers.push(locked.body.replace(/value="[^"]*"/g, ''));
    }
    expect(lastAnswers[0]).toBe(lastAnswers[1]);
  });

  it('refuses a sign-in without the form token or from another origin', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'owner');
    const browser = newBrowser(app);
    await browser.get('/dashboard/sign-in');
    const withoutToken = await browser.post('/dashboard/sign-in',
      { email: user.email, password: PASSWORD, _csrf: '' });
    expect(withoutToken.statusCode).toBe(403);
    const crossSite = await browser.post('/dashboard/sign-in',
      { email: user.email, password: PASSWORD }, { origin: 'https://evil.example' });
    expect(crossSite.statusCode).toBe(403);
    const fetchSite = await browser.post('/dashboard/sign-in',
      { email: user.email, password: PASSWORD }, { 'sec-fetch-site': 'cross-site' });
    expect(fetchSite.statusCode).toBe(403);
    expect(browser.cookies.has('etax_session')).toBe(false);
  });
});

describe('sessions', () => {
  it('keeps only a hash of the session token, in an HttpOnly SameSite=Lax cookie', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'owner');
    const browser = newBrowser(app);
    await browser.get('/dashboard/sign-in');
    const response = await browser.post('/dashboard/sign-in',
      { email: user.email, password: PASSWORD });
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/etax_session=[A-Za-z0-9_-]{43}/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    // Plain http: no Secure flag, so sign-in works on http://localhost.
    expect(setCookie).not.toContain('Secure');
    const token = browser.cookies.get('etax_session')!;
    const rows = await sessionRows(user.userId);
    expect(rows.map((row) => row.token_hash))
      .toEqual([createHash('sha256').update(token).digest('hex')]);
  });

  it('starts a new session at every sign-in', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'owner');
    const first = await signIn(app, user.email);
    const second = await signIn(app, user.email);
    expect(first.cookies.get('etax_session')).not.toBe(second.cookies.get('etax_session'));
    expect(await sessionRows(user.userId)).toHaveLength(2);
  });

  it('ends a session after 30 idle minutes and 12 hours after its sign-in', async () => {
    const { browser, user } = await signedInAccount(app);
    const db = app.platform.database.db;
    await db.execute(sql`update dashboard_sessions set last_seen_at = now() - interval '29 minutes'
      where user_id = ${user.userId}`);
    expect((await browser.get('/dashboard')).statusCode).toBe(200);
    await db.execute(sql`update dashboard_sessions set last_seen_at = now() - interval '31 minutes'
      where user_id = ${user.userId}`);
    expect((await browser.get('/dashboard')).statusCode).toBe(303);
    const again = await signIn(app, user.email);
    // The idle session's row went at this sign-in.
    expect(await sessionRows(user.userId)).toHaveLength(1);
    await db.execute(sql`update dashboard_sessions
      set created_at = now() - interval '12 hours 1 minute'
      where user_id = ${user.userId}`);
    expect((await again.get('/dashboard')).statusCode).toBe(303);
  });

  it('signs out one browser, and every browser of the user everywhere', async () => {
    const { browser, user } = await signedInAccount(app);
    const other = await signIn(app, user.email);
    const third = await signIn(app, user.email);
    const token = browser.cookies.get('etax_session')!;
    const signedOut = await browser.post('/dashboard/sign-out', {});
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe('/dashboard/sign-in?notice=signedOut');
    expect(browser.cookies.has('etax_session')).toBe(false);
    // The old token is worth nothing, even replayed.
    browser.cookies.set('etax_session', token);
    expect((await browser.get('/dashboard')).statusCode).toBe(303);
    expect((await other.get('/dashboard')).statusCode).toBe(200);
    await other.get('/dashboard/settings');
    const everywhere = await other.post('/dashboard/settings/sign-out-everywhere', {});
    expect(everywhere.statusCode).toBe(303);
    expect((await other.get('/dashboard')).statusCode).toBe(303);
    expect((await third.get('/dashboard')).statusCode).toBe(303);
    expect(await sessionRows(user.userId)).toHaveLength(0);
  });

  it('marks the cookie Secure and __Host- over HTTPS behind a trusted proxy', async () => {
    const proxied = await createTestApp({ env: { TRUST_PROXY: 'true' } });
    try {
      const account = await proxied.createAccount();
      const user = await createUser(proxied, account.accountId, 'owner');
      const https = { 'x-forwarded-proto': 'https', host: 'localhost:80' };
      const browser = newBrowser(proxied);
      await browser.get('/dashboard/sign-in', https);
      expect(browser.cookies.has('__Host-etax_signin')).toBe(true);
      const response = await browser.post('/dashboard/sign-in',
        { email: user.email, password: PASSWORD },
        { ...https, origin: 'https://localhost:80' });
      expect(response.statusCode).toBe(303);
      const setCookie = String(response.headers['set-cookie']);
      expect(setCookie).toMatch(
        /__Host-etax_session=[^;]+; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Lax/);
      expect((await browser.get('/dashboard', https)).statusCode).toBe(200);
      // The same cookie over plain http is not read.
      expect((await browser.get('/dashboard')).statusCode).toBe(303);
    } finally {
      await proxied.close();
    }
  });
});

describe('every page', () => {
  it('refuses a POST without the CSRF token, or from another origin or site', async () => {
    const { browser } = await signedInAccount(app);
    await browser.get('/dashboard');
    const cases = [
      browser.post('/dashboard/environment', { environment: 'live', _csrf: '' }),
      browser.post('/dashboard/environment', { environment: 'live', _csrf: 'forged' }),
      browser.post('/dashboard/environment', { environment: 'live' },
        { origin: 'https://evil.example' }),
      browser.post('/dashboard/environment', { environment: 'live' },
        { 'sec-fetch-site': 'same-site' }),
    ];
    for (const response of await Promise.all(cases)) {
      expect(response.statusCode).toBe(403);
      expectPageHeaders(response.headers);
    }
    const home = await browser.get('/dashboard');
    expect(home.body).toContain('class="banner test"');
    // No Origin and no Sec-Fetch-Site: not a page of ours.
    const bare = await app.server.inject({ method: 'POST', url: '/dashboard/environment',
      headers: { cookie: `etax_session=${browser.cookies.get('etax_session')}`,
        'content-type': 'application/x-www-form-urlencoded' },
      payload: `_csrf=${browser.csrf}&environment=live` });
    expect(bare.statusCode).toBe(403);
  });

  it('switches between test and live with a banner that says which', async () => {
    const { browser } = await signedInAccount(app);
    const home = await browser.get('/dashboard');
    expectPageHeaders(home.headers);
    expect(home.body).toContain('class="banner test"');
    const switched = await browser.post('/dashboard/environment',
      { environment: 'live', return: '/dashboard/keys' });
    expect(switched.statusCode).toBe(303);
    expect(switched.headers.location).toBe('/dashboard/keys');
    const live = await browser.get('/dashboard/keys');
    expect(live.body).toContain('class="banner live"');
    expect(live.body).toContain('라이브 환경입니다');
    const odd = await browser.post('/dashboard/environment',
      { environment: 'staging', return: 'https://evil.example' });
    expect(odd.headers.location).toBe('/dashboard');
    expect((await browser.get('/dashboard')).body).toContain('class="banner live"');
  });

  it('speaks Korean first and English after the switch', async () => {
    const { browser } = await signedInAccount(app);
    expect((await browser.get('/dashboard')).body).toContain('포인트 잔액');
    await browser.post('/dashboard/language', { locale: 'en', return: '/dashboard' });
    const english = await browser.get('/dashboard');
    expect(english.body).toContain('<html lang="en">');
    expect(english.body).toContain('Point balances');
    const signInEnglish = await newBrowser(app).get('/dashboard/sign-in?lang=en');
    expect(signInEnglish.body).toContain('Sign in with the email');
  });

  it('shows amounts grouped and dates in Seoul time', async () => {
    const { browser } = await signedInAccount(app);
    expect((await browser.get('/dashboard')).body).toContain('1,000,000 P');
  });

  it('answers an unknown address with 404 in the layout', async () => {
    const { browser } = await signedInAccount(app);
    const missing = await browser.get('/dashboard/nowhere');
    expect(missing.statusCode).toBe(404);
    expectPageHeaders(missing.headers);
    expect(missing.body).toContain('페이지를 찾을 수 없습니다');
    const anonymous = await newBrowser(app).get('/dashboard/nowhere');
    expect(anonymous.statusCode).toBe(404);
  });

  it('escapes the account name and the email it shows', async () => {
    const account = await app.platform.accounts.createAccount({
      name: '<script>alert(1)</script>"><img src=x onerror=alert(1)>', plan: 'FREE' });
    const user = await createUser(app, account.accountId, 'owner',
      `"><img-src=x-onerror=alert(1)>${Date.now()}@example.com`.replace(/[<>"]/g, 'x'));
    const browser = await signIn(app, user.email);
    const home = await browser.get('/dashboard');
    expect(home.body).not.toContain('<script>alert(1)');
    expect(home.body).not.toContain('<img src=x');
    expect(home.body).toContain('&lt;script>alert(1)&lt;/script>');
  });

  it('serves its scripts and styles from this server, cached by their version', async () => {
    const browser = newBrowser(app);
    const page = await browser.get('/dashboard/sign-in');
    const assets = [...page.body.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)]
      .map((match) => match[1]!);
    expect(assets).toHaveLength(3);
    for (const asset of assets) {
      const response = await browser.get(asset);
      expect(response.statusCode, asset).toBe(200);
      expect(response.headers['cache-control']).toContain('immutable');
      expect(response.body.length).toBeGreaterThan(100);
    }
    expect(page.body).not.toMatch(/https?:\/\//);
    expect((await browser.get('/dashboard/assets/none.js')).statusCode).toBe(404);
  });
});

