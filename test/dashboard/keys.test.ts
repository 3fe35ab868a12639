import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import type { Role } from '../../src/dashboard/roles.ts';
import { createUser, signedInAccount, signIn, type Browser } from './helpers.ts';

// The API keys page: a key made here is the same kind of key as the CLI's and works at once;
// revoking stops it at once in this process; roles, environments and accounts are kept apart;
// every label is shown inert.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const points = (key: string) => app.server.inject({ method: 'GET', url: '/v1/points',
  headers: { authorization: basicAuth(key) } });

// Creates a key: the POST redirects to the page that shows it once.
async function createKey(browser: Browser, label: string) {
  await browser.get('/dashboard/keys');
  const posted = await browser.post('/dashboard/keys', { label });
  if (posted.statusCode !== 303) return { response: posted, key: undefined };
  expect(posted.headers.location).toBe('/dashboard/keys/created');
  const response = await browser.get('/dashboard/keys/created');
  const key = /id="new-key"[^>]*>([^<]+)</.exec(response.body)?.[1];
  return { response, key };
}

const auditActions = async (accountId: string) => ((await app.platform.database.db.execute(
  sql`select action, target, environment from dashboard_audit_events
      where account_id = ${accountId} order by sequence`)).rows as Array<{
  action: string; target: string | null; environment: string | null }>);

describe('API keys page', () => {
  it('creates a key shown once that calls /v1/points at once, then revokes it', async () => {
    const { browser, accountId } = await signedInAccount(app, 'developer');
    const { response, key } = await createKey(browser, 'Production server');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(key).toMatch(/^test_[A-Za-z0-9_-]{43}$/);
    expect((await points(key!)).statusCode).toBe(200);
    // Shown once: a reload (or the back button) of the page finds nothing more to show, and no
    // address ever held the key.
    const reload = await browser.get('/dashboard/keys/created');
    expect(reload.statusCode).toBe(410);
    expect(reload.body).not.toContain(key);
    expect(reload.body).toContain('한 번만 보여 드립니다');
    const stored = (await app.platform.database.db.execute(sql`select shown_once
      from dashboard_sessions where shown_once is not null`)).rows;
    expect(JSON.stringify(stored)).not.toContain(key);
    const list = await browser.get('/dashboard/keys');
    expect(list.body).toContain('Production server');
    expect(list.body).not.toContain(key);
    expect(list.body).toContain(`${key!.slice(0, 9)}…${key!.slice(-4)}`);
    expect(list.body).toContain('다른 서버 프로세스에서는 5초 안에');
    const keyId = /action="\/dashboard\/keys\/(key_[^/]+)\/revoke"/.exec(list.body)?.[1];
    const revoked = await browser.post(`/dashboard/keys/${keyId}/revoke`, {});
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe('/dashboard/keys?notice=keys.revokedNotice');
    // It was cached by the call above; revoked here, it stops at once.
    expect((await points(key!)).statusCode).toBe(401);
    const again = await browser.post(`/dashboard/keys/${keyId}/revoke`, {});
    expect(again.statusCode).toBe(404);
    expect((await auditActions(accountId)).filter((row) => row.action.startsWith('key.')))
      .toEqual([{ action: 'key.created', target: keyId, environment: 'test' },
        { action: 'key.revoked', target: keyId, environment: 'test' }]);
  });

  it('makes and lists keys of the session\'s environment only', async () => {
    const { browser } = await signedInAccount(app, 'owner');
    await createKey(browser, 'test only');
    await browser.post('/dashboard/environment', { environment: 'live' });
    const live = await browser.get('/dashboard/keys');
    expect(live.body).not.toContain('test only');
    expect(live.body).not.toContain('<code>test_');
    const { key } = await createKey(browser, 'live one');
    expect(key).toMatch(/^live_/);
    const liveList = await browser.get('/dashboard/keys');
    expect(liveList.body).toContain('live one');
    expect(liveList.body).not.toMatch(/<code>test_/);
  });

  it.each(['viewer', 'issuer'] as Role[])('refuses the %s role to create or revoke',
    async (role) => {
    const { browser, accountId, keys } = await signedInAccount(app, role);
    const page = await browser.get('/dashboard/keys');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('action="/dashboard/keys"');
    const created = await browser.post('/dashboard/keys', { label: 'nope' });
    expect(created.statusCode).toBe(403);
    const [listed] = await app.platform.accounts.listKeys({ accountId, environment: 'test' });
    const revoke = await browser.post(`/dashboard/keys/${listed!.id}/revoke`, {});
    expect(revoke.statusCode).toBe(403);
    expect((await points(keys.test)).statusCode).toBe(200);
    expect(await app.platform.accounts.listKeys({ accountId, environment: 'test' }))
      .toHaveLength(1);
  });

  it('answers another account\'s key by its id with 404 and leaves it working', async () => {
    const other = await app.createAccount();
    const [otherKey] = await app.platform.accounts.listKeys({ accountId: other.accountId,
      environment: 'test' });
    const { browser } = await signedInAccount(app, 'owner');
    const response = await browser.post(`/dashboard/keys/${otherKey!.id}/revoke`, {});
    expect(response.statusCode).toBe(404);
    expect((await points(other.keys.test)).statusCode).toBe(200);
    // The live key of the same account is out of reach from a test session as well.
    const { browser: owner, accountId } = await signedInAccount(app, 'owner');
    const [liveKey] = await app.platform.accounts.listKeys({ accountId, environment: 'live' });
    expect((await owner.post(`/dashboard/keys/${liveKey!.id}/revoke`, {})).statusCode).toBe(404);
  });

  it('refuses a label that is empty or too long', async () => {
    const { browser, accountId } = await signedInAccount(app, 'admin');
    for (const label of ['', '   ', 'x'.repeat(101)]) {
      const { response, key } = await createKey(browser, label);
      expect(response.statusCode).toBe(400);
      expect(key).toBeUndefined();
    }
    expect(await app.platform.accounts.listKeys({ accountId, environment: 'test' }))
      .toHaveLength(1);
  });

  it.each(['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>'])(
    'shows the label %s inert', async (label) => {
      const { browser } = await signedInAccount(app, 'owner');
      const { response } = await createKey(browser, label);
      const list = await browser.get('/dashboard/keys');
      for (const body of [response.body, list.body]) {
        expect(body).not.toContain(label);
        expect(body).not.toMatch(/<script>alert|<img src=x/);
      }
      expect(list.body).toContain(label.includes('script') ? '&lt;script>alert(1)&lt;/script>'
        : '&quot;>&lt;img src=x onerror=alert(1)>');
    });

  it('is the same key as the CLI makes, revoked for a user who signs in later', async () => {
    const account = await app.createAccount();
    const cli = await app.platform.accounts.createKey({ accountId: account.accountId,
      environment: 'test', label: 'from the CLI' });
    const user = await createUser(app, account.accountId, 'owner');
    const browser = await signIn(app, user.email);
    const page = await browser.get('/dashboard/keys');
    expect(page.body).toContain('from the CLI');
    expect((await browser.post(`/dashboard/keys/${cli.keyId}/revoke`, {})).statusCode).toBe(303);
    expect((await points(cli.key)).statusCode).toBe(401);
  });
});
