// POST /v1/bankAccountHolders:inquire, the single-account lookup (docs/bank-account-holders.md):
// a holder name is 200 and costs 50 points; every other outcome is an error response that
// charges nothing: malformed input 400 INVALID_REQUEST naming the field, no such account or a
// closed one 404 NOT_FOUND, a fixed-amount virtual account 400 AMOUNT_REQUIRED, a bank that does
// not answer 503 LOOKUP_UNAVAILABLE. Method as in bulk-inquire.test.ts: accounts start with no
// test points, bank calls time out after 200 ms, and the ledger is audited after each test.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_ACCOUNTS, sandboxHolderName } from '../../../src/upstream/banks/sandbox.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { accountHelpers } from '../../helpers/accounts.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';
import { expectError } from '../../helpers/errors.ts';
import { sendJson, startFakeServer, type FakeServer } from '../../helpers/fake-server.ts';
import { jsonRequest } from '../../helpers/http.ts';

const URL = '/v1/bankAccountHolders:inquire';
const ACCOUNT = { bankCode: '004', accountNumber: '1234567890' };

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({
    env: { TEST_SIGNUP_POINTS: '0', BANK_LOOKUP_TIMEOUT_MS: '200' },
  });
});
afterAll(async () => {
  await app?.close();
});

const { fundedAccount, grantLive, reserveTest, expectBalance } = accountHelpers(() => app);

function post(key: string, payload: unknown): Promise<LightMyRequestResponse> {
  return app.server.inject(jsonRequest(key, 'POST', URL, payload));
}

describe('happy', () => {
  it('returns 200 with the holder name, echoing the account as sent, and charges 50 points',
    async () => {
      const account = await fundedAccount(120);
      const payload = { bankCode: '088', accountNumber: '110-123-456789' };
    const response = await post(account.keys.test, payload);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        bankCode: '088',
        accountNumber: '110-123-456789',
        holderName: sandboxHolderName('088', '110123456789'),
      });
      await expectBalance(account, 70);
    });

  it('returns the same holder name on every call for the same account', async () => {
    const account = await fundedAccount(100);
    const first = await post(account.keys.test, { bankCode: '271', accountNumber: '12345678' });
    const second = await post(account.keys.test, { bankCode: '271', accountNumber: '1234 5678' });
    expect((first.json() as { holderName: string }).holderName)
      .toBe((second.json() as { holderName: string }).holderName);
    await expectBalance(account, 0);
  });
});

describe('errors', () => {
  it.each([
    ['an unknown bank code', { bankCode: '999', accountNumber: '1234567890' }, 'body.bankCode'],
    ['a malformed bank code', { bankCode: '4', accountNumber: '1234567890' }, 'body.bankCode'],
    ['a 7-digit account number', { bankCode: '004', accountNumber: '123-4567' },
      'body.accountNumber'],
    ['a 17-digit account number', { bankCode: '004', accountNumber: '1'.repeat(17) },
      'body.accountNumber'],
    ['letters in the account number', { bankCode: '004', accountNumber: '12345abc90' },
      'body.accountNumber'],
    ['a numeric bank code', { bankCode: 4, accountNumber: '1234567890' }, 'body.bankCode'],
    ['a missing account number', { bankCode: '004' }, 'body.accountNumber is required'],
    ['an array body', [{ bankCode: '004', accountNumber: '1234567890' }], 'body'],
    ['malformed JSON', '{"bankCode":', 'not valid JSON'],
  ])('returns 400 INVALID_REQUEST naming the field for %s and charges nothing',
    async (_name, payload, named) => {
      const account = await fundedAccount(100);
      const body = expectError(await post(account.keys.test, payload), 400, 'INVALID_REQUEST');
      expect(body.message).toContain(named);
      await expectBalance(account, 100);
    });

  it.each([
    [SANDBOX_ACCOUNTS.notFound, /no account/],
    [SANDBOX_ACCOUNTS.closed, /closed/],
  ])('returns 404 NOT_FOUND saying which for account %s, and charges nothing',
    async (accountNumber, message) => {
      const account = await fundedAccount(100);
      const body = expectError(
        await post(account.keys.test, { bankCode: '004', accountNumber }),
        404,
        'NOT_FOUND',
      );
      expect(body.message).toMatch(message);
      await expectBalance(account, 100);
    });

  it('returns 400 AMOUNT_REQUIRED for a fixed-amount virtual account, and charges nothing',
    async () => {
      const account = await fundedAccount(100);
      const response = await post(account.keys.test, {
        bankCode: '004',
        accountNumber: SANDBOX_ACCOUNTS.amountRequired,
      });
      const body = expectError(response, 400, 'AMOUNT_REQUIRED');
      expect(body.message).toMatch(/again after the total payment amount is entered/);
      await expectBalance(account, 100);
    });

  it.each([
    ['fails', SANDBOX_ACCOUNTS.unavailable],
    ['never answers', SANDBOX_ACCOUNTS.hanging],
  ])('returns 503 LOOKUP_UNAVAILABLE when the bank %s, and charges nothing',
    async (_name, accountNumber) => {
      const account = await fundedAccount(100);
      const response = await post(account.keys.test, { bankCode: '004', accountNumber });
      expectError(response, 503, 'LOOKUP_UNAVAILABLE');
      await expectBalance(account, 100);
    });

  it('returns 402 PAYMENT_REQUIRED when the posted balance is below 50', async () => {
    const account = await fundedAccount(49);
    const response = await post(account.keys.test, ACCOUNT);
    expectError(response, 402, 'PAYMENT_REQUIRED');
    await expectBalance(account, 49);
  });

  it('returns 409 AVAILABLE_POINTS_INSUFFICIENT when other requests reserved the points',
    async () => {
      const account = await fundedAccount(60);
      const reservation = await reserveTest(account, 'bank.holders.inquire', 20);
      const response = await post(account.keys.test, ACCOUNT);
      expectError(response, 409, 'AVAILABLE_POINTS_INSUFFICIENT');
      await app.platform.points.release(reservation);
      await expectBalance(account, 60);
    });

  it('checks the account before the points: a bad bank code with no balance is 400', async () => {
    const account = await fundedAccount(0);
    const response = await post(account.keys.test, { ...ACCOUNT, bankCode: '999' });
    expectError(response, 400, 'INVALID_REQUEST');
  });
});

