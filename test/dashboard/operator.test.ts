import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { newBrowser, PASSWORD, signedInAccount, signIn, usersOf } from './helpers.ts';

// The operator's pages: only users flagged operator reach them, whatever their role; each action
// is the CLI's (the accounts and points services, the holiday table, the outbox); every change
// is audited; hostile names are shown inert.

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

let app: TestApp;
beforeAll(async () => {
  // Jobs started, so the health section reads the job queues.
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false',
    TAX_INVOICE_GATEWAY_URL: 'https://gateway.example.com',
    TAX_INVOICE_NTS_SYSTEM_CODE: '41000008' } });
});
afterAll(async () => {
  await app?.close();
});

let operators = 0;
async function signedInOperator(role: Role = 'owner') {
  const account = await app.createAccount({ name: 'Operations' });
  const email = `operator${++operators}-${Date.now()}@example.com`;
  await usersOf(app).createUser({ accountId: account.accountId, email, role, operator: true,
    password: PASSWORD });
  return { ...account, browser: await signIn(app, email) };
}

const auditOf = async (accountId: string) => ((await app.platform.database.db.execute(
  sql`select action, target, environment from dashboard_audit_events
      where account_id = ${accountId} and action like 'operator.%' order by sequence`))
  .rows);


describe('operator pages', () => {
  it('shows the instance\'s health and the accounts, to an operator', async () => {
    const { browser } = await signedInOperator('viewer');
    const other = await app.createAccount({ name: 'Customer one' });
    const page = await browser.get('/dashboard/operator');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('href="/dashboard/operator"');
    expect(page.body).toContain('Customer one');
    expect(page.body).toContain(other.accountId);
    // No REDIS_URL in this app: counts are kept in memory.
    expect(page.body).toContain('프로세스 메모리에서 셈 (REDIS_URL 없음)');
    expect(page.body).toContain('webhook-deliveries');
    expect(page.body).toContain('CASH_RECEIPT_GATEWAY_URL');
    expect(page.body).not.toContain('<code class="tag">TAX_INVOICE_GATEWAY_URL</code>');
  });

  it.each(['owner', 'viewer'] as Role[])('refuses every operator page to a non-operator %s',
    async (role) => {
      const { browser, accountId } = await signedInAccount(app, role);
      const home = await browser.get('/dashboard');
      expect(home.body).not.toContain('href="/dashboard/operator"');
      for (const path of ['/dashboard/operator', `/dashboard/operator/accounts/${accountId}`,
        '/dashboard/operator/holidays', '/dashboard/operator/outbox']) {
        const response = await browser.get(path);
        expect(response.statusCode, path).toBe(403);
        expect(response.body).toContain('운영자로 지정된 사용자만');
      }
      const posts: Array<[string, Record<string, string>]> = [
        ['/dashboard/operator/accounts', { name: 'x', plan: 'FREE' }],
        [`/dashboard/operator/accounts/${accountId}/plan`, { plan: 'PREMIUM' }],
        [`/dashboard/operator/accounts/${accountId}/grant`, { points: '1000' }],
        ['/dashboard/operator/holidays', { date: '2031-01-02', name: 'nope' }],
      ];
      for (const [path, form] of posts) {
        expect((await browser.post(path, form)).statusCode, path).toBe(403);
      }
      expect((await app.platform.points.getBalance({ accountId, environment: 'live' }))
        .available).toBe(0);
      expect((await app.platform.accounts.requireAccount(accountId)).plan).toBe('STANDARD');
      expect(await auditOf(accountId)).toEqual([]);
    });

  it('refuses the pages without a session', async () => {
    const response = await newBrowser(app).get('/dashboard/operator');
    expect(response.statusCode).toBe(303);
  });

  it('creates an account, changes its plan and grants live points, audited', async () => {
    const { browser, accountId: operatorAccount } = await signedInOperator();
    const created = await browser.post('/dashboard/operator/accounts',
      { name: 'New customer', plan: 'FREE' });
    expect(created.statusCode).toBe(303);
    const accountId = /\/operator\/accounts\/(acc_[\w-]+)$/.exec(
      String(created.headers.location))?.[1];
    expect((await app.platform.accounts.requireAccount(accountId!)).plan).toBe('FREE');
    const path = `/dashboard/operator/accounts/${accountId}`;
    const page = await browser.get(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('New customer');
    expect(page.body).toContain('운영자 보기');
    expect((await browser.post(`${path}/plan`, { plan: 'PREMIUM' })).statusCode).toBe(303);
    expect((await app.platform.accounts.requireAccount(accountId!)).plan).toBe('PREMIUM');
    const granted = await browser.post(`${path}/grant`, { points: '1,500,000' });
    expect(granted.statusCode).toBe(303);
    const balance = await app.platform.points.getBalance({ accountId: accountId!,
      environment: 'live' });
    expect(balance.available).toBe(1_500_000);
    // The test balance is not touched.
    const testBalance = await app.platform.points.getBalance({ accountId: accountId!,
      environment: 'test' });
    expect((await browser.get(`${path}?notice=operator.pointsGranted`)).body)
      .toContain('1,500,000 P');
    expect(testBalance.available).toBe(app.platform.config.TEST_SIGNUP_POINTS);
    expect(await auditOf(operatorAccount)).toEqual([
      { action: 'operator.accountCreated', target: accountId, environment: null },
      { action: 'operator.planChanged', target: accountId, environment: null },
      { action: 'operator.pointsGranted', target: accountId, environment: 'live' },
    ]);
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const { browser } = await signedInOperator();
    const { accountId } = await app.createAccount();
    const path = `/dashboard/operator/accounts/${accountId}`;
    for (const points of ['0', '-5', '1.5', 'abc', '', '99999999999999999999']) {
      expect((await browser.post(`${path}/grant`, { points })).statusCode, points).toBe(400);
    }
    expect((await app.platform.points.getBalance({ accountId, environment: 'live' })).available)
      .toBe(0);
    expect((await browser.post(`${path}/plan`, { plan: 'GOLD' })).statusCode).toBe(400);
    expect((await browser.post('/dashboard/operator/accounts', { name: '', plan: 'FREE' }))
      .statusCode).toBe(400);
    expect((await browser.post('/dashboard/operator/accounts', { name: 'x'.repeat(201),
      plan: 'FREE' })).statusCode).toBe(400);
    expect((await browser.post('/dashboard/operator/holidays', { date: '2031-02-30',
      name: 'x' })).statusCode).toBe(400);
    expect((await browser.post('/dashboard/operator/holidays', { date: '2031-02-03',
      name: '' })).statusCode).toBe(400);
  });

  it('answers 404 for an account that does not exist', async () => {
    const { browser } = await signedInOperator();
    expect((await browser.get('/dashboard/operator/accounts/acc_nope')).statusCode).toBe(404);
    expect((await browser.post('/dashboard/operator/accounts/acc_nope/grant',
      { points: '10' })).statusCode).toBe(404);
    expect((await browser.post('/dashboard/operator/holidays/2031-12-31/remove', {}))
      .statusCode).toBe(404);
  });

  it('adds and removes holidays of the CLI\'s table, names shown inert', async () => {
    const { browser, accountId } = await signedInOperator();
    const added = await browser.post('/dashboard/operator/holidays',
      { date: '2031-03-04', name: HOSTILE });
    expect(added.statusCode).toBe(303);
    const { rows } = await app.platform.database.db.execute(
      sql`select name from operator_holidays where date = '2031-03-04'`);
    expect(rows).toEqual([{ name: HOSTILE }]);
    const page = await browser.get('/dashboard/operator/holidays');
    expect(page.body).not.toMatch(/<script>alert|<img src=x/);
    expect(page.body).toContain('&lt;script>alert(1)&lt;/script>');
    expect((await browser.post('/dashboard/operator/holidays/2031-03-04/remove', {}))
      .statusCode).toBe(303);
    expect((await app.platform.database.db.execute(
      sql`select name from operator_holidays where date = '2031-03-04'`)).rows).toEqual([]);
    expect((await auditOf(accountId)).map((row) => (row as { action: string }).action))
      .toEqual(['operator.holidayAdded', 'operator.holidayRemoved']);
  });

  it('shows hostile account names inert, with the headers', async () => {
    const { browser } = await signedInOperator();
    const { accountId } = await app.createAccount({ name: HOSTILE });
    for (const path of ['/dashboard/operator', `/dashboard/operator/accounts/${accountId}`]) {
      const page = await browser.get(path);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toMatch(/<script>alert|<img src=x/);
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(page.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('reads the mail outbox as `etax mail outbox` does, every field inert', async () => {
    const { browser } = await signedInOperator();
    await app.platform.queueMail(app.platform.database.db, { kind: 'test',
      to: 'someone@example.com', subject: `Subject ${HOSTILE}`, text: `Text ${HOSTILE}` });
    const page = await browser.get('/dashboard/operator/outbox?status=KEPT');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('someone@example.com');
    expect(page.body).toContain('Subject &lt;script>alert(1)&lt;/script>');
    expect(page.body).toContain('Text &lt;script>alert(1)&lt;/script>');
    expect(page.body).not.toMatch(/<script>alert|<img src=x/);
    const sent = await browser.get('/dashboard/operator/outbox?status=SENT');
    expect(sent.body).not.toContain('someone@example.com');
    const hostile = await browser.get('/dashboard/operator/outbox?status=%3Cscript%3E');
    expect(hostile.statusCode).toBe(200);
    expect(hostile.body).not.toContain('<script>');
  });

  it('refuses an operator POST without the token or from another origin', async () => {
    const { browser } = await signedInOperator();
    const { accountId } = await app.createAccount();
    const path = `/dashboard/operator/accounts/${accountId}/grant`;
    await browser.get(`/dashboard/operator/accounts/${accountId}`);
    expect((await browser.post(path, { points: '10', _csrf: 'x' })).statusCode).toBe(403);
    expect((await browser.post(path, { points: '10' }, { origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect((await app.platform.points.getBalance({ accountId, environment: 'live' })).available)
      .toBe(0);
  });
});

describe('an operator\'s read-only look at an account', () => {
  const viewedAudit = async (accountId: string) => ((await app.platform.database.db.execute(
    sql`select action, target, actor_email from dashboard_audit_events
        where account_id = ${accountId} and action like 'operator.accountView%'
        order by sequence`)).rows);

  it('shows the account as its Viewer sees it, with the banner, audited in both accounts',
    async () => {
      const operator = await signedInOperator('owner');
      const customer = await app.createAccount({ name: `Customer ${HOSTILE}` });
      const [customerKey] = await app.platform.accounts.listKeys({
        accountId: customer.accountId, environment: 'test' });
      const account = await operator.browser.get(
        `/dashboard/operator/accounts/${customer.accountId}`);
      expect(account.body).toContain(
        `action="/dashboard/operator/accounts/${customer.accountId}/view"`);
      const opened = await operator.browser.post(
        `/dashboard/operator/accounts/${customer.accountId}/view`, {});
      expect(opened.statusCode).toBe(303);
      expect(opened.headers.location).toBe('/dashboard');

      for (const path of ['/dashboard', '/dashboard/keys', '/dashboard/points',
        '/dashboard/webhooks', '/dashboard/documents', '/dashboard/tax-invoices',
        '/dashboard/counterparties', '/dashboard/plan']) {
        const page = await operator.browser.get(path);
        expect(page.statusCode, path).toBe(200);
        expect(page.body, path).toContain('id="viewing-banner"');
        expect(page.body, path).toContain(customer.accountId);
        expect(page.body, path).toContain('action="/dashboard/operator/view/end"');
        expect(page.body, path).not.toContain(HOSTILE);
      }
      // The customer's keys, redacted; no form to make or revoke one (a Viewer's page).
      const keys = await operator.browser.get('/dashboard/keys');
      expect(keys.body).toContain(customerKey!.redacted);
      expect(keys.body).not.toContain(customer.keys.test);
      expect(keys.body).not.toContain('action="/dashboard/keys"');
      // What a Viewer may not read stays closed.
      expect((await operator.browser.get('/dashboard/team')).statusCode).toBe(403);
      expect((await operator.browser.get('/dashboard/audit')).statusCode).toBe(403);

      const expected = [{ action: 'operator.accountViewed', target: customer.accountId,
        actor_email: expect.stringContaining('@example.com') as unknown }];
      expect(await viewedAudit(customer.accountId)).toEqual(expected);
      expect(await viewedAudit(operator.accountId)).toEqual(expected);

      // The way back: the operator's own account again, and the end audited.
      const ended = await operator.browser.post('/dashboard/operator/view/end', {});
      expect(ended.statusCode).toBe(303);
      expect(ended.headers.location).toBe(`/dashboard/operator/accounts/${customer.accountId}`);
      const home = await operator.browser.get('/dashboard');
      expect(home.body).not.toContain('id="viewing-banner"');
      expect(home.body).toContain('Operations');
      expect((await viewedAudit(operator.accountId)).map((row) => row.action))
        .toEqual(['operator.accountViewed', 'operator.accountViewEnded']);
    });

  it('refuses every change while looking, on the server, whatever the route', async () => {
    const operator = await signedInOperator('owner');
    const customer = await app.createAccount({ name: 'Customer two' });
    await operator.browser.post(`/dashboard/operator/accounts/${customer.accountId}/view`, {});
    await operator.browser.get('/dashboard');
    const keysBefore = await app.platform.accounts.listKeys({ accountId: customer.accountId,
      environment: 'test' });
    const { PAGES } = await import('../../src/dashboard/pages/index.ts');
    const posts = PAGES.flatMap((page) => page.routes)
      .filter((route) => route.method === 'POST' && route.whileViewing !== true);
    expect(posts.length).toBeGreaterThan(30);
    for (const route of posts) {
      const path = `/dashboard${route.path.replace(/:(\w+)/g, (_match, name: string) =>
        (name === 'accountId' ? customer.accountId : `x_${name}`))}`;
      const refused = await operator.browser.post(path, { label: 'x', points: '1000',
        plan: 'FREE', name: 'x', url: 'https://example.com/h', events: 'WEBHOOK_TEST' });
      expect(refused.statusCode, path).toBe(403);
      expect(refused.body, path).toContain('읽기 전용으로 보고 있어');
    }
    // The methods the dashboard has no route for change nothing either.
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const response = await app.server.inject({ method, url: '/dashboard/keys',
        headers: { cookie: [...operator.browser.cookies].map(([name, value]) =>
          `${name}=${value}`).join('; '), origin: 'http://localhost:80' } });
      expect(response.statusCode, method).toBeGreaterThanOrEqual(400);
    }
    expect(await app.platform.accounts.listKeys({ accountId: customer.accountId,
      environment: 'test' })).toEqual(keysBefore);
    expect((await app.platform.accounts.requireAccount(customer.accountId)).plan)
      .toBe('STANDARD');
    expect(await app.platform.points.getBalance({ accountId: customer.accountId,
      environment: 'live' })).toMatchObject({ available: 0 });
    // The operator's own session controls still work.
    expect((await operator.browser.post('/dashboard/environment', { environment: 'live',
      return: '/dashboard' })).statusCode).toBe(303);
  });

  it('is for operators only, and ends when the user is no longer one', async () => {
    const { browser, accountId } = await signedInAccount(app, 'owner');
    const other = await app.createAccount({ name: 'Someone else' });
    await browser.get('/dashboard');
    const refused = await browser.post(`/dashboard/operator/accounts/${other.accountId}/view`,
      {});
    expect(refused.statusCode).toBe(403);
    expect((await browser.get('/dashboard')).body).not.toContain('id="viewing-banner"');
    expect(await viewedAudit(other.accountId)).toEqual([]);
    expect(await viewedAudit(accountId)).toEqual([]);

    const operator = await signedInOperator('viewer');
    expect((await operator.browser.post('/dashboard/operator/accounts/acc_nope/view', {}))
      .statusCode).toBe(404);
    await operator.browser.post(`/dashboard/operator/accounts/${other.accountId}/view`, {});
    expect((await operator.browser.get('/dashboard')).body).toContain('Someone else');
    await app.platform.database.db.execute(sql`update dashboard_users set operator = false
      where account_id = ${operator.accountId}`);
    const after = await operator.browser.get('/dashboard');
    expect(after.body).not.toContain('id="viewing-banner"');
    expect(after.body).not.toContain('Someone else');
  });
});
