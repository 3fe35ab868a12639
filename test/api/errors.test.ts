// Every error response is exactly {code, message, traceId}, with
// a Trace-Id header equal to body.traceId, and a 401 has no body. This file registers a few
// routes under /v1 (a bulk body like the bank holder lookup, a path and query parameter, routes
// that fail on purpose) and drives every error path through them: malformed, empty, oversized
// and mistyped bodies, wrong content types, unknown routes, crashes and hostile input.
import { Readable } from 'node:stream';
import assert from 'node:assert/strict';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BODY_ERRORS,
  errorResponses,
  PLATFORM_ERRORS,
} from '../../src/platform/error-responses.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/errors.ts';
import { TRACE_ID_PATTERN } from '../helpers/http.ts';

// Small enough that a full request fits in the 2 KiB body limit below, so the item bound and the
// body bound can be tested apart.
const ACCOUNTS_PER_REQUEST_MAX = 20;
const BODY_LIMIT_BYTES = 2_048;
const SECRET = 'secret db detail: password=hunter2 host=db.internal';

const BankAccountRef = Type.Object({
  bankCode: Type.String({ maxLength: 3 }),
  accountNumber: Type.String(),
});
const HolderLookupBody = Type.Object({
  accounts: Type.Array(BankAccountRef, { minItems: 1, maxItems: ACCOUNTS_PER_REQUEST_MAX }),
}, { title: 'ProbeHolders', description: 'The body as sent.' });

const registerProbeRoutes: FastifyPluginAsync = async (plain) => {
  const v1 = plain.withTypeProvider<TypeBoxTypeProvider>();
  v1.post('/probe/holders', {
    config: { operation: 'bank.holders.bulkInquire' },
    schema: {
      body: HolderLookupBody,
      response: { 200: HolderLookupBody, ...errorResponses(...PLATFORM_ERRORS, ...BODY_ERRORS) },
    },
  }, async (request) => request.body);

  v1.get('/probe/items/:itemId', {
    config: { operation: 'bank.holders.inquire' },
    schema: {
      params: Type.Object({ itemId: Type.String({ maxLength: 20 }) }),
      querystring: Type.Object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
      }),
      response: {
        200: Type.Object({ itemId: Type.String() },
          { title: 'ProbeItem', description: 'The item named.' }),
        ...errorResponses(...PLATFORM_ERRORS, 'INVALID_REQUEST'),
      },
    },
  }, async (request) => ({ itemId: request.params.itemId }));

  const failures: Record<string, () => unknown> = {
    'plain-error': () => {
      throw new Error(SECRET);
    },
    'non-error': () => Promise.reject(SECRET),
    'assertion': () => assert.equal(SECRET, 'something else'),
    'api-error': () => {
      throw new ApiError('SERVICE_UNAVAILABLE');
    },
  };
  for (const [name, fail] of Object.entries(failures)) {
    v1.get(`/probe/failures/${name}`, {
      config: { operation: 'points.retrieve' },
      schema: {
        response: {
          200: Type.Object({}, { title: 'ProbeFailure', description: 'Never sent.' }),
          ...errorResponses(...PLATFORM_ERRORS),
        },
      },
    }, async () => {
      await fail();
      return {};
    });
  }
};

let app: TestApp;
let authorization: string;

beforeAll(async () => {
  app = await createTestApp({
    env: { BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) },
    extraRoutes: registerProbeRoutes,
  });
  authorization = basicAuth((await app.createAccount()).keys.test);
});
afterAll(async () => {
  await app?.close();
});


function expectUnauthenticated(response: LightMyRequestResponse) {
  expect(response.statusCode).toBe(401);
  expect(response.body).toBe('');
  expect(response.headers['trace-id']).toMatch(TRACE_ID_PATTERN);
}

type PostOptions = { contentType?: string; authorization?: string | null };