// 401 without a key or with an unknown or password-bearing one, before the body is read; the
// Trace-Id; and rate-limit headers naming this operation, apart from the bulk lookup.

describe('security', () => {
  it('gives a live key without a bank gateway 503 LOOKUP_UNAVAILABLE and charges nothing',
    async () => {
      const account = await fundedAccount(500, 'live');
      const response = await post(account.keys.live, ACCOUNT);
      expectError(response, 503, 'LOOKUP_UNAVAILABLE');
      await expectBalance(account, 500, 'live');
    });

  it('charges a test key\'s test balance and leaves the live balance alone', async () => {
    const account = await fundedAccount(50);
    await grantLive(account, 300);
    const response = await post(account.keys.test, ACCOUNT);
    expect(response.statusCode).toBe(200);
    await expectBalance(account, 0, 'test');
    await expectBalance(account, 300, 'live');
  });

});

describe('security: live keys reach the configured gateway, test keys never do', () => {
  let gateway: FakeServer;
  let liveApp: TestApp;
  const gatewayCalls: string[] = [];

  beforeAll(async () => {
    gateway = await startFakeServer((request, response) => {
      gatewayCalls.push(request.text);
      sendJson(response, 200, JSON.stringify({ result: 'FOUND', holderName: '(주)게이트웨이' }));
    });
    liveApp = await createTestApp({
      env: { TEST_SIGNUP_POINTS: '100', BANK_GATEWAY_URL: gateway.origin },
    });
  });
  afterAll(async () => {
    await liveApp?.close();
    await gateway?.close();
  });

  it('answers a live key from the gateway, sending the normalised number, and charges live',
    async () => {
      const account = await liveApp.createAccount();
      const { accountId } = account;
      await liveApp.platform.points.grant({ accountId, environment: 'live', points: 80 });
      const response = await liveApp.server.inject({
        method: 'POST',
        url: URL,
        headers: { authorization: basicAuth(account.keys.live) },
        payload: { bankCode: '004', accountNumber: '123-456-7890' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        bankCode: '004',
        accountNumber: '123-456-7890',
        holderName: '(주)게이트웨이',
      });
      expect(gatewayCalls).toEqual(['{"bankCode":"004","accountNumber":"1234567890"}']);
      const live = await liveApp.platform.points.getBalance({ accountId, environment: 'live' });
      expect(live).toEqual({ balance: 30, reserved: 0, available: 30 });
      await expectLedgerConsistent(liveApp.platform, accountId, 'live');
    });

  it('answers a test key from the sandbox even when a gateway is configured', async () => {
    const account = await liveApp.createAccount();
    const before = gatewayCalls.length;
    const response = await liveApp.server.inject({
      method: 'POST',
      url: URL,
      headers: { authorization: basicAuth(account.keys.test) },
      payload: { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.closed },
    });
    expectError(response, 404, 'NOT_FOUND');
    expect(gatewayCalls.length).toBe(before);
  });
});
