// Balance reads outside a transaction are batched into one query per turn of the event loop.
// Batching must never mix accounts or environments up, and never serve a stale value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('reading balances in batches', () => {
  it('answers each of many concurrent reads with its own account and environment', async () => {
    const accounts = await Promise.all(Array.from({ length: 20 }, () => app.createAccount()));
    await Promise.all(accounts.map((account, index) =>
      app.platform.points.grant({
        accountId: account.accountId,
        environment: 'live',
        points: (index + 1) * 10,
      })));
    const reads = accounts.flatMap((account) => [
      app.platform.points.getBalance({ accountId: account.accountId, environment: 'live' }),
      app.platform.points.getBalance({ accountId: account.accountId, environment: 'test' }),
    ]);
    const balances = await Promise.all(reads);
    accounts.forEach((_account, index) => {
      expect(balances[index * 2]).toEqual({
        balance: (index + 1) * 10,
        reserved: 0,
        available: (index + 1) * 10,
      });
      expect(balances[index * 2 + 1]!.balance).toBe(1_000_000);
    });
  });

  it('answers the same key read twice in one batch', async () => {
    const { accountId } = await app.createAccount();
    const key = { accountId, environment: 'test' as const };
    const [first, second] = await Promise.all([
      app.platform.points.getBalance(key),
      app.platform.points.getBalance(key),
    ]);
    expect(first).toEqual(second);
  });

  it('sees a change committed just before the read', async () => {
    const { accountId } = await app.createAccount();
    const key = { accountId, environment: 'live' as const };
    expect((await app.platform.points.getBalance(key)).balance).toBe(0);
    await app.platform.points.grant({ ...key, points: 42 });
    expect((await app.platform.points.getBalance(key)).balance).toBe(42);
  });

  it('reads zero for an account without balances', async () => {
    const balance = await app.platform.points.getBalance({
      accountId: 'acc_missing',
      environment: 'live',
    });
    expect(balance).toEqual({ balance: 0, reserved: 0, available: 0 });
  });
});
