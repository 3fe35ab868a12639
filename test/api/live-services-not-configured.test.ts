// A live key calling a service this server has no gateway or key for is refused with the 503
// its operation documents, with a message that names the missing setting instead of suggesting
// an outage, and is charged nothing. Test keys are not affected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { accountHelpers } from '../helpers/accounts.ts';
import { validNumbers } from '../helpers/business-numbers.ts';
import { expectError } from '../helpers/errors.ts';
import { jsonRequest } from '../helpers/http.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const { fundedAccount, expectBalance } = accountHelpers(() => app);

describe('live services that are not configured', () => {
  it.each([
    ['registration status', '/v1/businessRegistrationStatuses:bulkInquire', {
      businessRegistrationNumbers:
      validNumbers(1, '7001') }, /TAX_AUTHORITY_SERVICE_KEY is not set/],
    ['a bank account holder', '/v1/bankAccountHolders:inquire',
      { bankCode: '004', accountNumber: '1234567890' }, /BANK_GATEWAY_URL is not set/],
  ])('refuses a live key %s lookup with 503, naming the setting, and charges nothing',
    async (_, url, body, message) => {
      const account = await fundedAccount(1_000, 'live');
      const response = await app.server.inject(jsonRequest(account.keys.live, 'POST', url, body));
      expectError(response, 503, 'LOOKUP_UNAVAILABLE', message);
      await expectBalance(account, 1_000, 'live');
      const test = await app.server.inject(jsonRequest(account.keys.test, 'POST', url, body));
      expect(test.statusCode, test.body).toBe(200);
    });
});
