// The revenue and expense books end to end (docs/revenue-expense.md): plans gate every
// operation before anything else happens; the tax portal is connected on the hosted page; a
// collection through the sandbox portal is deterministic and a later one changes some invoices;
// the feed returns every change once, in order, after a stored cursor; invoices issued through
// etax appear as the supplier's sales and as purchases of the account connected to the
// recipient; nothing crosses accounts or environments.
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  businessRegistrationCheckDigit,
} from '../../../src/domain/business-registration-number.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import {
  issueTransmitted,
  registerSupplier,
  RECIPIENT_NUMBER,
  request,
} from '../tax-invoices/helpers.ts';
import {
  collect,
  collectAndWait,
  connectHometax,
  connectionLink,
  getCollection,
  issueFor,
  monthsAgo,
  PORTAL_PASSWORD,
  PORTAL_USER_ID,
  postForm,
  readAll,
  readFeed,
} from './helpers.ts';

const logLines: string[] = [];
let app: TestApp;
// Queues exist but nothing works them: collections stay QUEUED.
let idle: TestApp;

function businessNumber(seed: number): string {
  const nine = String(300_000_000 + seed * 7_919).slice(0, 9);
  return `${nine}${businessRegistrationCheckDigit(nine)}`;
}

beforeAll(async () => {
  const logDestination = new Writable({ write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  } });
  app = await createTestApp({ jobs: true, logDestination, env: { LOG_LEVEL: 'trace',
    TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0', AUTH_CACHE_TTL_MS: '0' } });
  idle = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false',
    AUTH_CACHE_TTL_MS: '0' } });
});

afterAll(async () => {
  await app?.close();
  await idle?.close();
});

const GATED = [
  { method: 'GET' as const, url: '/v1/revenueExpenses/taxInvoices' },
  { method: 'POST' as const, url: '/v1/revenueExpenses:collect',
    body: { from: monthsAgo(1), to: monthsAgo(0) } },
  { method: 'GET' as const, url: '/v1/revenueExpenses/collections/rec_none' },
];

