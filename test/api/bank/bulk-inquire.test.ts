// POST /v1/bankAccountHolders:bulkInquire (docs/bank-account-holders.md).
// Method: one app whose accounts start with no test points (TEST_SIGNUP_POINTS=0), so every test
// grants exactly what it needs and can check the balance to the point afterwards, and whose bank
// calls time out after 200 ms, so the sandbox's hanging account ends quickly. Every test that
// touches points ends with the ledger audit. The sandbox accounts are those of docs/sandbox.md.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_ACCOUNTS, sandboxHolderName } from '../../../src/upstream/banks/sandbox.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { accountHelpers } from '../../helpers/accounts.ts';
import { expectError } from '../../helpers/errors.ts';
import { jsonRequest } from '../../helpers/http.ts';

const URL = '/v1/bankAccountHolders:bulkInquire';
const PRICE_POINTS = 50;

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({
    env: { TEST_SIGNUP_POINTS: '0', BANK_LOOKUP_TIMEOUT_MS: '200' },
  });
});
afterAll(async () => {
  await app?.close();
});

type Account = { bankCode: string; accountNumber: string };
type ItemError = { code: string; message: string };
type Item = Account & { holderName: string | null; error: ItemError | null };
const { fundedAccount, grantLive, reserveTest, balanceOf, expectBalance } =
  accountHelpers(() => app);

function post(key: string, payload: unknown): Promise<LightMyRequestResponse> {
  return app.server.inject(jsonRequest(key, 'POST', URL, payload));
}

const found = (bankCode: string, accountNumber: string): Item => ({
  bankCode,
  accountNumber,
  holderName: sandboxHolderName(bankCode, accountNumber.replace(/[- ]/g, '')),
  error: null,
});
const failed = (bankCode: string, accountNumber: string, code: string): Item => ({
  bankCode,
  accountNumber,
  holderName: null,
  error: { code, message: expect.any(String) as unknown as string },
});

const manyAccounts = (count: number): Account[] => Array.from({ length: count }, (_, index) => ({
  bankCode: '088',
  accountNumber: String(1_100_000_000 + index),
}));

