import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { basicAuth } from '../../helpers/http.ts';
import { pollUntil } from '../../helpers/poll.ts';

// Requests and checks shared by the issuers API tests.

type Injector = { server: { inject(options: InjectOptions): Promise<LightMyRequestResponse> } };

export const VALID_NUMBER = '1234567891';
export const OTHER_VALID_NUMBER = '1048123454';

export function request(
  key: string,
  method: InjectOptions['method'],
  url: string,
  payload?: unknown,
): InjectOptions {
  const headers: Record<string, string> = { authorization: basicAuth(key) };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  const body = payload === undefined ? undefined
    : typeof payload === 'string' ? payload : JSON.stringify(payload);
  return { method, url, headers, ...(body === undefined ? {} : { payload: body }) };
}

export function issuerBody(overrides: Record<string, unknown> = {}) {
  return {
    identificationNumber: VALID_NUMBER,
    organizationName: '주식회사 이택스',
    representativeName: '홍길동',
    ...overrides,
  };
}

export async function createIssuer(
  app: Injector,
  key: string,
  overrides: Record<string, unknown> = {},
) {
  const response = await app.server.inject(request(key, 'POST', '/v1/issuers',
    issuerBody(overrides)));
  expect(response.statusCode).toBe(201);
  return response.json() as { issuerId: string; supplierKey: string };
}

export { expectError } from '../../helpers/errors.ts';

type History = { identifier: string; issuerId: string; occurredAt: string; code: string;
  message: string };

// Polls latestHistory until it shows the record with this identifier: 150 polls 200 ms apart,
// the spec's 30-second window; pg-boss polls every second, so a result normally shows within two.
const HISTORY_POLL = { attemptsMax: 150, intervalMs: 200 };

export async function waitForHistory(
  app: Injector,
  key: string,
  issuerId: string,
  identifier: string,
): Promise<History> {
  const latest = await pollUntil(async () => {
    const response = await app.server.inject(request(key, 'GET',
      `/v1/issuers/${issuerId}/certificates/latestHistory`));
    return response.statusCode === 200
      ? (response.json() as { latestHistory: History }).latestHistory : null;
  }, (history) => history?.identifier === identifier, HISTORY_POLL);
  expect(latest?.identifier, `no history record ${identifier}`).toBe(identifier);
  return latest!;
}

export function uploadBody(signCert: Buffer, signPri: Buffer, password: string) {
  return { signCert: signCert.toString('base64'), signPri: signPri.toString('base64'), password };
}

// A multipart/form-data body as a browser sends the hosted page's form.
export function multipartBody(parts: Array<{ name: string; filename?: string;
  content: Buffer | string }>) {
  const boundary = '----etaxTestBoundary7MA4YWxkTrZu0gW';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = part.filename === undefined
      ? `form-data; name="${part.name}"`
      : `form-data; name="${part.name}"; filename="${part.filename}"`;
    const type = part.filename === undefined ? '' : 'Content-Type: application/octet-stream\r\n';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
