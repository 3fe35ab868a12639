import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resealTwoFactorSecrets } from '../../src/dashboard/two-factor/service.ts';
import { createSealingKey, createSealingKeyring } from '../../src/domain/sealed-box.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createUser, newBrowser, PASSWORD, signedInAccount, signIn, type Browser } from
  './helpers.ts';

// The TOTP second factor: set up with a secret shown once and confirmed with a code, the secret
// sealed at rest; sign-in asks for a code (each accepted once) or a recovery code (each once);
// an Owner requires it of the account, which sends members without it to Settings; an Admin
// resets a member's; the code's page is rate-limited.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const codeAt = (secret: string, offsetSteps = 0) => new TOTP({ secret: Secret.fromBase32(secret),
  digits: 6, period: 30, algorithm: 'SHA1' })
  .generate({ timestamp: Date.now() + offsetSteps * 30_000 });

const auditActions = async (accountId: string) => ((await app.platform.database.db.execute(
  sql`select action from dashboard_audit_events where account_id = ${accountId}`)).rows as
  Array<{ action: string }>).map((row) => row.action);

// Sets a factor up for the browser's user; answers the secret and the recovery codes.
async function enrol(browser: Browser) {
  await browser.get('/dashboard/settings');
  const setup = await browser.post('/dashboard/settings/two-factor/start', {});
  expect(setup.statusCode, setup.body).toBe(200);
  const secret = /class="secret"[^>]*>([A-Z2-7]+)</.exec(setup.body)?.[1];
  expect(secret).toBeDefined();
  expect(setup.body).toContain('src="data:image/svg+xml;base64,');
  const wrong = await browser.post('/dashboard/settings/two-factor/confirm',
    { code: codeAt(secret!, 5) });
  expect(wrong.statusCode).toBe(400);
  const confirmed = await browser.post('/dashboard/settings/two-factor/confirm',
    { code: codeAt(secret!) });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  const codes = [...confirmed.body.matchAll(/<li><code>([a-z0-9]{5}-[a-z0-9]{5})<\/code>/g)]
    .map((match) => match[1]!);
  expect(codes).toHaveLength(10);
  return { secret: secret!, codes };
}

// The password step: answers the browser, waiting on the code's page.
async function passwordStep(email: string, password = PASSWORD) {
  const browser = newBrowser(app);
  await browser.get('/dashboard/sign-in');
  const answer = await browser.post('/dashboard/sign-in', { email, password });
  expect(answer.statusCode).toBe(303);
  expect(answer.headers.location).toContain('/dashboard/sign-in/code');
  // The waiting session opens nothing else.
  expect((await browser.get('/dashboard')).statusCode).toBe(303);
  expect((await browser.get(answer.headers.location as string)).statusCode).toBe(200);
  return browser;
}

