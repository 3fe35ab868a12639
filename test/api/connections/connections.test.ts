// The connections operations (docs/connections.md): the one-time link of the hosted page, the
// list and the disconnect, each with its status and codes, its refusals of bad input, and each
// key's connections out of reach of every other account and of its own other environment.
// Method: connections are made as a business owner makes them, on the hosted page; every
// answer is read through the API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { BANK_PASSWORD, BANK_USER_ID, connectBankAccount } from '../bank-transactions/helpers.ts';
import { connectHometax, PORTAL_PASSWORD, PORTAL_USER_ID } from '../revenue-expenses/helpers.ts';
import { request } from '../tax-invoices/helpers.ts';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ env: { AUTH_CACHE_TTL_MS: '0' } });
});
afterAll(async () => {
  await app?.close();
});

type Listed = { items: Array<{ id: string; kind: string; state: string }>; hasMore: boolean };

async function listConnections(key: string, query = '') {
  const response = await app.server.inject(request(key, 'GET', `/v1/connections${query}`));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Listed;
}

describe('GET /v1/connections/url', () => {
  it('answers a one-time page URL of this server, valid 10 minutes', async () => {
    const { keys } = await app.createAccount();
    for (const kind of ['HOMETAX', 'BANK_ACCOUNT']) {
      const before = Date.now();
      const response = await app.server.inject(request(keys.test, 'GET',
        `/v1/connections/url?kind=${kind}`));
      const after = Date.now();
      expect(response.statusCode, response.body).toBe(200);
      const { url, expiresAt } = response.json() as { url: string; expiresAt: string };
      expect(new URL(url).pathname).toMatch(/^\/connections\/[A-Za-z0-9_-]{20,}$/);
      // Ten minutes from the moment the link was made, somewhere between the two readings.
      expect(Date.parse(expiresAt)).toBeGreaterThanOrEqual(before + 10 * 60 * 1000 - 1);
      expect(Date.parse(expiresAt)).toBeLessThanOrEqual(after + 10 * 60 * 1000);
      // The page opens for the owner, in HTML.
      const page = await app.server.inject({ method: 'GET', url: new URL(url).pathname });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it('refuses a missing or unknown kind with 400 INVALID_REQUEST', async () => {
    const { keys } = await app.createAccount();
    for (const query of ['', '?kind=FAX', '?kind=hometax', '?kind=HOMETAX&extra=1']) {
      expectError(await app.server.inject(request(keys.test, 'GET',
        `/v1/connections/url${query}`)), 400, 'INVALID_REQUEST');
    }
  });

  it('refuses a request without a valid key with 401', async () => {
    const response = await app.server.inject({ method: 'GET',
      url: '/v1/connections/url?kind=HOMETAX' });
    expect(response.statusCode).toBe(401);
  });
});

describe('GET /v1/connections', () => {
  it('lists the key\'s connections of each kind, never their credentials', async () => {
    const { keys } = await app.createAccount();
    const hometax = await connectHometax(app, keys.test, '1234567891');
    const bank = await connectBankAccount(app, keys.test, '004', '110123456789');
    const all = await listConnections(keys.test);
    expect(all.items.map((item) => item.kind).sort()).toEqual(['BANK_ACCOUNT', 'HOMETAX']);
    expect(all.items.every((item) => item.state === 'CONNECTED')).toBe(true);
    expect(all.hasMore).toBe(false);
    expect((await listConnections(keys.test, '?kind=HOMETAX')).items.map((item) => item.id))
      .toEqual([hometax.id]);
    expect((await listConnections(keys.test, '?kind=BANK_ACCOUNT')).items)
      .toHaveLength(1);
    for (const secret of [PORTAL_PASSWORD, PORTAL_USER_ID, BANK_PASSWORD, BANK_USER_ID]) {
      expect(JSON.stringify(all)).not.toContain(secret);
    }
    expect(bank.accountNumber).not.toBe('110123456789');
  });

  it('refuses an unknown kind, a limit out of bounds and an unknown parameter with 400',
    async () => {
      const { keys } = await app.createAccount();
      for (const query of ['?kind=FAX', '?limit=0', '?limit=101', '?limit=x', '?sort=id']) {
        expectError(await app.server.inject(request(keys.test, 'GET',
          `/v1/connections${query}`)), 400, 'INVALID_REQUEST');
      }
    });
});

describe('DELETE /v1/connections/{connectionId}', () => {
  it('disconnects with 204 and no body; a second delete is 404 NOT_FOUND', async () => {
    const { keys } = await app.createAccount();
    const connection = await connectHometax(app, keys.test, '1234567891');
    const deleted = await app.server.inject(request(keys.test, 'DELETE',
      `/v1/connections/${connection.id}`));
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(deleted.body).toBe('');
    expect((await listConnections(keys.test)).items).toEqual([]);
    expectError(await app.server.inject(request(keys.test, 'DELETE',
      `/v1/connections/${connection.id}`)), 404, 'NOT_FOUND');
  });

  it('answers 404 NOT_FOUND for an id that names nothing and 400 for one that is no id',
    async () => {
      const { keys } = await app.createAccount();
      expectError(await app.server.inject(request(keys.test, 'DELETE',
        '/v1/connections/con_none')), 404, 'NOT_FOUND');
      expectError(await app.server.inject(request(keys.test, 'DELETE',
        `/v1/connections/${encodeURIComponent('con none!')}`)), 400, 'INVALID_REQUEST');
      expectError(await app.server.inject(request(keys.test, 'DELETE',
        `/v1/connections/${'c'.repeat(65)}`)), 400, 'INVALID_REQUEST');
    });
});

describe('isolation', () => {
  it('keeps a connection out of reach of other accounts and of the other environment',
    async () => {
      const owner = await app.createAccount();
      const stranger = await app.createAccount();
      const connection = await connectHometax(app, owner.keys.test, '1234567891');
      for (const key of [stranger.keys.test, stranger.keys.live, owner.keys.live]) {
        expect((await listConnections(key)).items.map((item) => item.id))
          .not.toContain(connection.id);
        expectError(await app.server.inject(request(key, 'DELETE',
          `/v1/connections/${connection.id}`)), 404, 'NOT_FOUND');
      }
      // Still there, unchanged, for its owner.
      expect((await listConnections(owner.keys.test)).items.map((item) => item.id))
        .toEqual([connection.id]);
    });

});