describe('happy', () => {
  it('returns 200 with one item per account in the order sent, duplicates included, and ' +
    'charges 50 per distinct holder found',
    async () => {
      const account = await fundedAccount(1_000);
      const accounts: Account[] = [
        { bankCode: '004', accountNumber: '123-456-789012' },
        { bankCode: '088', accountNumber: SANDBOX_ACCOUNTS.notFound },
        { bankCode: 'KB', accountNumber: '1234567890' },
        { bankCode: '004', accountNumber: '123-456-789012' },
        { bankCode: '090', accountNumber: SANDBOX_ACCOUNTS.closed },
        { bankCode: '004', accountNumber: '123456789012' },
        { bankCode: '081', accountNumber: '12-34' },
        { bankCode: '240', accountNumber: '5555 6666 7777' },
        { bankCode: '020', accountNumber: SANDBOX_ACCOUNTS.amountRequired },
        { bankCode: '011', accountNumber: SANDBOX_ACCOUNTS.unavailable },
      ];
      const response = await post(account.keys.test, { accounts });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        results: [
          found('004', '123-456-789012'),
          failed('088', SANDBOX_ACCOUNTS.notFound, 'ACCOUNT_NOT_FOUND'),
          failed('KB', '1234567890', 'INVALID_BANK_CODE'),
          found('004', '123-456-789012'),
          failed('090', SANDBOX_ACCOUNTS.closed, 'ACCOUNT_CLOSED'),
          found('004', '123456789012'),
          failed('081', '12-34', 'INVALID_ACCOUNT_NUMBER'),
          found('240', '5555 6666 7777'),
          failed('020', SANDBOX_ACCOUNTS.amountRequired, 'AMOUNT_REQUIRED'),
          failed('011', SANDBOX_ACCOUNTS.unavailable, 'BANK_UNAVAILABLE'),
        ],
      });
      // Two distinct accounts have holders: 004/123456789012 (sent three ways) and 240/….
      await expectBalance(account, 1_000 - 2 * PRICE_POINTS);
    });

  it('returns 200 for a single account and charges 50 points', async () => {
    const account = await fundedAccount(50);
    const response = await post(account.keys.test, {
      accounts: [{ bankCode: '004', accountNumber: '1234567890' }],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ results: [found('004', '1234567890')] });
    await expectBalance(account, 0);
  });

  it('returns 200 for 100 accounts and charges 5,000 points', async () => {
    const account = await fundedAccount(5_000);
    const accounts = manyAccounts(100);
    const response = await post(account.keys.test, { accounts });
    expect(response.statusCode).toBe(200);
    const { results } = response.json() as { results: Item[] };
    expect(results).toEqual(accounts.map((item) => found(item.bankCode, item.accountNumber)));
    await expectBalance(account, 0);
  });

  it('charges exactly 50 per holder on partial success and releases the rest of the reservation',
    async () => {
      const account = await fundedAccount(10_000);
      const accounts = [
        ...manyAccounts(3),
        { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.notFound },
        { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.unavailable },
        { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.hanging },
      ];
      const response = await post(account.keys.test, { accounts });
      expect(response.statusCode).toBe(200);
      const { results } = response.json() as { results: Item[] };
    const codes = results.map((item) => item.error?.code);
      expect(codes).toEqual([
        undefined, undefined, undefined,
      'ACCOUNT_NOT_FOUND', 'BANK_UNAVAILABLE', 'BANK_UNAVAILABLE',
      ]);
      await expectBalance(account, 10_000 - 3 * PRICE_POINTS);
      const pointsResponse = await app.server.inject({
        method: 'GET',
        url: '/v1/points',
        headers: { authorization: basicAuth(account.keys.test) },
      });
      expect(pointsResponse.json()).toEqual({ balance: 9_850, reserved: 0, available: 9_850 });
    });

  it('returns 200 without charging when the bank answers but finds no holder', async () => {
    const account = await fundedAccount(100);
    const response = await post(account.keys.test, {
      accounts: [
        { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.unavailable },
        { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.closed },
      ],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      results: [
        failed('004', SANDBOX_ACCOUNTS.unavailable, 'BANK_UNAVAILABLE'),
        failed('004', SANDBOX_ACCOUNTS.closed, 'ACCOUNT_CLOSED'),
      ],
    });
    await expectBalance(account, 100);
  });

  it('returns 200 with item errors, reserving nothing, when every account is malformed',
    async () => {
      // No points at all: a reservation would have been refused with 402.
      const account = await fundedAccount(0);
      const response = await post(account.keys.test, {
        accounts: [
          { bankCode: '4', accountNumber: '1234567890' },
          { bankCode: '999', accountNumber: '1234567890' },
          { bankCode: '004', accountNumber: '1234567' },
          { bankCode: '004', accountNumber: '12345678901234567' },
          { bankCode: '004', accountNumber: '12345678a0' },
          { bankCode: '', accountNumber: '' },
        ],
      });
      expect(response.statusCode).toBe(200);
      const { results } = response.json() as { results: Item[] };
      expect(results.map((item) => [item.holderName, item.error?.code])).toEqual([
        [null, 'INVALID_BANK_CODE'],
        [null, 'INVALID_BANK_CODE'],
        [null, 'INVALID_ACCOUNT_NUMBER'],
        [null, 'INVALID_ACCOUNT_NUMBER'],
        [null, 'INVALID_ACCOUNT_NUMBER'],
        [null, 'INVALID_BANK_CODE'],
      ]);
      await expectBalance(account, 0);
    });

  it('gives each item error a message, the AMOUNT_REQUIRED one saying to look up again',
    async () => {
      const account = await fundedAccount(100);
      const response = await post(account.keys.test, {
        accounts: [{ bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.amountRequired }],
      });
      const [item] = (response.json() as { results: Item[] }).results;
      expect(item!.error!.message).toMatch(/again after the total payment amount is entered/);
      await expectBalance(account, 100);
    });
});

