// `etax account-business get|set`, tested black-box against the database of a running app: the
// owner business the command sets is the one the API answers, and refusals are the API's codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from '../api/tax-invoices/helpers.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { runEtax, runEtaxJson } from '../helpers/cli.ts';

let app: TestApp;
// On PostgreSQL the command warns on stderr that it generated its own encryption key; what it
// prints on stdout is what is tested.
const quietly = { stderrAllowed: true };

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('etax account-business', () => {
  it('sets the owner business the API then answers, and reads it back', async () => {
    const account = await app.createAccount();
    const set = await runEtaxJson(app.database.env, ['account-business', 'set',
      '--account', account.accountId, '--env', 'test', '--business-number', '123-45-67891',
      '--name', '주식회사 이택스', '--representative', '홍길동'], quietly);
    expect(set).toMatchObject({ businessNumber: '1234567891', name: '주식회사 이택스',
      certificate: null });
    const read = await app.server.inject(request(account.keys.test, 'GET',
      '/v1/account/business'));
    expect(read.json()).toMatchObject({ issuerId: set.issuerId, businessNumber: '1234567891' });
    expect(await runEtaxJson(app.database.env, ['account-business', 'get', '--account',
      account.accountId, '--env', 'test'], quietly)).toEqual(read.json());
  });

  it('refuses what the API refuses, with its code', async () => {
    const account = await app.createAccount();
    const missing = await runEtax(app.database.env, ['account-business', 'get', '--account',
      account.accountId, '--env', 'live']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('OWNER_BUSINESS_NOT_REGISTERED');
    const bad = await runEtax(app.database.env, ['account-business', 'set', '--account',
      account.accountId, '--env', 'test', '--business-number', '1234567890', '--name', 'A',
      '--representative', 'B']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('INVALID_BUSINESS_REGISTRATION_NUMBER');
  });
});
