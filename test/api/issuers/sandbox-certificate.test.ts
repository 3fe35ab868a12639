// The sandbox joint certificate from `etax sandbox certificate`, registered as an integrator
// would: with a test key it is REGISTERED through both ways in (the JSON upload and the
// hosted page's multipart form); with a live key both refuse it as SANDBOX_CERTIFICATE, and
// the record's message and the page say why. The files are the CLI's own output, read back
// from its folder.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { runEtaxJson } from '../../helpers/cli.ts';
import {
  createIssuer,
  multipartBody,
  request,
  uploadBody,
  waitForHistory,
} from './helpers.ts';

const BUSINESS_NUMBER = '1248100998';

let app: TestApp;
let folder: string;
let files: { signCert: Buffer; signPri: Buffer; password: string };

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'etxs-'));
  const out = path.join(folder, 'npki');
  const printed = await runEtaxJson({}, ['sandbox', 'certificate',
    '--business-number', BUSINESS_NUMBER, '--out', out]);
  files = { signCert: readFileSync(path.join(out, 'signCert.der')),
    signPri: readFileSync(path.join(out, 'signPri.key')), password: String(printed.password) };
  app = await createTestApp({ jobs: true });
});
afterAll(async () => {
  await app?.close();
  rmSync(folder, { recursive: true, force: true });
});

async function newIssuer(environment: 'test' | 'live') {
  const { keys } = await app.createAccount();
  const key = keys[environment];
  const { issuerId } = await createIssuer(app, key, { identificationNumber: BUSINESS_NUMBER,
    organizationName: '삼성전자 주식회사' });
  return { key, issuerId };
}

async function registerByApi(environment: 'test' | 'live') {
  const { key, issuerId } = await newIssuer(environment);
  const response = await app.server.inject(request(key, 'POST',
    `/v1/issuers/${issuerId}/certificates`,
    uploadBody(files.signCert, files.signPri, files.password)));
  expect(response.statusCode, response.body).toBe(202);
  const { identifier } = response.json() as { identifier: string };
  return waitForHistory(app, key, issuerId, identifier);
}

async function registerOnPage(environment: 'test' | 'live') {
  const { key, issuerId } = await newIssuer(environment);
  await app.server.inject(request(key, 'PUT', '/v1/certificateRegistrationSettings',
    { certificateRedirectUrl: 'https://app.example.com/done' }));
  const link = await app.server.inject(request(key, 'GET',
    `/v1/issuers/${issuerId}/certificates/url`));
  const { url } = link.json() as { url: string };
  const response = await app.server.inject({ method: 'POST', url: new URL(url).pathname,
    ...multipartBody([
      { name: 'signCert', filename: 'signCert.der', content: files.signCert },
      { name: 'signPri', filename: 'signPri.key', content: files.signPri },
      { name: 'password', content: files.password },
    ]) });
  // The page records the attempt before it answers.
  const latest = await app.server.inject(request(key, 'GET',
    `/v1/issuers/${issuerId}/certificates/latestHistory`));
  const { code } = (latest.json() as { latestHistory: { code: string } }).latestHistory;
  return { status: response.statusCode, body: response.body, code };
}

describe.concurrent('a sandbox certificate', () => {
  it('registers with a test key by API', async () => {
    expect((await registerByApi('test')).code).toBe('REGISTERED');
  });

  it('registers with a test key on the hosted page', async () => {
    const attempt = await registerOnPage('test');
    expect(attempt.status).toBe(303);
    expect(attempt.code).toBe('REGISTERED');
  });

  it('is refused with a live key by API, and the message says why', async () => {
    const record = await registerByApi('live');
    expect(record.code).toBe('SANDBOX_CERTIFICATE');
    expect(record.message).toMatch(/etax Sandbox CA.*test key only/);
  });

  it('is refused with a live key on the hosted page, which says why', async () => {
    const attempt = await registerOnPage('live');
    expect(attempt.status).toBe(422);
    expect(attempt.code).toBe('SANDBOX_CERTIFICATE');
    expect(attempt.body).toContain('A sandbox certificate');
  });
});
