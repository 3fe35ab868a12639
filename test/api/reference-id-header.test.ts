// The Service-Client-Reference-Id header end to end: the shared header schema validates it, and
// a route built like an area (claim in the transaction of its work) replays or conflicts as
// docs/idempotency.md says, also for two concurrent requests with one reference id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { EXAMPLE_DOCUMENT_URL, exampleDocumentRoute } from '../helpers/example-document-route.ts';

let app: TestApp;
let key: string;
let workCount = 0;

beforeAll(async () => {
  // Each new request "issues" one document, numbered in the order of the work.
  app = await createTestApp({
    extraRoutes: exampleDocumentRoute(() => app.platform, async () => {
      workCount += 1;
      return workCount;
    }),
  });
  key = (await app.createAccount()).keys.test;
});
afterAll(async () => {
  await app?.close();
});

function issue(referenceId: string | undefined, body: object = { kind: 'vat' }) {
  const headers: Record<string, string> = { authorization: basicAuth(key) };
  if (referenceId !== undefined) headers['service-client-reference-id'] = referenceId;
  const url = EXAMPLE_DOCUMENT_URL;
  return app.server.inject({ method: 'POST', url, headers, payload: body });
}

describe('validating Service-Client-Reference-Id', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['256 characters', 'r'.repeat(256)],
  ])('returns 400 INVALID_REQUEST naming the header when it is %s', async (_case, value) => {
    const before = workCount;
    const response = await issue(value);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('INVALID_REQUEST');
    expect(response.json().message).toContain('service-client-reference-id');
    expect(workCount).toBe(before);
  });

  it('accepts 255 characters', async () => {
    expect((await issue('r'.repeat(255))).statusCode).toBe(200);
  });
});

describe('repeating a reference id', () => {
  it('replays the stored response for the same body and does the work once', async () => {
    const first = await issue('same-body');
    const before = workCount;
    const second = await issue('same-body');
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(workCount).toBe(before);
  });

  it('returns 409 IDEMPOTENCY_CONFLICT for a different body', async () => {
    await issue('other-body', { kind: 'vat' });
    const response = await issue('other-body', { kind: 'income' });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('does the work once for two concurrent requests with one reference id', async () => {
    const before = workCount;
    const [first, second] = await Promise.all([issue('concurrent'), issue('concurrent')]);
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(workCount).toBe(before + 1);
  });

  it('keeps reference ids of the test and live keys apart', async () => {
    const account = await app.createAccount();
    const headers = (apiKey: string) => ({
      authorization: basicAuth(apiKey),
      'service-client-reference-id': 'shared-id',
    });
    const url = EXAMPLE_DOCUMENT_URL;
    const test = await app.server.inject({
      method: 'POST', url, headers: headers(account.keys.test), payload: { kind: 'vat' },
    });
    const live = await app.server.inject({
      method: 'POST', url, headers: headers(account.keys.live), payload: { kind: 'income' },
    });
    expect(test.statusCode).toBe(200);
    expect(live.statusCode).toBe(200);
    expect(live.json().documentNumber).not.toBe(test.json().documentNumber);
  });
});
