// Hostile input to the routes outside /v1 — health checks, the OpenAPI document, the reference
// pages under /docs and the hosted certificate registration page — never finds a 5xx: hostile
// path segments (encoded dots and slashes, SQL, HTML, invalid percent-encoding), every method,
// credentials sent where none are needed, and forms the multipart parser cannot read. A valid
// registration link stays usable after every hostile form sent to it.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { HOSTILE_SEGMENTS } from '../helpers/hostile-requests.ts';

// The link's token is made in beforeAll; requests name it with this placeholder so that their
// number is known when the test is named.
const TOKEN = '{token}';
const REGISTRATION = '/certificate-registration';
const FIXED_PAGES = [
  '/healthz', '/readyz', '/openapi.json', '/docs', '/docs/', '/docs/json', '/docs/yaml',
  '/docs/static/index.html', '/docs/static/swagger-ui.css', '/docs/static/', '/',
  '/favicon.ico', `${REGISTRATION}/${TOKEN}`, REGISTRATION, `${REGISTRATION}/`,
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'] as const;
type Method = (typeof METHODS)[number];
// Credentials no page needs: a well-formed key issued to no one, and garbage.
const STRAY_CREDENTIALS = [basicAuth(`live_${'Q'.repeat(43)}`), 'Bearer x', 'Basic %%%'];

type PageRequest = { label: string; method: Method; url: string;
  headers?: Record<string, string>; payload?: string | Buffer };

const PASSWORD_PART = 'Content-Disposition: form-data; name="password"\r\n\r\nsecret-password';
// Bodies posted to a valid registration link: none may be accepted, none may break the page.
const FORMS: { label: string; type: string; payload: string | Buffer }[] = [
  { label: 'a form cut off in a field', type: 'multipart/form-data; boundary=b',
    payload: `--b\r\n${PASSWORD_PART}` },
  { label: 'no boundary parameter', type: 'multipart/form-data',
    payload: `--b\r\n${PASSWORD_PART}\r\n--b--\r\n` },
  { label: 'an empty boundary', type: 'multipart/form-data; boundary=', payload: '--\r\n' },
  { label: 'a boundary over 70 characters',
    type: `multipart/form-data; boundary=${'b'.repeat(200)}`,
    payload: `--${'b'.repeat(200)}\r\n${PASSWORD_PART}\r\n--${'b'.repeat(200)}--\r\n` },
  { label: 'a part header that never ends', type: 'multipart/form-data; boundary=b',
    payload: `--b\r\nContent-Disposition: form-data; name="${'x'.repeat(20_000)}` },
  { label: 'a part without Content-Disposition', type: 'multipart/form-data; boundary=b',
    payload: '--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n' },
  // Over the parser's 16 KiB part buffer in one chunk, such a part once stopped the parser
  // for good, and the form was never answered.
  { label: 'a part of 20 KiB without Content-Disposition', type: 'multipart/form-data; boundary=b',
    payload: `--b\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(20 * 1024)}\r\n--b--\r\n` },
  { label: 'binary noise', type: 'multipart/form-data; boundary=b',
    payload: Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 151) % 256)) },
  { label: 'an empty body', type: 'multipart/form-data; boundary=b', payload: '' },
  { label: 'only the closing boundary', type: 'multipart/form-data; boundary=b',
    payload: '--b--\r\n' },
  { label: 'a file field named like the password', type: 'multipart/form-data; boundary=b',
    payload: '--b\r\nContent-Disposition: form-data; name="password"; filename="p"\r\n\r\n' +
      'x\r\n--b--\r\n' },
  { label: 'a password over the limit', type: 'multipart/form-data; boundary=b',
    payload: `--b\r\nContent-Disposition: form-data; name="password"\r\n\r\n${
      'p'.repeat(100_000)}\r\n--b--\r\n` },
  { label: 'a thousand fields', type: 'multipart/form-data; boundary=b',
    payload: `${Array.from({ length: 1000 }, (_, index) =>
      `--b\r\nContent-Disposition: form-data; name="f${index}"\r\n\r\nx\r\n`).join('')}--b--\r\n` },
  { label: 'an invalid UTF-8 field name', type: 'multipart/form-data; boundary=b',
    payload: Buffer.concat([Buffer.from('--b\r\nContent-Disposition: form-data; name="'),
      Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from('"\r\n\r\nx\r\n--b--\r\n')]) },
  { label: 'JSON', type: 'application/json', payload: '{"password":"x"}' },
  { label: 'broken JSON', type: 'application/json', payload: '{"password":' },
  { label: 'a form-encoded body', type: 'application/x-www-form-urlencoded',
    payload: 'password=x' },
  { label: 'text', type: 'text/plain', payload: 'x' },
  { label: 'an oversized body', type: 'multipart/form-data; boundary=b',
    payload: `--b\r\n${PASSWORD_PART}${'p'.repeat(1_100_000)}\r\n--b--\r\n` },
];

