// Page cursors through the API (docs/operations.md § Page cursors): a cursor answered to one
// account opens for that account, environment and list only; another account's, a tampered one
// or one written in clear is 400 INVALID_REQUEST (in Korean too); its text holds no id or
// position; and it still opens after a restart on the same configured key, not on another.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { validNumbers } from '../helpers/business-numbers.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { expectError } from '../helpers/errors.ts';
import { issuerBody, request } from './issuers/helpers.ts';

const REFUSED =
  /^query\.cursor is not a cursor this operation returned to this account and environment\.$/;
const NUMBERS = validNumbers(3, '3121');

type Injector = Pick<TestApp, 'server'>;

// An account with three issuers, and the cursor after the first of them.
async function accountWithCursor(app: Injector & Pick<TestApp, 'platform'>) {
  const account = await app.platform.accounts.createAccount({ name: 'Cursors', plan: 'FREE' });
  const ids: string[] = [];
  for (const number of NUMBERS) {
    const created = await app.server.inject(request(account.keys.test, 'POST', '/v1/issuers',
      issuerBody({ identificationNumber: number })));
    expect(created.statusCode, created.body).toBe(201);
    ids.push(created.json().issuerId);
  }
  const first = await app.server.inject(request(account.keys.test, 'GET', '/v1/issuers?limit=1'));
  expect(first.statusCode).toBe(200);
  const { nextCursor } = first.json() as { nextCursor: string };
  return { ...account, ids, cursor: nextCursor };
}

const page = (app: Injector, key: string, cursor: string, path = '/v1/issuers?limit=1&') =>
  app.server.inject(request(key, 'GET', `${path}cursor=${encodeURIComponent(cursor)}`));

describe('a list cursor', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('pages its own account\'s list and shows neither ids nor positions', async () => {
    const a = await accountWithCursor(app);
    const next = await page(app, a.keys.test, a.cursor);
    expect(next.statusCode).toBe(200);
    expect(next.json().issuers.map((issuer: { issuerId: string }) => issuer.issuerId))
      .toEqual([a.ids[1]]);
    const { rows } = await app.platform.database.pool.query<{ sequence: string }>(
      'select sequence::text from issuers where id = $1', [a.ids[0]]);
    const sequence = rows[0]!.sequence;
    expect(a.cursor).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    // What a cursor written in clear would show. A text of a few characters turns up in any
    // random base64url by chance (the sequence 1 is "MQ"), so only those of eight or more are
    // looked for.
    const clears = [a.ids[0]!, a.accountId, Buffer.from(sequence).toString('base64url'),
      Buffer.from(`[${sequence}]`).toString('base64url')].filter((clear) => clear.length >= 8);
    expect(clears.length).toBeGreaterThanOrEqual(2);
    for (const clear of clears) expect(a.cursor).not.toContain(clear);
  });

  it('is refused with 400 for another account, another environment and another list',
    async () => {
      const a = await accountWithCursor(app);
      const b = await accountWithCursor(app);
      expectError(await page(app, b.keys.test, a.cursor), 400, 'INVALID_REQUEST', REFUSED);
      expectError(await page(app, a.keys.live, a.cursor), 400, 'INVALID_REQUEST', REFUSED);
      expectError(await page(app, a.keys.test, a.cursor, '/v1/taxInvoices?'), 400,
        'INVALID_REQUEST', REFUSED);
      expectError(await page(app, a.keys.test, a.cursor, '/v1/cashReceipts?'), 400,
        'INVALID_REQUEST', REFUSED);
      // In Korean for a client that asks for it.
      const korean = await app.server.inject({ ...request(b.keys.test, 'GET',
        `/v1/issuers?cursor=${encodeURIComponent(a.cursor)}`),
      headers: { ...request(b.keys.test, 'GET', '/').headers, 'accept-language': 'ko' } });
      expectError(korean, 400, 'INVALID_REQUEST', /^요청이 올바르지 않습니다\. \(query\.cursor/);
      // B's own cursor still works for B.
      expect((await page(app, b.keys.test, b.cursor)).statusCode).toBe(200);
    });

  it('is refused with 400 when tampered with or written in clear', async () => {
    const a = await accountWithCursor(app);
    const [version, iv, tag, body] = a.cursor.split('.') as [string, string, string, string];
    const flip = (text: string) => `${text.slice(0, -3)}${text.at(-3) === 'A' ? 'B' : 'A'}` +
      text.slice(-2);
    for (const cursor of [[version, iv, tag, flip(body)].join('.'),
      [version, iv, flip(tag), body].join('.'), `${a.cursor}.AAAA`,
      Buffer.from('[1]').toString('base64url'), Buffer.from('1').toString('base64url')]) {
      expectError(await page(app, a.keys.test, cursor), 400, 'INVALID_REQUEST');
    }
    // Over the length of any cursor: refused by the query's schema.
    expectError(await page(app, a.keys.test, 'A'.repeat(201)), 400, 'INVALID_REQUEST');
  });
});

describe('a cursor across restarts', () => {
  const key = randomBytes(32).toString('base64');
  let database: TestDatabase;
  let app: App | null = null;

  async function open(env: Record<string, string>) {
    await app?.close();
    app = await createApp(loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: undefined,
      ...database.env, ...env }));
    await app.server.ready();
    return app;
  }

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  it('opens after a restart on the same key, and not on another key', async () => {
    const a = await accountWithCursor(await open({ ENCRYPTION_KEY: key }));
    const restarted = await open({ ENCRYPTION_KEY: key });
    const next = await page(restarted, a.keys.test, a.cursor);
    expect(next.statusCode, next.body).toBe(200);
    expect(next.json().issuers[0].issuerId).toBe(a.ids[1]);
    const otherKey = await open({ ENCRYPTION_KEY: randomBytes(32)
      .toString('base64'), ENCRYPTION_PREVIOUS_KEYS: '' });
    expectError(await page(otherKey, a.keys.test, a.cursor), 400, 'INVALID_REQUEST', REFUSED);
  });
});
