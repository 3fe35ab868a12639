// Failed logins through the hosted connection page are bounded: a link is spent after five, an
// account may fail twenty an hour over all its links, and a client address ten, across
// accounts; a login that works does not count. Each failure is logged (account, link, address,
// the outside system's code) without what was typed, and a spent link or a refused login is an
// error line. The page names the account that receives the connection. Behind TRUST_PROXY, the
// client address is X-Forwarded-For's.
import { randomInt } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { validNumbers } from '../helpers/business-numbers.ts';
import {
  connectionLink,
  issueFor,
  PORTAL_PASSWORD,
  PORTAL_USER_ID,
} from './revenue-expenses/helpers.ts';
import { request } from './tax-invoices/helpers.ts';

const WRONG_PASSWORD = 'wrong-password';
let app: TestApp;
const logLines: string[] = [];
// Addresses of this run only: with REDIS_URL the counters are shared by every run on that Redis.
const run = `10.${randomInt(256)}.${randomInt(256)}`;
let nextAddress = 0;
const newAddress = () => `${run}.${(nextAddress += 1)}`;

beforeAll(async () => {
  app = await createTestApp({ env: { TRUST_PROXY: '1', LOG_LEVEL: 'trace',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}) },
  logDestination: new Writable({ write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  } }) });
});
afterAll(async () => {
  await app?.close();
});

const NUMBER = validNumbers(1, '5678')[0]!;

function login(path: string, address: string, password = WRONG_PASSWORD) {
  return app.server.inject({ method: 'POST', url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': address },
    payload: new URLSearchParams({ businessRegistrationNumber: NUMBER,
      userId: PORTAL_USER_ID, password }).toString() });
}

// An account whose test key may connect NUMBER: one of its issuers has it.
async function connectingAccount() {
  const account = await app.createAccount();
  await issueFor(app, account.keys.test, NUMBER);
  return account;
}

async function connections(key: string) {
  return (await app.server.inject(request(key, 'GET', '/v1/connections'))).json().items;
}

const logged = () => logLines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the hosted connection page', () => {
  it('names the account that receives the connection', async () => {
    const { keys } = await app.createAccount({ name: 'Books <Acme> & Co' });
    const page = await app.server.inject({ method: 'GET',
      url: await connectionLink(app, keys.test) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Connecting to');
    expect(page.body).toContain('Books &lt;Acme&gt; &amp; Co');
  });
});

describe('failed logins', () => {
  it('spend a link after five, and then not even the right password connects', async () => {
    const { accountId, keys } = await connectingAccount();
    const path = await connectionLink(app, keys.test);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      expect((await login(path, newAddress())).statusCode).toBe(422);
    }
    const spent = await login(path, newAddress(), PORTAL_PASSWORD);
    expect(spent.statusCode).toBe(410);
    expect(spent.body).toContain('too many failed logins');
    expect((await app.server.inject({ method: 'GET', url: path })).statusCode).toBe(410);
    expect(await connections(keys.test)).toEqual([]);

    const lines = logged().filter((line) => line.accountId === accountId);
    const failures = lines.filter((line) => line.msg === 'connection page login failed');
    expect(failures).toHaveLength(5);
    expect(failures[0]).toMatchObject({ level: 40, environment: 'test',
      code: 'INVALID_CREDENTIALS', failedLogins: 1 });
    expect(failures[0]!.linkId).toMatch(/^[0-9a-f]{16}$/);
    expect(lines.filter((line) => line.msg === 'connection link spent by failed logins'))
      .toMatchObject([{ level: 50, failedLogins: 5 }]);
    const text = logLines.join('');
    expect(text).not.toContain(WRONG_PASSWORD);
    expect(text).not.toContain(PORTAL_PASSWORD);
    expect(text).not.toContain(PORTAL_USER_ID);
  });

  it('are bounded per account over all its links, whatever the addresses', async () => {
    const { accountId, keys } = await connectingAccount();
    for (let link = 0; link < 4; link += 1) {
      const path = await connectionLink(app, keys.test);
      for (let attempt = 0; attempt < 5; attempt += 1) {
        expect((await login(path, newAddress())).statusCode).toBe(422);
      }
    }
    const path = await connectionLink(app, keys.test);
    const refused = await login(path, newAddress(), PORTAL_PASSWORD);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('Too many failed logins');
    expect(await connections(keys.test)).toEqual([]);
    expect(logged().filter((line) => line.accountId === accountId &&
      line.msg === 'connection page logins refused: too many failed logins'))
      .toMatchObject([{ level: 50, limitedBy: 'account' }]);
    // Another account is not held back.
    const other = await connectingAccount();
    const connected = await login(await connectionLink(app, other.keys.test), newAddress(),
      PORTAL_PASSWORD);
    expect(connected.statusCode).toBe(200);
  });

  it('are bounded per client address across accounts; a login that works does not count',
    async () => {
      const address = newAddress();
      for (let account = 0; account < 2; account += 1) {
        const { keys } = await connectingAccount();
        for (let attempt = 0; attempt < 4; attempt += 1) {
          expect((await login(await connectionLink(app, keys.test), address)).statusCode)
            .toBe(422);
        }
      }
      // Eight failures so far; two that work change nothing.
      for (let account = 0; account < 2; account += 1) {
        const { keys } = await connectingAccount();
        expect((await login(await connectionLink(app, keys.test), address, PORTAL_PASSWORD))
          .statusCode).toBe(200);
      }
      const { keys } = await connectingAccount();
      const path = await connectionLink(app, keys.test);
      expect((await login(path, address)).statusCode).toBe(422);
      expect((await login(path, address)).statusCode).toBe(422);
      const refused = await login(path, address, PORTAL_PASSWORD);
      expect(refused.statusCode).toBe(429);
      expect(logged().filter((line) => line.clientAddress === address &&
        line.msg === 'connection page logins refused: too many failed logins'))
        .toMatchObject([{ limitedBy: 'address' }]);
      // The same link from another address still connects.
      expect((await login(path, newAddress(), PORTAL_PASSWORD)).statusCode).toBe(200);
    });
});