describe('the second factor', () => {
  it('is set up with a code, sealed at rest, and asked for at sign-in, each code once',
    async () => {
      const { browser, user, accountId } = await signedInAccount(app, 'developer');
      const { secret, codes } = await enrol(browser);
      const [row] = (await app.platform.database.db.execute(sql`select totp_secret,
        totp_pending_secret, recovery_code_hashes from dashboard_users where id = ${user.userId}`))
        .rows as Array<{ totp_secret: string; totp_pending_secret: string | null;
          recovery_code_hashes: string[] }>;
      expect(row!.totp_secret).toMatch(/^v1\./);
      expect(row!.totp_secret).not.toContain(secret);
      expect(app.sealing.open(row!.totp_secret, user.userId).toString()).toBe(secret);
      expect(row!.totp_pending_secret).toBeNull();
      expect(JSON.stringify(row!.recovery_code_hashes)).not.toContain(codes[0]!);
      // The settings page no longer shows the secret.
      expect((await browser.get('/dashboard/settings')).body).not.toContain(secret);

      const waiting = await passwordStep(user.email);
      expect((await waiting.post('/dashboard/sign-in/code', { code: '000000' })).statusCode)
        .toBe(401);
      expect((await waiting.post('/dashboard/sign-in/code', { code: 'x'.repeat(500) }))
        .statusCode).toBe(401);
      expect((await waiting.post('/dashboard/sign-in/code', { code: codeAt(secret) },
        { origin: 'https://evil.example' })).statusCode).toBe(403);
      // The code that confirmed the set-up was of this step (used); the next step's is in the
      // window.
      const code = codeAt(secret, 1);
      const done = await waiting.post('/dashboard/sign-in/code', { code });
      expect(done.statusCode).toBe(303);
      expect((await waiting.get('/dashboard')).statusCode).toBe(200);

      // The same code is not accepted twice.
      const again = await passwordStep(user.email);
      expect((await again.post('/dashboard/sign-in/code', { code })).statusCode).toBe(401);
      // A recovery code works once, typed in capitals and without its dash too.
      const recovery = codes[0]!.toUpperCase().replace('-', '');
      expect((await again.post('/dashboard/sign-in/code', { code: recovery })).statusCode)
        .toBe(303);
      const third = await passwordStep(user.email);
      expect((await third.post('/dashboard/sign-in/code', { code: codes[0]! })).statusCode)
        .toBe(401);
      const actions = await auditActions(accountId);
      expect(actions).toContain('user.twoFactorEnabled');
      expect(actions).toContain('user.recoveryCodeUsed');
      expect((await browser.get('/dashboard/settings')).body).toContain('남은 복구 코드: 9개');
    });

  it('is turned off with the password only', async () => {
    const { browser, user } = await signedInAccount(app, 'viewer');
    await enrol(browser);
    await browser.get('/dashboard/settings');
    expect((await browser.post('/dashboard/settings/two-factor/disable',
      { password: 'wrong password' })).statusCode).toBe(400);
    expect((await browser.post('/dashboard/settings/two-factor/disable', { password: PASSWORD }))
      .statusCode).toBe(303);
    await signIn(app, user.email);
  });

  it('is required of every member by an Owner only, and sends members without it to Settings',
    async () => {
      const { browser: owner, accountId } = await signedInAccount(app, 'owner');
      const admin = await createUser(app, accountId, 'admin');
      const adminBrowser = await signIn(app, admin.email);
      // The admin has a factor already, so the requirement leaves their session as it is.
      await enrol(adminBrowser);
      await adminBrowser.get('/dashboard/settings');
      expect((await adminBrowser.post('/dashboard/settings/two-factor/required',
        { required: 'true' })).statusCode).toBe(403);
      await owner.get('/dashboard/settings');
      expect((await owner.post('/dashboard/settings/two-factor/required', { required: 'true' }))
        .statusCode).toBe(303);
      expect((await auditActions(accountId))).toContain('account.twoFactorRequired');
      const member = await createUser(app, accountId, 'developer');
      const memberBrowser = await signIn(app, member.email).catch(() => null);
      expect(memberBrowser).toBeNull();
      const fresh = newBrowser(app);
      await fresh.get('/dashboard/sign-in');
      await fresh.post('/dashboard/sign-in', { email: member.email, password: PASSWORD });
      const home = await fresh.get('/dashboard');
      expect(home.statusCode).toBe(303);
      expect(home.headers.location).toBe('/dashboard/settings#two-factor');
      const settings = await fresh.get('/dashboard/settings');
      expect(settings.statusCode).toBe(200);
      expect((await fresh.post('/dashboard/keys', { label: 'before 2fa' })).statusCode).toBe(403);
      const { secret } = await enrol(fresh);
      expect((await fresh.get('/dashboard')).statusCode).toBe(200);
      // It cannot be turned off while required.
      await fresh.get('/dashboard/settings');
      expect((await fresh.post('/dashboard/settings/two-factor/disable', { password: PASSWORD }))
        .statusCode).toBe(403);
      // An Admin resets it for a member who lost their phone: sessions end, password alone.
      await adminBrowser.get('/dashboard/team');
      const other = await signedInAccount(app, 'owner');
      await other.browser.get('/dashboard/team');
      expect((await other.browser.post(`/dashboard/team/${member.userId}/two-factor/reset`, {}))
        .statusCode).toBe(404);
      expect((await adminBrowser.post(`/dashboard/team/${member.userId}/two-factor/reset`, {}))
        .statusCode).toBe(303);
      expect((await fresh.get('/dashboard/settings')).statusCode).toBe(303);
      expect(secret).toBeTruthy();
      expect((await auditActions(accountId))).toContain('user.twoFactorReset');
    });

  it('ends a waiting sign-in after ten wrong codes', async () => {
    const { browser, user } = await signedInAccount(app, 'viewer');
    const { secret } = await enrol(browser);
    const waiting = await passwordStep(user.email);
    const statuses = [];
    for (let attempt = 0; attempt < 11; attempt += 1) {
      statuses.push((await waiting.post('/dashboard/sign-in/code', { code: '123456' }))
        .statusCode);
    }
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
    const late = await waiting.post('/dashboard/sign-in/code', { code: codeAt(secret) });
    expect(late.statusCode).toBe(303);
    expect(late.headers.location).toContain('notice=expired');
  });

  it('is sealed again with the current key by etax reseal', async () => {
    const { user } = await signedInAccount(app, 'viewer');
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const { db } = app.platform.database;
    await db.execute(sql`update dashboard_users set totp_secret =
      ${createSealingKey(oldKey).seal(Buffer.from('JBSWY3DPEHPK3PXP'), user.userId)}
      where id = ${user.userId}`);
    const [count] = await resealTwoFactorSecrets(db, createSealingKeyring(newKey, [oldKey]));
    expect(count).toMatchObject({ column: 'dashboard_users.totp_secret' });
    expect(count!.resealed).toBeGreaterThanOrEqual(1);
    const [row] = (await db.execute(sql`select totp_secret from dashboard_users
      where id = ${user.userId}`)).rows as Array<{ totp_secret: string }>;
    expect(createSealingKey(newKey).open(row!.totp_secret, user.userId).toString())
      .toBe('JBSWY3DPEHPK3PXP');
    // Bound to its user: another user's id does not open it.
    expect(() => createSealingKey(newKey).open(row!.totp_secret, 'usr_other')).toThrow();
  });

  it('opens no code page without a waiting sign-in', async () => {
    const browser = newBrowser(app);
    const page = await browser.get('/dashboard/sign-in/code');
    expect(page.statusCode).toBe(303);
    expect((await browser.post('/dashboard/sign-in/code', { code: '123456' })).statusCode)
      .toBe(303);
  });
});