async function postHolders(payload: string | Buffer | Readable, options: PostOptions = {}) {
  const headers: Record<string, string> = {};
  const auth = options.authorization === undefined ? authorization : options.authorization;
  if (auth !== null) headers.authorization = auth;
  if (options.contentType !== '') {
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  return app.server.inject({ method: 'POST', url: '/v1/probe/holders', headers, payload });
}

function accountsOf(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    bankCode: '004',
    accountNumber: String(index),
  }));
}

// A valid body of exactly `bytes` bytes: the account number is padded to fit.
function bodyOfLength(bytes: number): string {
  const empty = JSON.stringify({ accounts: [{ bankCode: '004', accountNumber: '' }] });
  const body = JSON.stringify({
    accounts: [{ bankCode: '004', accountNumber: '1'.repeat(bytes - empty.length) }],
  });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

describe('happy', () => {
  it('returns 200 for a valid body, so the errors below come from the input alone', async () => {
    const body = { accounts: accountsOf(ACCOUNTS_PER_REQUEST_MAX) };
    const response = await postHolders(JSON.stringify(body));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(body);
  });

  it('accepts a body of exactly BODY_LIMIT_BYTES', async () => {
    const response = await postHolders(bodyOfLength(BODY_LIMIT_BYTES));
    expect(response.statusCode).toBe(200);
  });
});

describe('errors: request bodies', () => {
  it('returns 400 INVALID_REQUEST for malformed JSON', async () => {
    expectError(await postHolders('{"accounts": [{"bankCode": "004",'), 400, 'INVALID_REQUEST');
    expectError(await postHolders("{'accounts': []}"), 400, 'INVALID_REQUEST');
  });

  it('returns 400 INVALID_REQUEST for an empty body sent as JSON', async () => {
    expectError(await postHolders(''), 400, 'INVALID_REQUEST');
  });

  it('returns 400 INVALID_REQUEST for a JSON body that is not an object', async () => {
    for (const payload of ['null', '[]', '"accounts"', '42', 'true']) {
      const body = expectError(await postHolders(payload), 400, 'INVALID_REQUEST');
      expect(body.message).toContain('body');
    }
  });

  it('returns 400 INVALID_REQUEST naming the field when a string is a number', async () => {
    const payload = JSON.stringify({ accounts: [{ bankCode: 4, accountNumber: '1' }] });
    const body = expectError(await postHolders(payload), 400, 'INVALID_REQUEST');
    expect(body.message).toContain('accounts[0].bankCode');
  });

  it('returns 400 INVALID_REQUEST naming the field when a later item is mistyped', async () => {
    const accounts: unknown[] = accountsOf(3);
    accounts[2] = { bankCode: '004', accountNumber: 12345 };
    const response = await postHolders(JSON.stringify({ accounts }));
    const body = expectError(response, 400, 'INVALID_REQUEST');
    expect(body.message).toContain('accounts[2].accountNumber');
  });

  it('returns 400 INVALID_REQUEST naming the field when an item field is missing', async () => {
    const payload = JSON.stringify({ accounts: [{ bankCode: '004' }] });
    const body = expectError(await postHolders(payload), 400, 'INVALID_REQUEST');
    expect(body.message).toContain('accounts[0].accountNumber');
  });

  it('returns 400 INVALID_REQUEST naming the field when a top-level field is missing', async () => {
    const body = expectError(await postHolders('{}'), 400, 'INVALID_REQUEST');
    expect(body.message).toContain('accounts');
  });

  it('returns 400 INVALID_REQUEST naming the field when a string is too long', async () => {
    const payload = JSON.stringify({ accounts: [{ bankCode: '0004', accountNumber: '1' }] });
    const body = expectError(await postHolders(payload), 400, 'INVALID_REQUEST');
    expect(body.message).toContain('accounts[0].bankCode');
  });

  it('returns 400 INVALID_REQUEST when there is one item more than the maximum', async () => {
    const payload = JSON.stringify({ accounts: accountsOf(ACCOUNTS_PER_REQUEST_MAX + 1) });
    const body = expectError(await postHolders(payload), 400, 'INVALID_REQUEST');
    expect(body.message).toContain('accounts');
  });

  it('returns 400 INVALID_REQUEST when the list is empty', async () => {
    const body = expectError(await postHolders('{"accounts": []}'), 400, 'INVALID_REQUEST');
    expect(body.message).toContain('accounts');
  });

  it('returns 400 INVALID_REQUEST for prototype pollution attempts', async () => {
    const payloads = [
      '{"accounts": [{"bankCode": "004", "accountNumber": "1"}], "__proto__": {"admin": true}}',
      '{"accounts": [], "constructor": {"prototype": {"admin": true}}}',
    ];
    for (const payload of payloads) {
      expectError(await postHolders(payload), 400, 'INVALID_REQUEST');
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('returns 413 PAYLOAD_TOO_LARGE for a body one byte over BODY_LIMIT_BYTES', async () => {
    const response = await postHolders(bodyOfLength(BODY_LIMIT_BYTES + 1));
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('returns 413 PAYLOAD_TOO_LARGE for a much larger body', async () => {
    const payload = JSON.stringify({ accounts: accountsOf(10_000) });
    expectError(await postHolders(payload), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('returns 413 PAYLOAD_TOO_LARGE for a streamed body without Content-Length', async () => {
    const payload = Readable.from([Buffer.alloc(BODY_LIMIT_BYTES * 4, ' ')]);
    expectError(await postHolders(payload), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('returns 415 UNSUPPORTED_MEDIA_TYPE for a text/plain body', async () => {
    const payload = JSON.stringify({ accounts: accountsOf(1) });
    const response = await postHolders(payload, { contentType: 'text/plain' });
    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('returns 415 UNSUPPORTED_MEDIA_TYPE for other media types and a missing one', async () => {
    const payload = JSON.stringify({ accounts: accountsOf(1) });
    const contentTypes = ['application/x-www-form-urlencoded', 'application/xml', 'image/png', ''];
    for (const contentType of contentTypes) {
      expectError(await postHolders(payload, { contentType }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });
});

describe('errors: paths and query strings', () => {
  it('returns 400 INVALID_REQUEST naming the query parameter when it is not a number', async () => {
    const response = await app.server.inject({
      method: 'GET',
      url: '/v1/probe/items/item-1?limit=ten',
      headers: { authorization },
    });
    const body = expectError(response, 400, 'INVALID_REQUEST');
    expect(body.message).toContain('limit');
  });

  it('returns 400 INVALID_REQUEST naming the query parameter when it is out of range', async () => {
    const response = await app.server.inject({
      method: 'GET',
      url: '/v1/probe/items/item-1?limit=101',
      headers: { authorization },
    });
    const body = expectError(response, 400, 'INVALID_REQUEST');
    expect(body.message).toContain('limit');
  });

  it('returns 400 INVALID_REQUEST naming the path parameter when it is too long', async () => {
    const response = await app.server.inject({
      method: 'GET',
      url: `/v1/probe/items/${'a'.repeat(21)}`,
      headers: { authorization },
    });
    const body = expectError(response, 400, 'INVALID_REQUEST');
    expect(body.message).toContain('itemId');
  });

  // Known bug: Fastify answers these before routing, with its own body and no Trace-Id, unless
  // the server passes `frameworkErrors: handleFrameworkError` (src/platform/error-handler.ts)
  // to Fastify() in src/server.ts. Remove `.fails` once it does.
  it('returns 400 INVALID_REQUEST for a URL with broken percent-encoding', async () => {
    const response = await app.server.inject({
      method: 'GET',
      url: '/v1/probe/items/%E0%A4%A',
      headers: { authorization },
    });
    expectError(response, 400, 'INVALID_REQUEST');
  });

  it('returns 400 INVALID_REQUEST for a path parameter over the router limit', async () => {
    const response = await app.server.inject({
      method: 'GET',
      url: `/v1/probe/items/${'a'.repeat(1_000)}`,
      headers: { authorization },
    });
    const body = expectError(response, 400, 'INVALID_REQUEST');
    expect(body.message).not.toContain('a'.repeat(100));
  });
});

describe('errors: unknown routes', () => {
  const cases = [
    { url: '/v1/no-such-route', method: 'GET' as const },
    { url: '/v1/probe/holders', method: 'DELETE' as const },
    { url: '/v1', method: 'GET' as const },
    { url: '/no-such-route', method: 'GET' as const },
    { url: '/', method: 'POST' as const },
  ];

  for (const { url, method } of cases) {
    it(`returns 404 NOT_FOUND for ${method} ${url} with a valid key`, async () => {
      const response = await app.server.inject({ method, url, headers: { authorization } });
      expectError(response, 404, 'NOT_FOUND');
    });

    it(`returns 404 NOT_FOUND for ${method} ${url} without a key`, async () => {
      expectError(await app.server.inject({ method, url }), 404, 'NOT_FOUND');
    });
  }
});

describe('errors: failures inside the server', () => {
  const crashes = {
    'plain-error': 'a thrown Error',
    'non-error': 'a rejected value that is not an Error',
    'assertion': 'a failed assertion',
  };
  for (const [name, what] of Object.entries(crashes)) {
    it(`returns 500 INTERNAL_SERVER_ERROR without internal detail for ${what}`, async () => {
      const response = await app.server.inject({
        method: 'GET',
        url: `/v1/probe/failures/${name}`,
        headers: { authorization },
      });
      expectError(response, 500, 'INTERNAL_SERVER_ERROR');
      expect(response.body).not.toContain('secret');
      expect(response.body).not.toContain('hunter2');
      expect(response.body).not.toMatch(/at .+\.ts:\d+/);
      expect(JSON.stringify(response.headers)).not.toContain('secret');
    });
  }

  it('returns the status and code of an ApiError thrown by a handler', async () => {
    const response = await app.server.inject({
      method: 'GET',
      url: '/v1/probe/failures/api-error',
      headers: { authorization },
    });
    expectError(response, 503, 'SERVICE_UNAVAILABLE');
  });
});

describe('errors: hostile input never causes a 500', () => {
  // Valid in JSON as an escape, but it has no UTF-8 form: it cannot be put in a URL or echoed.
  const LONE_SURROGATE = '\ud800';
  const HOSTILE_STRINGS = [
    'x'.repeat(1_500),
    'nul\u0000byte',
    '\u0000',
    '🙂🇰🇷👨‍👩‍👧 한국어',
    "'; drop table api_keys; --",
    '" or "1"="1',
    '\u202eevil\u202c',
    LONE_SURROGATE,
    '%00%ff%c0%af',
    '<script>alert(1)</script>',
    '${jndi:ldap://example.invalid/a}',
    '\\\r\n\t',
    '',
  ];

  it('echoes hostile account numbers unchanged', async () => {
    for (const text of HOSTILE_STRINGS.filter((hostile) => hostile !== LONE_SURROGATE)) {
      const accounts = [{ bankCode: '004', accountNumber: text }];
      const response = await postHolders(JSON.stringify({ accounts }));
      expect(response.statusCode, JSON.stringify(text)).toBe(200);
      expect(response.json()).toEqual({ accounts });
    }
  });

  it('refuses a lone surrogate in any string of a body, member names included, with 400',
    async () => {
    const bodies = [
      { accounts: [{ bankCode: '004', accountNumber: LONE_SURROGATE }] },
      { accounts: [{ bankCode: '004', accountNumber: `a${LONE_SURROGATE}b` }] },
      { accounts: [{ bankCode: '004', accountNumber: '1', [LONE_SURROGATE]: 'x' }] },
      // A low half alone, and a high half followed by a character that is not its low half.
      { accounts: [{ bankCode: '004', accountNumber: '\udc00' }] },
      { accounts: [{ bankCode: '004', accountNumber: '\ud83dx' }] },
    ];
    for (const body of bodies) {
      const response = await postHolders(JSON.stringify(body));
      expectError(response, 400, 'INVALID_REQUEST');
      expect(response.json().message)
        .toMatch(/^body\.accounts\[0\].* lone surrogate \(U\+D[89A-F][0-9A-F]{2}\)/u);
    }
    // A whole pair is one character (U+1F642) and is accepted.
    const pair = await postHolders(JSON.stringify(
      { accounts: [{ bankCode: '004', accountNumber: '\ud83d\ude42' }] }));
    expect(pair.statusCode).toBe(200);
  });

  it('answers hostile bank codes with 200 or a well-formed 400', async () => {
    for (const text of HOSTILE_STRINGS) {
      const accounts = [{ bankCode: text, accountNumber: '1' }];
      const response = await postHolders(JSON.stringify({ accounts }));
      expect([200, 400], JSON.stringify(text)).toContain(response.statusCode);
      if (response.statusCode === 400) expectError(response, 400, 'INVALID_REQUEST');
    }
  });

  it('answers hostile query and path parameters with 200 or a well-formed 400', async () => {
    const usable = HOSTILE_STRINGS.filter(
      (text) => text.length > 0 && text.length < 100 && text !== LONE_SURROGATE,
    );
    for (const text of usable) {
      const encoded = encodeURIComponent(text);
      for (const url of [`/v1/probe/items/${encoded}`, `/v1/probe/items/x?limit=${encoded}`]) {
        const headers = { authorization };
        const response = await app.server.inject({ method: 'GET', url, headers });
        expect([200, 400], url).toContain(response.statusCode);
        if (response.statusCode === 400) expectError(response, 400, 'INVALID_REQUEST');
      }
    }
  });

  it('answers deeply nested JSON with a well-formed 400', async () => {
    const depth = 1_000;
    const payload = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expectError(await postHolders(payload), 400, 'INVALID_REQUEST');
  });

  it('answers invalid UTF-8 bytes in the body with 200 or a well-formed 400', async () => {
    const prefix = Buffer.from('{"accounts": [{"bankCode": "004", "accountNumber": "');
    const payload = Buffer.concat([prefix, Buffer.from([0xc0, 0xaf, 0xff]), Buffer.from('"}]}')]);
    const response = await postHolders(payload);
    expect([200, 400]).toContain(response.statusCode);
    if (response.statusCode === 400) expectError(response, 400, 'INVALID_REQUEST');
  });
});

describe('security', () => {
  it('returns 401 with an empty body for a valid request without a key', async () => {
    const payload = JSON.stringify({ accounts: accountsOf(1) });
    expectUnauthenticated(await postHolders(payload, { authorization: null }));
  });

  it('returns 401 with an empty body before looking at a malformed body', async () => {
    expectUnauthenticated(await postHolders('{"accounts": [', { authorization: null }));
  });

  it('returns 401 with an empty body before looking at an oversized body', async () => {
    const payload = bodyOfLength(BODY_LIMIT_BYTES * 2);
    expectUnauthenticated(await postHolders(payload, { authorization: null }));
  });

  it('returns 401 with an empty body before looking at the content type', async () => {
    const options = { authorization: null, contentType: 'text/plain' };
    expectUnauthenticated(await postHolders('hello', options));
  });

  it('returns 401 with an empty body for a bad key on a failing route', async () => {
    const response = await app.server.inject({
      method: 'GET',
      url: '/v1/probe/failures/plain-error',
      headers: { authorization: 'Basic Og==' },
    });
    expectUnauthenticated(response);
  });
});
