// Every /v1 request authenticates with `Authorization: Basic base64(API_KEY + ":")`, and
// every failure is 401 with an empty body. This file runs the whole matrix of malformed and
// refused credentials against GET /v1/points, then checks how fast a revocation takes effect:
// at once without a cache, and within AUTH_CACHE_TTL_MS in a process that cached the key.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/platform/accounts/keys.ts';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { TRACE_ID_PATTERN } from '../helpers/http.ts';

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

async function getPoints(app: TestApp, authorization?: string) {
  return app.server.inject({
    method: 'GET',
    url: '/v1/points',
    headers: authorization === undefined ? {} : { authorization },
  });
}

function expectRefused(response: LightMyRequestResponse) {
  expect(response.statusCode).toBe(401);
  expect(response.body).toBe('');
  expect(response.headers['content-type']).toBeUndefined();
  expect(response.headers['trace-id']).toMatch(TRACE_ID_PATTERN);
}

describe('authentication of /v1 requests', () => {
  let app: TestApp;
  let keys: { test: string; live: string };

  beforeAll(async () => {
    app = await createTestApp();
    keys = (await app.createAccount()).keys;
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('happy', () => {
    it('returns 200 for a valid test key', async () => {
      const response = await getPoints(app, basicAuth(keys.test));
      expect(response.statusCode).toBe(200);
      expect(response.headers['trace-id']).toMatch(TRACE_ID_PATTERN);
    });

    it('returns 200 for a valid live key', async () => {
      const response = await getPoints(app, basicAuth(keys.live));
      expect(response.statusCode).toBe(200);
    });

    it('returns 200 when the scheme is written in lower case', async () => {
      const response = await getPoints(app, `basic ${base64(`${keys.test}:`)}`);
      expect(response.statusCode).toBe(200);
    });

    it('returns 200 when the scheme is written in upper case', async () => {
      const response = await getPoints(app, `BASIC ${base64(`${keys.live}:`)}`);
      expect(response.statusCode).toBe(200);
    });
  });

  describe('security', () => {
    it('returns 401 with an empty body when the Authorization header is missing', async () => {
      expectRefused(await getPoints(app));
    });

    it('returns 401 with an empty body for the Bearer scheme with a valid key', async () => {
      expectRefused(await getPoints(app, `Bearer ${keys.test}`));
    });

    it('returns 401 with an empty body when the key is sent unencoded after Basic', async () => {
      expectRefused(await getPoints(app, `Basic ${keys.test}:`));
    });

    it('returns 401 with an empty body when the credentials are not valid base64', async () => {
      expectRefused(await getPoints(app, 'Basic !!!not*base64%%'));
      expectRefused(await getPoints(app, `Basic ${base64(`${keys.test}:`).slice(1)}`));
    });

    it('returns 401 with an empty body when the decoded credentials have no colon', async () => {
      expectRefused(await getPoints(app, `Basic ${base64(keys.test)}`));
    });

    it('returns 401 with an empty body when the password is not empty', async () => {
      expectRefused(await getPoints(app, `Basic ${base64(`${keys.test}:secret`)}`));
      expectRefused(await getPoints(app, `Basic ${base64(`${keys.test}::`)}`));
    });

    it('returns 401 with an empty body when the key is sent as the password', async () => {
      expectRefused(await getPoints(app, `Basic ${base64(`:${keys.test}`)}`));
    });

    it('returns 401 with an empty body for a well-formed key that was never issued', async () => {
      expectRefused(await getPoints(app, basicAuth(generateApiKey('test'))));
      expectRefused(await getPoints(app, basicAuth(generateApiKey('live'))));
    });

    it('returns 401 with an empty body for a revoked key; the live key still works', async () => {
      const account = await app.createAccount();
      expect(await app.platform.accounts.revokeKey(account.keys.test)).toBe(true);
      expectRefused(await getPoints(app, basicAuth(account.keys.test)));
      expect((await getPoints(app, basicAuth(account.keys.live))).statusCode).toBe(200);
    });

    it('returns 401 with an empty body when the key has the wrong prefix', async () => {
      const body = keys.test.slice('test_'.length);
      expectRefused(await getPoints(app, basicAuth(`prod_${body}`)));
      expectRefused(await getPoints(app, basicAuth(`TEST_${body}`)));
      expectRefused(await getPoints(app, basicAuth(body)));
    });

    it('returns 401 with an empty body when a test key is presented as a live key', async () => {
      const body = keys.test.slice('test_'.length);
      expectRefused(await getPoints(app, basicAuth(`live_${body}`)));
    });

    it('returns 401 with an empty body when the key is one character too long', async () => {
      expectRefused(await getPoints(app, basicAuth(`${keys.test}A`)));
    });

    it('returns 401 with an empty body for an overlong header', async () => {
      expectRefused(await getPoints(app, `Basic ${'A'.repeat(10_000)}`));
      expectRefused(await getPoints(app, basicAuth(`${keys.test}${'A'.repeat(500)}`)));
      expectRefused(await getPoints(app, `Basic ${base64(`${keys.test}:`)}${'='.repeat(4_000)}`));
    });

    it('returns 401 with an empty body for the scheme alone', async () => {
      expectRefused(await getPoints(app, 'Basic'));
      expectRefused(await getPoints(app, 'Basic '));
      expectRefused(await getPoints(app, ''));
    });

    it('returns 401 with an empty body for unicode garbage', async () => {
      expectRefused(await getPoints(app, 'Basic 키🙂ÿ\u200b'));
      expectRefused(await getPoints(app, `Basic ${base64('키🙂:')}`));
      expectRefused(await getPoints(app, basicAuth(`test_${'키'.repeat(43)}`)));
      expectRefused(await getPoints(app, `Basic ${base64(`${keys.test}\u0000:`)}`));
    });

    it('returns 401 with an empty body for SQL-like text as the key', async () => {
      expectRefused(await getPoints(app, basicAuth("test_' or '1'='1")));
    });
  });
});

describe('revocation without an authentication cache (AUTH_CACHE_TTL_MS=0)', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp({ env: { AUTH_CACHE_TTL_MS: '0' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('returns 401 with an empty body on the first request after the key is revoked', async () => {
    const { keys } = await app.createAccount();
    expect((await getPoints(app, basicAuth(keys.test))).statusCode).toBe(200);
    expect(await app.platform.accounts.revokeKey(keys.test)).toBe(true);
    expectRefused(await getPoints(app, basicAuth(keys.test)));
    expect((await getPoints(app, basicAuth(keys.live))).statusCode).toBe(200);
  });
});

describe('revocation by another process with a cached key (AUTH_CACHE_TTL_MS=60000)', () => {
  // The cache's entries expire by the app's clock, which the test moves instead of waiting.
  const TTL_MS = 60_000;
  const clock = { offsetMs: 0 };
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp({ env: { AUTH_CACHE_TTL_MS: String(TTL_MS) },
      now: () => new Date(Date.now() + clock.offsetMs) });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('accepts the cached key until the cache TTL ends and refuses it afterwards', async () => {
    const { keys } = await app.createAccount();
    expect((await getPoints(app, basicAuth(keys.test))).statusCode).toBe(200);
    // Revoking through the service leaves this server's cache alone, as a revocation made by
    // another process (the CLI, another server) would.
    expect(await app.platform.accounts.revokeKey(keys.test)).toBe(true);
    expect((await getPoints(app, basicAuth(keys.test))).statusCode).toBe(200);

    clock.offsetMs += TTL_MS + 1;
    expectRefused(await getPoints(app, basicAuth(keys.test)));
    expectRefused(await getPoints(app, basicAuth(keys.test)));
    expect((await getPoints(app, basicAuth(keys.live))).statusCode).toBe(200);
  });
});
