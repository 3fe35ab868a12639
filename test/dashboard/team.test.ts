import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createUser, signedInAccount, signIn, usersOf } from './helpers.ts';

// The team page: roles changed and members removed by Owner and Admin only, never oneself, the
// Owner role only by an Owner, another account's member by id not found; a changed role ends
// the member's sessions and applies at their next sign-in.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const userIdIn = (body: string, email: string) =>
  new RegExp(`${email.replace(/[.+]/g, '\\$&')}</td>.*?/dashboard/team/(usr_[^/]+)/role`, 's')
    .exec(body)?.[1];

describe('team page', () => {
  it('changes a member\'s role, which ends their sessions, and removes a member', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    const member = await createUser(app, accountId, 'viewer');
    const memberBrowser = await signIn(app, member.email);
    expect((await memberBrowser.post('/dashboard/keys', { label: 'x' })).statusCode).toBe(403);
    const page = await browser.get('/dashboard/team');
    expect(page.statusCode).toBe(200);
    const changed = await browser.post(`/dashboard/team/${member.userId}/role`,
      { role: 'developer' });
    expect(changed.statusCode).toBe(303);
    expect((await memberBrowser.get('/dashboard')).statusCode).toBe(303);
    const again = await signIn(app, member.email);
    await again.get('/dashboard/keys');
    expect((await again.post('/dashboard/keys', { label: 'now allowed' })).statusCode).toBe(303);
    const removed = await browser.post(`/dashboard/team/${member.userId}/remove`, {});
    expect(removed.statusCode).toBe(303);
    expect((await again.get('/dashboard')).statusCode).toBe(303);
    expect(await usersOf(app).findUser(member.userId)).toBeNull();
    expect(userIdIn(page.body, member.email)).toBe(member.userId);
  });

  it('keeps the Owner role and oneself out of an Admin\'s reach', async () => {
    const { browser, accountId, user } = await signedInAccount(app, 'admin');
    const owner = await createUser(app, accountId, 'owner');
    const viewer = await createUser(app, accountId, 'viewer');
    await browser.get('/dashboard/team');
    const cases = [
      [`/dashboard/team/${user.userId}/role`, { role: 'developer' }],
      [`/dashboard/team/${user.userId}/remove`, {}],
      [`/dashboard/team/${owner.userId}/role`, { role: 'viewer' }],
      [`/dashboard/team/${owner.userId}/remove`, {}],
      [`/dashboard/team/${viewer.userId}/role`, { role: 'owner' }],
    ] as const;
    for (const [url, form] of cases) {
      expect((await browser.post(url, form)).statusCode, url).toBe(403);
    }
    expect((await browser.post(`/dashboard/team/${viewer.userId}/role`, { role: 'god' }))
      .statusCode).toBe(400);
    const users = await usersOf(app).listUsers(accountId);
    expect(users.map((u) => u.role).sort()).toEqual(['admin', 'owner', 'viewer']);
  });

  it('refuses the roles that may not manage the team, and another account\'s member', async () => {
    const { accountId } = await signedInAccount(app, 'owner');
    const stranger = await createUser(app, accountId, 'viewer');
    for (const role of ['developer', 'issuer', 'viewer'] as const) {
      const { browser } = await signedInAccount(app, role);
      expect((await browser.get('/dashboard/team')).statusCode, role).toBe(403);
    }
    const { browser } = await signedInAccount(app, 'owner');
    await browser.get('/dashboard/team');
    expect((await browser.post(`/dashboard/team/${stranger.userId}/role`, { role: 'admin' }))
      .statusCode).toBe(404);
    expect((await browser.post(`/dashboard/team/${stranger.userId}/remove`, {})).statusCode)
      .toBe(404);
    expect((await usersOf(app).findUser(stranger.userId))?.role).toBe('viewer');
  });

  it('refuses emails with markup and shows the rest escaped', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    const users = usersOf(app);
    await expect(users.createUser({ accountId, role: 'viewer', password: 'long enough pass',
      email: '"><svg/onload=alert(1)>@example.com' })).rejects.toThrow('not an email address');
    const odd = `o'neil&co-${Date.now()}@example.com`;
    await users.createUser({ accountId, role: 'viewer', password: 'long enough pass', email: odd });
    const page = await browser.get('/dashboard/team');
    expect(page.body).toContain(odd.replace('&', '&amp;'));
  });
});
