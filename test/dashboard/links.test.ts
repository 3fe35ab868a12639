import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readOutbox } from '../../src/platform/mail/outbox.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createUser, newBrowser, PASSWORD, signedInAccount, signIn, usersOf } from './helpers.ts';

// Invitations and password resets by mail: the link is in the outbox's mail (no SMTP server, so
// kept), works once, expires, and a changed character makes it nothing; only its hash is stored.
// Asking for a reset answers the same whether or not the email has a user, and is rate-limited.

let app: TestApp;
let db: TestApp['platform']['database']['db'];
beforeAll(async () => {
  app = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://etax.example' } });
  db = app.platform.database.db;
});
afterAll(async () => {
  await app?.close();
});


// A reset request's mail is queued after the page answered (src/dashboard/links/
// reset-requests.ts), so it is waited for.
const WAIT = { timeout: 10_000, interval: 20 };

async function linkMailedTo(email: string, path: string): Promise<string> {
  const mails = await vi.waitFor(async () => {
    const found = (await readOutbox(db, { limit: 200 })).filter((mail) => mail.to === email);
    expect(found.length, email).toBeGreaterThan(0);
    return found;
  }, WAIT);
  const text = mails[0]!.text;
  const match = new RegExp(`https://etax\\.example(${path}/[A-Za-z0-9_-]{43})`).exec(text);
  expect(match, text).not.toBeNull();
  return match![1]!;
}

const mailCount = async (email: string) =>
  (await readOutbox(db, { limit: 500 })).filter((mail) => mail.to === email).length;

// Waits until the email has `count` mails. Requests are worked in the order they came, so once
// a later request's mail is there, every earlier request has been worked too.
const mailsArrive = (email: string, count: number) =>
  vi.waitFor(async () => expect(await mailCount(email)).toBe(count), WAIT);

const auditOf = async (accountId: string) => (await db.execute(sql`select action, target,
  actor_email from dashboard_audit_events where account_id = ${accountId}
  order by sequence`)).rows as Array<{ action: string; target: string | null }>;