describe('plans', () => {
  it('refuses every books operation below Standard with 403 PLAN_UPGRADE_REQUIRED', async () => {
    const { keys } = await app.createAccount({ plan: 'FREE' });
    for (const operation of GATED) {
      const response = await app.server.inject(request(keys.test, operation.method,
        operation.url, { body: operation.body }));
      expect(response.statusCode, operation.url).toBe(403);
      expect(response.json()).toMatchObject({ code: 'PLAN_UPGRADE_REQUIRED' });
      // Refused before the rate limit counted it.
      expect(response.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('refuses a Free account before reading its body: malformed JSON is 403 too', async () => {
    const { keys } = await app.createAccount({ plan: 'FREE' });
    const response = await app.server.inject(request(keys.live, 'POST',
      '/v1/revenueExpenses:collect', { body: '{"from":' }));
    expect(response.statusCode).toBe(403);
  });

  it('lets Standard and Premium accounts through', async () => {
    for (const plan of ['STANDARD', 'PREMIUM'] as const) {
      const { keys } = await app.createAccount({ plan });
      const feed = await app.server.inject(request(keys.test, 'GET',
        '/v1/revenueExpenses/taxInvoices'));
      expect(feed.statusCode, plan).toBe(200);
      const missing = await app.server.inject(request(keys.test, 'GET',
        '/v1/revenueExpenses/collections/rec_none'));
      expect(missing.statusCode, plan).toBe(404);
      const unconnected = await app.server.inject(request(keys.test, 'POST',
        '/v1/revenueExpenses:collect', { body: GATED[1]!.body }));
      expect(unconnected.json(), plan).toMatchObject({ code: 'CONNECTION_REQUIRED' });
    }
  });

  it('applies a plan change at once where the key cache is off', async () => {
    const { accountId, keys } = await app.createAccount({ plan: 'FREE' });
    const url = '/v1/revenueExpenses/taxInvoices';
    expect((await app.server.inject(request(keys.test, 'GET', url))).statusCode).toBe(403);
    await app.platform.accounts.changePlan(accountId, 'STANDARD');
    expect((await app.server.inject(request(keys.test, 'GET', url))).statusCode).toBe(200);
    await app.platform.accounts.changePlan(accountId, 'FREE');
    expect((await app.server.inject(request(keys.test, 'GET', url))).statusCode).toBe(403);
  });

  it('leaves connections free on every plan', async () => {
    const { keys } = await app.createAccount({ plan: 'FREE' });
    const response = await app.server.inject(request(keys.test, 'GET', '/v1/connections'));
    expect(response.statusCode).toBe(200);
  });
});

describe('connections', () => {
  it('connects on the hosted page, shows a failed login there, and lists the connection',
    async () => {
      const { keys } = await app.createAccount();
      const path = await connectionLink(app, keys.test);
      const page = await app.server.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.body).toContain('name="businessRegistrationNumber"');
      const number = businessNumber(1);
      await issueFor(app, keys.test, number);
      const failed = await postForm(app, path, { businessRegistrationNumber: number,
        userId: PORTAL_USER_ID, password: 'wrong-password' });
      expect(failed.statusCode).toBe(422);
      expect(failed.body).toContain('INVALID_CREDENTIALS');
      expect((await app.server.inject(request(keys.test, 'GET', '/v1/connections'))).json())
        .toEqual({ items: [], nextCursor: null, hasMore: false });
      const connected = await postForm(app, path, { businessRegistrationNumber: number,
        userId: PORTAL_USER_ID, password: PORTAL_PASSWORD });
      expect(connected.statusCode).toBe(200);
      const again = await postForm(app, path, { businessRegistrationNumber: number,
        userId: PORTAL_USER_ID, password: PORTAL_PASSWORD });
      expect(again.statusCode).toBe(410);
      const list = (await app.server.inject(request(keys.test, 'GET', '/v1/connections'))).json();
      expect(list.items).toHaveLength(1);
      expect(list.items[0]).toMatchObject({ kind: 'HOMETAX', method: 'PASSWORD',
        businessRegistrationNumber: number, state: 'CONNECTED', failure: null,
        lastSyncedAt: null });
      expect(JSON.stringify(list)).not.toContain(PORTAL_PASSWORD);
      expect(JSON.stringify(list)).not.toContain(PORTAL_USER_ID);
      // The live key sees none of the test environment's connections.
      expect((await app.server.inject(request(keys.live, 'GET', '/v1/connections'))).json())
        .toEqual({ items: [], nextCursor: null, hasMore: false });
    });

  it('connects a test business only when the account issues for it, refusing with no effect',
    async () => {
      const { accountId, keys } = await app.createAccount();
      const other = await app.createAccount();
      const number = businessNumber(7);
      // Another account's issuer of the number, and a live issuer of it, do not count; nor does
      // an issuer that was deactivated.
      await issueFor(app, other.keys.test, number);
      await issueFor(app, keys.live, number);
      await issueFor(app, keys.test, businessNumber(8));
      const deactivated = (await app.server.inject(request(keys.test, 'GET',
        '/v1/issuers'))).json().issuers[0].issuerId as string;
      expect((await app.server.inject(request(keys.test, 'DELETE',
        `/v1/issuers/${deactivated}`))).statusCode).toBe(200);
      const pointsBefore = (await app.server.inject(request(keys.test, 'GET', '/v1/points')))
        .json();
      const path = await connectionLink(app, keys.test);
      for (const refusedNumber of [number, businessNumber(8)]) {
        const refused = await postForm(app, path, { businessRegistrationNumber: refusedNumber,
          userId: PORTAL_USER_ID, password: PORTAL_PASSWORD });
        expect(refused.statusCode).toBe(403);
        expect(refused.headers['content-type']).toContain('text/html');
        expect(refused.body).toContain('테스트 키로는 계정이 발행하는 사업자의 홈택스만');
        expect(refused.body).toContain('register it as an issuer with a test key first');
      }
      // Nothing kept, charged or counted: no connection, the link unspent and usable.
      expect((await app.server.inject(request(keys.test, 'GET', '/v1/connections'))).json())
        .toEqual({ items: [], nextCursor: null, hasMore: false });
      const rows = await app.platform.database.db.execute(sql`select count(*)::int as count
        from connections where account_id = ${accountId}`);
      expect(('rows' in rows ? rows.rows : rows)[0]).toEqual({ count: 0 });
      const links = await app.platform.database.db.execute(sql`select failed_logins, used_at
        from connection_links where account_id = ${accountId}`);
      expect('rows' in links ? links.rows : links).toEqual([{ failed_logins: 0, used_at: null }]);
      expect(logLines.some((line) => line.includes(accountId) &&
        line.includes('connection page login failed'))).toBe(false);
      expect((await app.server.inject(request(keys.test, 'GET', '/v1/points'))).json())
        .toEqual(pointsBefore);
      // The service (what `etax connection add` calls) refuses the same way.
      await expect(app.connections.service.connect({ accountId, environment: 'test' },
        { kind: 'HOMETAX', method: 'PASSWORD', businessRegistrationNumber: number,
          userId: PORTAL_USER_ID, password: PORTAL_PASSWORD }))
        .rejects.toMatchObject({ code: 'SANDBOX_CONNECTION_NOT_ALLOWED', status: 403 });

      // Once the account issues for the business, the same link connects it.
      await issueFor(app, keys.test, number);
      const connected = await postForm(app, path, { businessRegistrationNumber: number,
        userId: PORTAL_USER_ID, password: PORTAL_PASSWORD });
      expect(connected.statusCode, connected.body).toBe(200);
      expect((await app.server.inject(request(keys.test, 'GET', '/v1/connections'))).json()
        .items).toMatchObject([{ businessRegistrationNumber: number, state: 'CONNECTED' }]);
    });

  it('refuses a malformed form, an unknown link and a link of another kind', async () => {
    const { keys } = await app.createAccount();
    const path = await connectionLink(app, keys.test);
    const bad = await postForm(app, path, { businessRegistrationNumber: '1234567890',
      userId: 'x', password: 'y' });
    expect(bad.statusCode).toBe(400);
    const extra = await postForm(app, path, { businessRegistrationNumber: businessNumber(2),
      userId: 'x', password: 'y', admin: 'true' });
    expect(extra.statusCode).toBe(400);
    const unknown = await app.server.inject({ method: 'GET',
      url: '/connections/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(unknown.statusCode).toBe(404);
    await issueFor(app, keys.test, businessNumber(3));
    const hostile = await postForm(app, path, { businessRegistrationNumber: businessNumber(3),
      userId: '<script>alert(1)</script>', password: 'wrong-password' });
    expect(hostile.statusCode).toBe(422);
    expect(hostile.body).not.toContain('<script>');
  });

  it('connects a bank account and keeps only its last four digits visible', async () => {
    const { keys } = await app.createAccount();
    const path = await connectionLink(app, keys.test, 'BANK_ACCOUNT');
    const response = await postForm(app, path, { bankCode: '004',
      accountNumber: '123-456-789012', userId: 'bank-user-77', password: 'Bank-Secret-31' });
    expect(response.statusCode, response.body).toBe(200);
    const list = (await app.server.inject(request(keys.test, 'GET', '/v1/connections'))).json();
    expect(list.items[0]).toMatchObject({ kind: 'BANK_ACCOUNT', bankCode: '004',
      accountNumber: '********9012', state: 'CONNECTED' });
    expect(JSON.stringify(list)).not.toContain('Bank-Secret-31');
  });

  it('disconnects, only in its own account', async () => {
    const owner = await app.createAccount();
    const other = await app.createAccount();
    const connection = await connectHometax(app, owner.keys.test, businessNumber(4));
    const foreign = await app.server.inject(request(other.keys.test, 'DELETE',
      `/v1/connections/${connection.id}`));
    expect(foreign.statusCode).toBe(404);
    const live = await app.server.inject(request(owner.keys.live, 'DELETE',
      `/v1/connections/${connection.id}`));
    expect(live.statusCode).toBe(404);
    const deleted = await app.server.inject(request(owner.keys.test, 'DELETE',
      `/v1/connections/${connection.id}`));
    expect(deleted.statusCode).toBe(204);
    expect((await app.server.inject(request(owner.keys.test, 'GET', '/v1/connections'))).json())
      .toEqual({ items: [], nextCursor: null, hasMore: false });
  });

  it('connects by an issuer\'s registered certificate (CLI and service path)', async () => {
    const { accountId, keys } = await app.createAccount();
    const supplier = await registerSupplier(app, keys.test,
      { identificationNumber: businessNumber(5) });
    const scope = { accountId, environment: 'test' as const };
    const outcome = await app.connections.service.connect(scope,
      { kind: 'HOMETAX', method: 'CERTIFICATE', issuerId: supplier.issuerId });
    expect(outcome).toMatchObject({ kind: 'connected', connection: { method: 'CERTIFICATE',
      businessRegistrationNumber: businessNumber(5) } });
    const uncertified = await registerSupplier(app, keys.test,
      { identificationNumber: businessNumber(6), certificate: false });
    await expect(app.connections.service.connect(scope, { kind: 'HOMETAX',
      method: 'CERTIFICATE', issuerId: uncertified.issuerId }))
      .rejects.toMatchObject({ code: 'CERTIFICATE_NOT_REGISTERED' });
  });
});

describe('collections and the feed', () => {
  it('collects deterministically, and a later collection changes some invoices', async () => {
    const number = businessNumber(10);
    const first = await app.createAccount();
    const twin = await app.createAccount();
    await connectHometax(app, first.keys.test, number);
    await connectHometax(app, twin.keys.test, number);
    const from = monthsAgo(2);
    const to = monthsAgo(1);

    const one = await collectAndWait(app, first.keys.test, from, to);
    expect(one.counts.collected).toBeGreaterThanOrEqual(12);
    expect(one.counts).toMatchObject({ inserted: one.counts.collected, updated: 0 });
    const firstRead = await readAll(app, first.keys.test);
    expect(firstRead.items).toHaveLength(one.counts.collected);
    expect(firstRead.items.every((item) => item.source === 'COLLECTED')).toBe(true);
    expect(new Set(firstRead.items.map((item) => item.direction)))
      .toEqual(new Set(['SALES', 'PURCHASE']));
    const sequences = firstRead.items.map((item) => item.changeSequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));

    // The same inputs give the same invoices to another account.
    await collectAndWait(app, twin.keys.test, from, to);
    const twinRead = await readAll(app, twin.keys.test);
    const strip = (items: typeof firstRead.items) => items.map(
      ({ changeSequence: _s, changedAt: _c, ...rest }) => rest)
      .sort((a, b) => (a.approvalNumber < b.approvalNumber ? -1 : 1));
    expect(strip(twinRead.items)).toEqual(strip(firstRead.items));

    // A later collection: one status change and one amendment per month, nothing else.
    const two = await collectAndWait(app, first.keys.test, from, to);
    expect(two.counts).toMatchObject({ inserted: 2, updated: 2 });
    const changes = await readAll(app, first.keys.test, firstRead.cursor);
    expect(changes.items).toHaveLength(4);
    expect(changes.items.filter((item) => item.amendment !== null)).toHaveLength(2);
    expect(changes.items.filter((item) => item.amendment === null)
      .every((item) => item.status === 'TRANSMITTED')).toBe(true);
    // Nothing more after the stored cursor; a third collection changes nothing.
    const three = await collectAndWait(app, first.keys.test, from, to);
    expect(three.counts).toMatchObject({ inserted: 0, updated: 0 });
    expect((await readAll(app, first.keys.test, changes.cursor)).items).toEqual([]);
    const listed = (await app.server.inject(request(first.keys.test, 'GET',
      '/v1/connections'))).json();
    expect(listed.items[0].lastSyncedAt).not.toBeNull();
  });

  it('filters by direction and write date, and refuses a cursor it did not write', async () => {
    const { keys } = await app.createAccount();
    await connectHometax(app, keys.test, businessNumber(11));
    const month = monthsAgo(1);
    await collectAndWait(app, keys.test, month, month);
    const sales = await readFeed(app, keys.test, { direction: 'SALES', limit: '1000' });
    expect(sales.items.length).toBeGreaterThan(0);
    expect(sales.items.every((item) => item.direction === 'SALES')).toBe(true);
    const none = await readFeed(app, keys.test, { writeDateFrom: `${monthsAgo(0)}-01` });
    expect(none.items).toEqual([]);
    for (const cursor of ['not a cursor', 'WyJ4Il0', 'Wy0xXQ']) {
      const response = await app.server.inject(request(keys.test, 'GET',
        `/v1/revenueExpenses/taxInvoices?cursor=${encodeURIComponent(cursor)}`));
      expect(response.statusCode, cursor).toBe(400);
    }
    const reversed = await app.server.inject(request(keys.test, 'GET',
      '/v1/revenueExpenses/taxInvoices?writeDateFrom=2026-02-01&writeDateTo=2026-01-01'));
    expect(reversed.statusCode).toBe(400);
  });

  it('refuses ranges that are reversed, too long or in the future', async () => {
    const { keys } = await app.createAccount();
    await connectHometax(app, keys.test, businessNumber(12));
    const bodies = [{ from: monthsAgo(1), to: monthsAgo(2) }, { from: monthsAgo(13),
      to: monthsAgo(0) }, { from: monthsAgo(0), to: '2999-01' }, { from: '2026-13', to: '2026-01' },
    { from: monthsAgo(1) }];
    for (const body of bodies) {
      const response = await app.server.inject(request(keys.test, 'POST',
        '/v1/revenueExpenses:collect', { body }));
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('joins a request to the collection already queued for the connection', async () => {
    const { keys } = await idle.createAccount();
    await connectHometax(idle, keys.test, businessNumber(13));
    const [a, b] = await Promise.all([collect(idle, keys.test, monthsAgo(1), monthsAgo(1)),
      collect(idle, keys.test, monthsAgo(1), monthsAgo(1))]);
    expect(a).toBe(b);
    expect((await getCollection(idle, keys.test, a)).state).toBe('QUEUED');
    const other = await idle.createAccount();
    const foreign = await idle.server.inject(request(other.keys.test, 'GET',
      `/v1/revenueExpenses/collections/${a}`));
    expect(foreign.statusCode).toBe(404);
  });

  it('keeps live collections apart and refuses them without a portal gateway', async () => {
    const { keys } = await idle.createAccount();
    await connectHometax(idle, keys.test, businessNumber(14));
    const live = await idle.server.inject(request(keys.live, 'POST',
      '/v1/revenueExpenses:collect', { body: { from: monthsAgo(1), to: monthsAgo(1) } }));
    expect(live.json()).toMatchObject({ code: 'CONNECTION_REQUIRED' });
    const link = await idle.server.inject(request(keys.live, 'GET',
      '/v1/connections/url?kind=HOMETAX'));
    const path = new URL(link.json().url).pathname;
    const page = await postForm(idle, path, { businessRegistrationNumber: businessNumber(14),
      userId: 'u', password: 'p' });
    expect(page.statusCode).toBe(503);
  });
});

describe('invoices issued through etax', () => {
  it('are the supplier\'s sales and a purchase of the account connected to the recipient',
    async () => {
      const supplierAccount = await app.createAccount();
      const bystander = await app.createAccount();
      // In the sandbox the purchase is booked in the issuing account only: here the same account
      // also issues for the recipient's number and has connected it.
      await connectHometax(app, supplierAccount.keys.test, RECIPIENT_NUMBER);
      const supplier = await registerSupplier(app, supplierAccount.keys.test);
      const invoice = await issueTransmitted(app, supplierAccount.keys.test,
        supplier.supplierKey);

      const entries = (await readAll(app, supplierAccount.keys.test)).items
        .filter((item) => item.approvalNumber === invoice.ntsTransactionId);
      expect(entries.map((item) => item.direction).sort()).toEqual(['PURCHASE', 'SALES']);
      expect(entries.find((item) => item.direction === 'SALES')).toMatchObject({
        source: 'ISSUED_HERE', issuanceKey: invoice.issuanceKey,
        counterpart: { businessRegistrationNumber: RECIPIENT_NUMBER }, status: 'TRANSMITTED',
        totalAmount: invoice.totals.total });
      expect(entries.find((item) => item.direction === 'PURCHASE')).toMatchObject({
        source: 'ISSUED_HERE', issuanceKey: null,
        counterpart: { businessRegistrationNumber: supplier.identificationNumber } });
      expect((await readAll(app, bystander.keys.test)).items).toEqual([]);
      expect((await readAll(app, supplierAccount.keys.live)).items).toEqual([]);
    });

  it('are never booked to another account in the sandbox, whatever number it connected',
    async () => {
      const supplierAccount = await app.createAccount();
      const other = await app.createAccount();
      // Another account registers an issuer under the recipient's number and connects it: the
      // sandbox cannot tell it does not own the number.
      await connectHometax(app, other.keys.test, RECIPIENT_NUMBER);
      const before = await readAll(app, other.keys.test);
      const supplier = await registerSupplier(app, supplierAccount.keys.test);
      const invoice = await issueTransmitted(app, supplierAccount.keys.test,
        supplier.supplierKey);
      expect((await readAll(app, supplierAccount.keys.test)).items
        .map((item) => item.approvalNumber)).toContain(invoice.ntsTransactionId);
      expect((await readAll(app, other.keys.test, before.cursor)).items).toEqual([]);
    });
});

describe('credentials at rest', () => {
  it('are in no response, log line or plain column', async () => {
    const secret = `Unique-Portal-Secret-${Date.now()}`;
    const userId = `unique-user-${Date.now()}`;
    const { keys } = await app.createAccount();
    await issueFor(app, keys.test, businessNumber(20));
    const path = await connectionLink(app, keys.test);
    const response = await postForm(app, path, { businessRegistrationNumber: businessNumber(20),
      userId, password: secret });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(secret);
    await collectAndWait(app, keys.test, monthsAgo(1), monthsAgo(1));
    const tables = await app.platform.database.db.execute<{ table_name: string }>(sql`
      select table_name from information_schema.tables where table_schema = 'public'`);
    const rows = 'rows' in tables ? tables.rows : tables;
    for (const { table_name: table } of rows as Array<{ table_name: string }>) {
      const found = await app.platform.database.db.execute(sql`select count(*)::int as count
        from ${sql.identifier(table)} t where t::text like ${`%${secret}%`}
        or t::text like ${`%${userId}%`}`);
      const [row] = ('rows' in found ? found.rows : found) as Array<{ count: number }>;
      expect(row!.count, table).toBe(0);
    }
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(secret);
    expect(logLines.join('')).not.toContain(userId);
  });

  it('are sealed again by etax reseal', async () => {
    const counts = await app.connections.resealSecrets!();
    expect(counts[0]).toMatchObject({ column: 'connections.sealed_credentials', unreadable: 0 });
    expect(counts[0]!.resealed).toBeGreaterThan(0);
  });
});
