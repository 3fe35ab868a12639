// Every response of a test app goes through the check against openapi/openapi.json
// (test/helpers/response-contract.ts), whatever answered it: an operation, authentication, the
// error handler or a page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { checkedResponseCount } from '../helpers/response-contract.ts';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

describe('a test app', () => {
  it('checks every response it sends', async () => {
    const { keys } = await app.createAccount();
    const requests = [
      { method: 'GET' as const, url: '/v1/points',
        headers: { authorization: basicAuth(keys.test) } },
      { method: 'GET' as const, url: '/v1/points' },
      { method: 'GET' as const, url: '/v1/no-such-route' },
      { method: 'GET' as const, url: '/healthz' },
    ];
    for (const request of requests) {
      const before = checkedResponseCount();
      await app.server.inject(request);
      expect(checkedResponseCount(), request.url).toBe(before + 1);
    }
  });
});