const newEmail = (name: string) =>
  `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;

describe('invitations', () => {
  it('mails a single-use link with which the invitee chooses a password and joins', async () => {
    const { browser, accountId, user } = await signedInAccount(app, 'admin');
    await browser.get('/dashboard/team');
    const email = newEmail('invitee');
    const invited = await browser.post('/dashboard/team/invite', { email, role: 'developer' });
    expect(invited.statusCode, invited.body).toBe(303);
    const team = await browser.get('/dashboard/team?notice=team.invited');
    expect(team.body).toContain(email);
    const path = await linkMailedTo(email, '/dashboard/invitation');
    const token = path.split('/').pop()!;
    // Only the hash of the token is stored.
    const stored = (await db.execute(sql`select token_hash, role, expires_at - created_at as ttl
      from dashboard_user_tokens where lower(email) = lower(${email})`)).rows;
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(token);

    const invitee = newBrowser(app);
    // Opening the link changes nothing: a mail scanner following it does not spend it.
    expect((await invitee.get(path)).statusCode).toBe(200);
    const page = await invitee.get(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(email);
    expect((await invitee.post(path, { password: 'short' })).statusCode).toBe(400);
    const accepted = await invitee.post(path, { password: 'a new member password' });
    expect(accepted.statusCode).toBe(303);
    expect(accepted.headers.location).toContain('/dashboard/sign-in?notice=invitationAccepted');
    const member = await usersOf(app).findUserByEmail(email);
    expect(member).toMatchObject({ accountId, role: 'developer' });
    await signIn(app, email, 'a new member password');

    // The link works once.
    const again = newBrowser(app);
    expect((await again.get(path)).statusCode).toBe(410);
    await again.get('/dashboard/sign-in');
    expect((await again.post(path, { password: 'another password here' })).statusCode).toBe(410);
    const actions = (await auditOf(accountId)).map((row) => row.action);
    expect(actions).toContain('user.invited');
    expect(actions).toContain('user.invitationAccepted');
    expect((await auditOf(accountId)).find((row) => row.action === 'user.invited')?.target)
      .toBe(`${email} → developer`);
    expect(user.role).toBe('admin');
  });

  it('refuses an expired link, a changed one and one that is not a token at all', async () => {
    const { browser } = await signedInAccount(app, 'owner');
    await browser.get('/dashboard/team');
    const email = newEmail('late');
    expect((await browser.post('/dashboard/team/invite', { email, role: 'viewer' })).statusCode)
      .toBe(303);
    const path = await linkMailedTo(email, '/dashboard/invitation');
    const token = path.split('/').pop()!;
    const changed = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const tampered = `/dashboard/invitation/${changed}`;
    const invitee = newBrowser(app);
    expect((await invitee.get(tampered)).statusCode).toBe(404);
    expect((await invitee.get('/dashboard/invitation/not-a-token')).statusCode).toBe(404);
    expect((await invitee.get(`/dashboard/invitation/${'<script>'.repeat(6)}`)).statusCode)
      .toBe(404);
    await invitee.get('/dashboard/sign-in');
    expect((await invitee.post(tampered, { password: 'long enough password' })).statusCode)
      .toBe(404);
    await db.execute(sql`update dashboard_user_tokens set expires_at = now() - interval '1 second'
      where lower(email) = lower(${email})`);
    const expired = await invitee.get(path);
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('기한이 지났습니다');
    await invitee.get('/dashboard/sign-in');
    expect((await invitee.post(path, { password: 'long enough password' })).statusCode).toBe(410);
    expect(await usersOf(app).findUserByEmail(email)).toBeNull();
  });

  it('leaves Owner invitations to Owners, the team to Owner and Admin, and needs the token',
    async () => {
      const { browser: admin } = await signedInAccount(app, 'admin');
      await admin.get('/dashboard/team');
      const email = newEmail('owner-wannabe');
      expect((await admin.post('/dashboard/team/invite', { email, role: 'owner' })).statusCode)
        .toBe(403);
      expect((await admin.post('/dashboard/team/invite', { email, role: 'emperor' }))
        .statusCode).toBe(400);
      expect((await admin.post('/dashboard/team/invite', { email: 'not-an-email', role: 'viewer' }))
        .statusCode).toBe(400);
      expect((await admin.post('/dashboard/team/invite', { email, role: 'viewer', _csrf: 'x' }))
        .statusCode).toBe(403);
      expect((await admin.post('/dashboard/team/invite', { email, role: 'viewer' },
        { origin: 'https://evil.example' })).statusCode).toBe(403);
      for (const role of ['developer', 'issuer', 'viewer'] as const) {
        const { browser } = await signedInAccount(app, role);
        await browser.get('/dashboard');
        expect((await browser.post('/dashboard/team/invite', { email, role: 'viewer' }))
          .statusCode, role).toBe(403);
      }
      expect(await mailCount(email)).toBe(0);
      // An email that has a user anywhere cannot be invited.
      const { accountId } = await signedInAccount(app, 'viewer');
      const taken = await createUser(app, accountId, 'viewer');
      const refused = await admin.post('/dashboard/team/invite',
        { email: taken.email.toUpperCase(), role: 'viewer' });
      expect(refused.statusCode).toBe(400);
      expect(await mailCount(taken.email.toUpperCase())).toBe(0);
    });

  it('cancels an invitation, and a new one replaces the old link', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    await browser.get('/dashboard/team');
    const email = newEmail('twice');
    await browser.post('/dashboard/team/invite', { email, role: 'viewer' });
    const first = await linkMailedTo(email, '/dashboard/invitation');
    await browser.post('/dashboard/team/invite', { email, role: 'issuer' });
    const second = (await readOutbox(db, { limit: 50 })).find((mail) => mail.to === email &&
      !mail.text.includes(first))!;
    const secondPath = /(\/dashboard\/invitation\/[A-Za-z0-9_-]{43})/.exec(second.text)![1]!;
    const invitee = newBrowser(app);
    expect((await invitee.get(first)).statusCode).toBe(404);
    expect((await invitee.get(secondPath)).statusCode).toBe(200);
    // Another account's admin cannot cancel it.
    const { browser: stranger } = await signedInAccount(app, 'owner');
    await stranger.get('/dashboard/team');
    expect((await stranger.post('/dashboard/team/invitations/cancel', { email })).statusCode)
      .toBe(404);
    expect((await invitee.get(secondPath)).statusCode).toBe(200);
    expect((await browser.post('/dashboard/team/invitations/cancel', { email })).statusCode)
      .toBe(303);
    expect((await invitee.get(secondPath)).statusCode).toBe(404);
    expect((await auditOf(accountId)).map((row) => row.action))
      .toContain('user.invitationCanceled');
  });

  it('escapes the account name in the mail and the email on the pages', async () => {
    const account = await app.createAccount({ name: '<script>alert(1)</script>' });
    const owner = await createUser(app, account.accountId, 'owner');
    const browser = await signIn(app, owner.email);
    await browser.get('/dashboard/team');
    const email = `o'neil&co-${Date.now()}@example.com`;
    expect((await browser.post('/dashboard/team/invite', { email, role: 'viewer' })).statusCode)
      .toBe(303);
    const mail = (await readOutbox(db, { limit: 50 })).find((entry) => entry.to === email)!;
    const [html] = (await db.execute(sql`select html_body from mail_outbox where id = ${mail.id}`))
      .rows as Array<{ html_body: string }>;
    expect(html!.html_body).not.toContain('<script>');
    expect(html!.html_body).toContain('&lt;script&gt;');
    const path = await linkMailedTo(email, '/dashboard/invitation');
    const page = await newBrowser(app).get(path);
    expect(page.body).toContain("o'neil&amp;co");
    expect(page.body).not.toContain('&co-');
  });
});

