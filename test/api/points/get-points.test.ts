// GET /v1/points returns the calling key's own balance: test keys see the test balance and live
// keys the live balance, and no account sees another's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { TRACE_ID_PATTERN } from '../../helpers/http.ts';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

function getPoints(key: string) {
  return app.server.inject({
    method: 'GET',
    url: '/v1/points',
    headers: { authorization: basicAuth(key) },
  });
}

describe('GET /v1/points', () => {
  it('returns the test balance for a test key, starting at the sign-up grant', async () => {
    const account = await app.createAccount();
    const response = await getPoints(account.keys.test);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ balance: 1_000_000, reserved: 0, available: 1_000_000 });
    expect(response.headers['trace-id']).toMatch(TRACE_ID_PATTERN);
  });

  it('returns the live balance for a live key, separate from the test balance', async () => {
    const account = await app.createAccount();
    const { accountId } = account;
    await app.platform.points.grant({ accountId, environment: 'live', points: 700 });
    const response = await getPoints(account.keys.live);
    expect(response.json()).toEqual({ balance: 700, reserved: 0, available: 700 });
  });

  it('shows reserved points as not available', async () => {
    const account = await app.createAccount();
    await app.platform.points.reserve({
      accountId: account.accountId,
      environment: 'test',
      operation: 'businesses.profiles.retrieve',
      points: 90,
    });
    const response = await getPoints(account.keys.test);
    expect(response.json()).toEqual({ balance: 1_000_000, reserved: 90, available: 999_910 });
  });

  it('never shows one account the balance of another', async () => {
    const rich = await app.createAccount();
    const poor = await app.createAccount();
    const accountId = rich.accountId;
    await app.platform.points.grant({ accountId, environment: 'live', points: 5_000 });
    const response = await getPoints(poor.keys.live);
    expect(response.json()).toEqual({ balance: 0, reserved: 0, available: 0 });
  });
});