describe('errors', () => {
  it('returns 503 LOOKUP_UNAVAILABLE and charges nothing when no account got an answer',
    async () => {
      const account = await fundedAccount(1_000);
      const response = await post(account.keys.test, {
        accounts: [
          { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.unavailable },
          { bankCode: '088', accountNumber: SANDBOX_ACCOUNTS.hanging },
          { bankCode: '4', accountNumber: '1234567890' },
        ],
      });
      expectError(response, 503, 'LOOKUP_UNAVAILABLE');
      expect(response.body).not.toContain('results');
      await expectBalance(account, 1_000);
    });

  it('turns a bank call that never answers into BANK_UNAVAILABLE instead of a hung request',
    async () => {
      const account = await fundedAccount(100);
      const response = await post(account.keys.test, {
        accounts: [
          { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.hanging },
          { bankCode: '004', accountNumber: '1234567890' },
        ],
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        results: [
          failed('004', SANDBOX_ACCOUNTS.hanging, 'BANK_UNAVAILABLE'),
          found('004', '1234567890'),
        ],
      });
      await expectBalance(account, 50);
    });

  it.each([
    ['no accounts', { accounts: [] }, 'body.accounts'],
    ['101 accounts', { accounts: manyAccounts(101) }, 'body.accounts'],
    ['no accounts field', {}, 'body.accounts is required'],
    ['accounts as an object', { accounts: { bankCode: '004' } }, 'body.accounts'],
    ['a numeric bank code', { accounts: [{ bankCode: 4, accountNumber: '1234567890' }] },
      'body.accounts[0].bankCode'],
    ['a numeric account number', { accounts: [{ bankCode: '004', accountNumber: 1234567890 }] },
      'body.accounts[0].accountNumber'],
    ['a missing account number', { accounts: [{ bankCode: '004' }] },
      'body.accounts[0].accountNumber is required'],
    ['a null item', { accounts: [null] }, 'body.accounts[0]'],
    ['an unknown field', { accounts: [{ bankCode: '004', accountNumber: '1', extra: 1 }] },
      'body.accounts[0]'],
    ['an over-long bank code', { accounts: [{ bankCode: '0'.repeat(17), accountNumber: '1' }] },
      'body.accounts[0].bankCode'],
    ['malformed JSON', '{"accounts": [', 'not valid JSON'],
  ])('returns 400 INVALID_REQUEST naming the field for %s and charges nothing',
    async (_name, payload, named) => {
      const account = await fundedAccount(100);
      const body = expectError(await post(account.keys.test, payload), 400, 'INVALID_REQUEST');
      expect(body.message).toContain(named);
      await expectBalance(account, 100);
    });

  it('returns 402 PAYMENT_REQUIRED when the posted balance is below 50 × the accounts to look up',
    async () => {
      const account = await fundedAccount(60);
      // Two well-formed accounts reserve 100 even if only one might have a holder.
      const response = await post(account.keys.test, {
        accounts: [
          { bankCode: '004', accountNumber: '1234567890' },
          { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.notFound },
          { bankCode: 'XX', accountNumber: '1234567890' },
        ],
      });
      expectError(response, 402, 'PAYMENT_REQUIRED');
      await expectBalance(account, 60);
    });

  it('returns 409 AVAILABLE_POINTS_INSUFFICIENT when other requests have reserved the points',
    async () => {
      const account = await fundedAccount(100);
      const reservation = await reserveTest(account, 'bank.holders.inquire', 80);
      const response = await post(account.keys.test, {
        accounts: [{ bankCode: '004', accountNumber: '1234567890' }],
      });
      expectError(response, 409, 'AVAILABLE_POINTS_INSUFFICIENT');
      expect(await balanceOf(account)).toEqual({ balance: 100, reserved: 80, available: 20 });
      await app.platform.points.release(reservation);
      await expectBalance(account, 100);
    });

  it('never overspends: parallel requests on a balance covering some succeed or get 402/409',
    async () => {
      // Each request reserves 10 × 50 = 500 and captures 8 × 50 = 400 (two accounts have no
      // holder). 2,000 points cannot cover all 12 requests, however they interleave.
      const account = await fundedAccount(2_000);
      const accounts = [
        ...manyAccounts(8),
        { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.notFound },
        { bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.closed },
      ];
      const responses = await Promise.all(
        Array.from({ length: 12 }, () => post(account.keys.test, { accounts })),
      );
      const statuses = responses.map((response) => response.statusCode);
      const successCount = statuses.filter((status) => status === 200).length;
      for (const response of responses) {
        if (response.statusCode === 200) continue;
        const code = response.statusCode === 402
          ? 'PAYMENT_REQUIRED'
          : 'AVAILABLE_POINTS_INSUFFICIENT';
        expectError(response, response.statusCode, code);
      }
      expect(statuses.every((status) => [200, 402, 409].includes(status))).toBe(true);
      expect(successCount).toBeGreaterThanOrEqual(1);
      expect(successCount).toBeLessThanOrEqual(4);
      await expectBalance(account, 2_000 - successCount * 8 * PRICE_POINTS);
    });

  it('checks validation before points: a bad body with no balance is 400, not 402', async () => {
    const account = await fundedAccount(0);
    expectError(await post(account.keys.test, { accounts: [] }), 400, 'INVALID_REQUEST');
  });
});

