// The Service-Client-Reference-Id header end to end: the shared header schema validates it, and
// a route built like an area (claim in the transaction of its work) replays or conflicts as
// spec §5.5 says, also for two concurrent requests with one reference id.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorResponses, UNAUTHENTICATED } from '../../src/platform/errors.ts';
import { requireAuth } from '../../src/platform/auth.ts';
import {
  requestFingerprint,
  runIdempotent,
} from '../../src/platform/idempotency/claims.ts';
import { referenceIdHeaders } from '../../src/platform/idempotency/reference-id-header.ts';
import type { Platform } from '../../src/app.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let key: string;
let workCount = 0;

// A document-issuance-like route: each new request "issues" one document.
function exampleRoutes(platform: () => Platform): FastifyPluginAsyncTypebox {
  return async (v1) => {
    v1.post('/examples/documents', {
      config: { operation: 'examples.documents.issue' },
      schema: {
        headers: referenceIdHeaders({ required: true }),
        body: Type.Object({ kind: Type.String({ maxLength: 20 }) }),
        response: {
          200: Type.Object({ documentNumber: Type.Integer() }),
          ...errorResponses(UNAUTHENTICATED, 'INVALID_REQUEST', 'IDEMPOTENCY_CONFLICT'),
        },
      },
    }, async (request, reply) => {
      const { keyId } = requireAuth(request);
      const referenceId = request.headers['service-client-reference-id'];
      const fingerprint = requestFingerprint({
        method: request.method,
        route: request.routeOptions.url ?? '',
        body: request.body,
      });
      const result = await platform().database.db.transaction((tx) =>
        runIdempotent(tx, { apiKeyId: keyId, namespace: 'document', referenceId, fingerprint },
          async () => {
            workCount += 1;
            return { status: 200, body: { documentNumber: workCount } };
          }));
      return reply.code(result.status as 200).send(result.body as { documentNumber: number });
    });
  };
}

beforeAll(async () => {
  app = await createTestApp({ extraRoutes: exampleRoutes(() => app.platform) });
  key = (await app.createAccount()).keys.test;
});
afterAll(async () => {
  await app?.close();
});

function issue(referenceId: string | undefined, body: object = { kind: 'vat' }) {
  const headers: Record<string, string> = { authorization: basicAuth(key) };
  if (referenceId !== undefined) headers['service-client-reference-id'] = referenceId;
  const url = '/v1/examples/documents';
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
    const url = '/v1/examples/documents';
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