describe('password reset by mail', () => {
  it('answers the same whether or not the email has a user, and mails only a user', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'viewer');
    const unknown = newEmail('nobody');
    const answers = [];
    // The unknown email first: once the user's mail is there, its request was worked too.
    for (const email of [unknown, user.email]) {
      const browser = newBrowser(app);
      expect((await browser.get('/dashboard/forgot-password')).statusCode).toBe(200);
      const answer = await browser.post('/dashboard/forgot-password', { email });
      answers.push({ status: answer.statusCode,
        body: answer.body.replace(/value="[^"]*"/g, '') });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(200);
    await mailsArrive(user.email, 1);
    expect(await mailCount(unknown)).toBe(0);
    const browser = newBrowser(app);
    await browser.get('/dashboard/forgot-password');
    expect((await browser.post('/dashboard/forgot-password', { email: user.email },
      { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await browser.post('/dashboard/forgot-password', { email: user.email, _csrf: 'no' }))
      .statusCode).toBe(403);
  });

  it('sets a new password once, ends every session, and an older link goes', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'developer');
    const session = await signIn(app, user.email);
    const asker = newBrowser(app);
    await asker.get('/dashboard/forgot-password');
    await asker.post('/dashboard/forgot-password', { email: user.email });
    const older = await linkMailedTo(user.email, '/dashboard/reset-password');
    await asker.post('/dashboard/forgot-password', { email: user.email });
    await mailsArrive(user.email, 2);
    const newest = (await readOutbox(db, { limit: 50 })).find((mail) => mail.to === user.email &&
      !mail.text.includes(older))!;
    const path = /(\/dashboard\/reset-password\/[A-Za-z0-9_-]{43})/.exec(newest.text)![1]!;
    const resetter = newBrowser(app);
    expect((await resetter.get(older)).statusCode).toBe(404);
    const form = await resetter.get(path);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(user.email);
    expect((await resetter.post(path, { password: 'x'.repeat(201) })).statusCode).toBe(400);
    const reset = await resetter.post(path, { password: 'a brand new password' });
    expect(reset.statusCode).toBe(303);
    expect(reset.headers.location).toContain('notice=passwordReset');
    expect((await session.get('/dashboard')).statusCode).toBe(303);
    await signIn(app, user.email, 'a brand new password');
    const old = newBrowser(app);
    await old.get('/dashboard/sign-in');
    expect((await old.post('/dashboard/sign-in', { email: user.email, password: PASSWORD }))
      .statusCode).toBe(401);
    expect((await resetter.get(path)).statusCode).toBe(410);
    await resetter.get('/dashboard/sign-in');
    expect((await resetter.post(path, { password: 'yet another password' })).statusCode)
      .toBe(410);
    const actions = (await auditOf(account.accountId)).map((row) => row.action);
    expect(actions).toContain('user.passwordResetRequested');
    expect(actions).toContain('user.passwordResetByLink');
  });

  it('refuses an expired reset link', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'viewer');
    const asker = newBrowser(app);
    await asker.get('/dashboard/forgot-password');
    await asker.post('/dashboard/forgot-password', { email: user.email });
    const path = await linkMailedTo(user.email, '/dashboard/reset-password');
    const ttl = (await db.execute(sql`select extract(epoch from expires_at - created_at) as s
      from dashboard_user_tokens where user_id = ${user.userId}`)).rows[0] as { s: string };
    expect(Math.round(Number(ttl.s))).toBe(30 * 60);
    await db.execute(sql`update dashboard_user_tokens set expires_at = now() - interval '1 second'
      where user_id = ${user.userId}`);
    expect((await asker.get(path)).statusCode).toBe(410);
    await asker.get('/dashboard/sign-in');
    expect((await asker.post(path, { password: 'a brand new password' })).statusCode).toBe(410);
    await signIn(app, user.email);
  });

  it('mails one address at most three times an hour, then answers 429 to anyone', async () => {
    const account = await app.createAccount();
    const user = await createUser(app, account.accountId, 'viewer');
    const statuses = [];
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const browser = newBrowser(app);
      await browser.get('/dashboard/forgot-password');
      const answer = await browser.post('/dashboard/forgot-password', { email: user.email });
      statuses.push(answer.statusCode);
      if (answer.statusCode === 429) expect(answer.headers['retry-after']).toBeDefined();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    await mailsArrive(user.email, 3);
    // The refused fourth was never taken: a later request's mail, then still three.
    const later = await createUser(app, account.accountId, 'viewer');
    const browser = newBrowser(app);
    await browser.get('/dashboard/forgot-password');
    await browser.post('/dashboard/forgot-password', { email: later.email });
    await mailsArrive(later.email, 1);
    expect(await mailCount(user.email)).toBe(3);
  });
});