// 401 without a key or with an unknown or password-bearing one, before the body is read; the
// Trace-Id; and the rate-limit headers naming this operation.

describe('security', () => {
  it('gives a live key without a bank gateway 503 LOOKUP_UNAVAILABLE and charges nothing',
    async () => {
      const account = await fundedAccount(1_000);
      await grantLive(account, 500);
      const response = await post(account.keys.live, {
        accounts: [{ bankCode: '004', accountNumber: '1234567890' }],
      });
      expectError(response, 503, 'LOOKUP_UNAVAILABLE');
      await expectBalance(account, 500, 'live');
      await expectBalance(account, 1_000, 'test');
    });

  it('never serves the sandbox accounts to live keys', async () => {
    const account = await fundedAccount(0);
    await grantLive(account, 500);
    const response = await post(account.keys.live, {
      accounts: [{ bankCode: '004', accountNumber: SANDBOX_ACCOUNTS.notFound }],
    });
    expectError(response, 503, 'LOOKUP_UNAVAILABLE');
  });

  it('charges a test key\'s test balance and leaves the live balance alone', async () => {
    const account = await fundedAccount(100);
    await grantLive(account, 700);
    expect((await post(account.keys.test, { accounts: manyAccounts(1) })).statusCode).toBe(200);
    await expectBalance(account, 50, 'test');
    await expectBalance(account, 700, 'live');
  });

  it('charges the caller\'s account only', async () => {
    const caller = await fundedAccount(100);
    const bystander = await fundedAccount(100);
    expect((await post(caller.keys.test, { accounts: manyAccounts(2) })).statusCode).toBe(200);
    await expectBalance(caller, 0);
    await expectBalance(bystander, 100);
  });

  it('echoes hostile strings back as JSON data without looking them up', async () => {
    const account = await fundedAccount(0);
    const hostile = ['<script>alert(1)</script>', "'; drop table balances; --", '\u0000\u202e'];
    const response = await post(account.keys.test, {
      accounts: hostile.map((text) => ({ bankCode: text.slice(0, 16), accountNumber: text })),
    });
    expect(response.statusCode).toBe(200);
    const { results } = response.json() as { results: Item[] };
    expect(results.map((item) => item.accountNumber)).toEqual(hostile);
    expect(results.every((item) => item.error?.code === 'INVALID_BANK_CODE')).toBe(true);
  });
});