function pageRequests(): PageRequest[] {
  const requests: PageRequest[] = [];
  for (const url of FIXED_PAGES) {
    for (const method of METHODS) requests.push({ label: `${method} ${url}`, method, url });
    for (const authorization of STRAY_CREDENTIALS) {
      requests.push({ label: `GET ${url} with ${authorization.slice(0, 8)}`, method: 'GET', url,
        headers: { authorization } });
    }
  }
  for (const segment of HOSTILE_SEGMENTS) {
    for (const url of [`/docs/static/${segment}`, `/docs/static/${segment}/index.html`,
      `/docs/${segment}`, `${REGISTRATION}/${segment}`, `/${segment}`]) {
      requests.push({ label: `GET ${url.slice(0, 60)}`, method: 'GET', url });
    }
    requests.push({ label: `POST ${REGISTRATION}/${segment.slice(0, 40)}`, method: 'POST',
      url: `${REGISTRATION}/${segment}`, headers: { 'content-type': FORMS[0]!.type },
      payload: FORMS[0]!.payload });
  }
  for (const url of [`${REGISTRATION}/${TOKEN}?${'a=1&'.repeat(1000)}`,
    `${REGISTRATION}/${TOKEN}?token=%00`, '/docs/static/index.html?url=https://example.com']) {
    requests.push({ label: `GET ${url.slice(0, 60)}`, method: 'GET', url });
  }
  for (const form of FORMS) {
    requests.push({ label: `POST ${form.label} to a valid link`, method: 'POST',
      url: `${REGISTRATION}/${TOKEN}`, headers: { 'content-type': form.type },
      payload: form.payload });
  }
  return requests;
}

const REQUESTS = pageRequests();

let app: TestApp;
let token = '';

beforeAll(async () => {
  app = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://etax.example.com' } });
  const { keys } = await app.createAccount();
  const authorization = basicAuth(keys.test);
  const created = await app.server.inject({ method: 'POST', url: '/v1/issuers',
    headers: { authorization }, payload: { identificationNumber: '1234567800',
      organizationName: '주식회사 페이지', representativeName: '홍길동' } });
  expect(created.statusCode, created.body).toBe(201);
  const { issuerId } = created.json() as { issuerId: string };
  const link = await app.server.inject({ method: 'GET',
    url: `/v1/issuers/${issuerId}/certificates/url`, headers: { authorization } });
  expect(link.statusCode, link.body).toBe(200);
  token = new URL((link.json() as { url: string }).url).pathname.split('/').pop()!;
});
afterAll(async () => {
  await app?.close();
});

function send(request: PageRequest): Promise<LightMyRequestResponse> {
  return app.server.inject({ method: request.method, url: request.url.replace(TOKEN, token),
    headers: request.headers, payload: request.payload });
}

describe('hostile input to the routes outside /v1', () => {
  it(`answers all ${REQUESTS.length} hostile requests without a 5xx, and the link stays usable`,
    async () => {
      const failures: string[] = [];
      for (const request of REQUESTS) {
        const response = await send(request);
        if (response.statusCode >= 500) {
          failures.push(`${request.label}: ${response.statusCode} ${response.body.slice(0, 80)}`);
        }
      }
      expect(failures).toEqual([]);
      const page = await app.server.inject({ method: 'GET', url: `${REGISTRATION}/${token}` });
      expect(page.statusCode).toBe(200);
    });
});
