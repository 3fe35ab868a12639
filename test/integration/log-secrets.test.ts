// A server's log never contains a secret, even at LOG_LEVEL=trace and even when a client puts
// one where it does not belong. Method: a real `etax serve` with trace logging receives
// successful and failing requests: good keys, unknown keys, keys with a password or another
// scheme, malformed credentials, keys pasted into bodies, paths and queries, bodies that are
// too large or of the wrong type, a failing upstream (logged as an error), and webhook
// endpoints whose signing secrets are shown once. Its whole stdout and stderr, read after an
// orderly stop, must contain none of the keys, Authorization values or signing secrets in any
// encoding (test/helpers/secrets.ts), and nothing else shaped like an API key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import 'reflect-metadata';
import {
  corporateSubject,
  createTestCa,
  issueCertificate,
  signPriKey,
} from '../areas/issuers/certificate-fixtures.ts';
import { basicAuth } from '../helpers/app.ts';
import { createAccountWithCli, type CreatedAccount } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { pollUntil } from '../helpers/poll.ts';
import { findSecrets, type Secret } from '../helpers/secrets.ts';
import {
  freePort,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../helpers/server-process.ts';

const READY = { attemptsMax: 240, pollIntervalMs: 250 };
const EXIT_WAIT_MS = 30_000;
// A well-formed key issued to no one.
const UNKNOWN_KEY = `live_${'Q'.repeat(43)}`;
// The sandbox profile whose source fails: logged as an error with its trace id.
const FAILING_PROFILE = '999-99-00058';
// Over the 1 MiB body limit.
const OVERSIZED_BODY_BYTES = 1_100_000;

let database: TestDatabase;
let server: ServerProcess;
let env: NodeJS.ProcessEnv;
let account: CreatedAccount;
let other: CreatedAccount;
let output = '';
const secrets: Secret[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  // The webhook endpoint it creates is on loopback.
  env = { ...process.env, ...database.env, LOG_LEVEL: 'trace',
    WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true' };
  // The database is a copy of the run's migrated template (test/helpers/database.ts), not a
  // new one, so the server never prints a first-start sandbox key.
  server = startServerProcess({ port: await freePort(), env });
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  server.child.stdout!.on('data', collect);
  server.child.stderr!.on('data', collect);
  await waitUntilReady(server, READY);
  // With the embedded database the CLI reaches it through the running server's socket.
  account = await createAccountWithCli(env);
  other = await createAccountWithCli(env);
});
afterAll(async () => {
  if (server) await stopServerProcess(server, { exitWaitMs: EXIT_WAIT_MS });
  await database?.drop();
});

async function send(path: string, init: { authorization?: string; method?: string;
  type?: string; body?: string | FormData } = {}) {
  const headers: Record<string, string> = {};
  if (init.authorization !== undefined) {
    headers.authorization = init.authorization;
    secrets.push({ label: `Authorization "${init.authorization.slice(0, 12)}…"`,
      value: init.authorization.slice(init.authorization.indexOf(' ') + 1) });
  }
  if (init.type !== undefined) headers['content-type'] = init.type;
  const response = await fetch(`${server.baseUrl}${path}`,
    { method: init.method ?? 'GET', headers, body: init.body });
  return { status: response.status, text: await response.text() };
}

async function sendAuthenticationFailures() {
  const key = account.keys.test;
  const failures = [
    basicAuth(UNKNOWN_KEY),
    `Basic ${Buffer.from(`${key}:password`).toString('base64')}`,
    `Bearer ${key}`,
    `basic ${Buffer.from(`${key}:`).toString('base64')}x`,
    `Basic ${Buffer.from(`${key}:${key}:${key}`).toString('base64')}`,
    key,
  ];
  for (const authorization of failures) {
    expect((await send('/v1/points', { authorization })).status).toBe(401);
  }
}

async function sendKeysWhereTheyDoNotBelong() {
  const key = account.keys.live;
  const authorization = basicAuth(account.keys.test);
  const json = 'application/json';
  const inBody = JSON.stringify({ bankCode: key, accountNumber: key });
  expect((await send('/v1/bankAccountHolders:inquire',
    { authorization, method: 'POST', type: json, body: inBody })).status).toBe(400);
  expect((await send(`/v1/businessProfiles/${key}`, { authorization })).status).toBe(400);
  expect((await send(`/v1/businessProfiles?query=${key}&limit=1`, { authorization })).status)
    .toBe(200);
  expect((await send(`/v1/no-such-route/${key}`, { authorization })).status).toBe(404);
  expect((await send('/v1/bankAccountHolders:inquire', { authorization, method: 'POST',
    type: json, body: `{"bankCode":"${key}"` })).status).toBe(400);
  expect((await send('/v1/bankAccountHolders:inquire', { authorization, method: 'POST',
    type: 'text/plain', body: key })).status).toBe(415);
  expect((await send('/v1/bankAccountHolders:inquire', { authorization, method: 'POST',
    type: json, body: `"${key}${'a'.repeat(OVERSIZED_BODY_BYTES)}"` })).status).toBe(413);
}

async function manageWebhookEndpoints() {
  const authorization = basicAuth(account.keys.test);
  const created = await send('/v1/webhookEndpoints', { authorization, method: 'POST',
    type: 'application/json',
    body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', events: [
      'TAX_INVOICE_ISSUANCE_SUCCESS'] }) });
  expect(created.status).toBe(201);
  const { id, secret } = JSON.parse(created.text) as { id: string; secret: string };
  secrets.push({ label: 'webhook signing secret', value: secret });
  const rotated = await send(`/v1/webhookEndpoints/${id}:rotateSecret`, { authorization,
    method: 'POST', type: 'application/json', body: '{"overlapSeconds":0}' });
  expect(rotated.status).toBe(200);
  secrets.push({ label: 'rotated webhook signing secret',
    value: (JSON.parse(rotated.text) as { secret: string }).secret });
}

async function useKeys() {
  for (const key of [account.keys.test, account.keys.live, other.keys.test, other.keys.live,
    UNKNOWN_KEY]) {
    secrets.push({ label: `API key ${key.slice(0, 5)}`, value: key });
  }
  expect((await send('/v1/points', { authorization: basicAuth(account.keys.test) })).status)
    .toBe(200);
  expect((await send('/v1/points', { authorization: basicAuth(other.keys.live) })).status)
    .toBe(200);
}

// A joint certificate upload: its password, the encrypted key file and the clear private key
// must not appear, whether the upload is accepted (and checked by the job in the server) or
// refused by validation.
async function registerCertificates() {
  const authorization = basicAuth(account.keys.test);
  const json = 'application/json';
  const created = await send('/v1/issuers', { authorization, method: 'POST', type: json,
    body: JSON.stringify({ identificationNumber: '1234567891', organizationName: '주식회사 로그',
      representativeName: '홍길동' }) });
  expect(created.status).toBe(201);
  const { issuerId } = JSON.parse(created.text) as { issuerId: string };
  const ca = await createTestCa();
  const certificate = await issueCertificate(ca, {
    subject: corporateSubject('로그', '1234567891'),
  });
  const password = 'Log-Secret-Password-7791';
  const signPri = signPriKey(certificate.pkcs8, password, 'pbes2');
  secrets.push({ label: 'certificate password', value: password },
    { label: 'signPri.key', value: signPri.toString('base64') },
    { label: 'private key', value: certificate.pkcs8.toString('base64') });
  const upload = { signCert: certificate.certificateDer.toString('base64'),
    signPri: signPri.toString('base64') };
  const url = `/v1/issuers/${issuerId}/certificates`;
  for (const body of [{ ...upload, password }, { ...upload, password: 'wrong' }]) {
    expect((await send(url, { authorization, method: 'POST', type: json,
      body: JSON.stringify(body) })).status).toBe(202);
  }
  expect((await send(url, { authorization, method: 'POST', type: json,
    body: JSON.stringify({ ...upload, password, extra: password }) })).status).toBe(400);
  // The job in the server checks both uploads; its outcome is logged at debug level at most.
  await eventually(async () => {
    const history = await send(`${url}/latestHistory`, { authorization });
    return history.status === 200;
  });
}

// The pages outside /v1 need no key; a client that sends one anyway (a proxy adding it to
// every request, say) must not find it in the log, nor the password and key file posted to the
// hosted registration page, nor what a malformed form carried.
async function useHostedPages() {
  const authorization = basicAuth(account.keys.live);
  const json = 'application/json';
  const created = await send('/v1/issuers', { authorization, method: 'POST', type: json,
    body: JSON.stringify({ identificationNumber: '1234567800', organizationName: '주식회사 페이지',
      representativeName: '홍길동' }) });
  expect(created.status).toBe(201);
  const { issuerId } = JSON.parse(created.text) as { issuerId: string };
  const link = await send(`/v1/issuers/${issuerId}/certificates/url`, { authorization });
  expect(link.status).toBe(200);
  const pagePath = new URL((JSON.parse(link.text) as { url: string }).url).pathname;
  expect((await send(pagePath, { authorization })).status).toBe(200);

  const ca = await createTestCa();
  const certificate = await issueCertificate(ca, {
    subject: corporateSubject('페이지', '1234567800'),
  });
  const password = 'Page-Secret-Password-5512';
  const signPri = signPriKey(certificate.pkcs8, password, 'pbes2');
  secrets.push({ label: 'hosted page password', value: password },
    { label: 'hosted page signPri.key', value: signPri.toString('base64') },
    { label: 'hosted page private key', value: certificate.pkcs8.toString('base64') });
  const form = new FormData();
  form.set('password', password);
  form.set('signCert', new Blob([new Uint8Array(certificate.certificateDer)]), 'signCert.der');
  form.set('signPri', new Blob([new Uint8Array(signPri)]), 'signPri.key');
  expect((await send(pagePath, { authorization, method: 'POST', body: form })).status)
    .toBeLessThan(400);
  // A form cut off in the middle of its password field.
  const boundary = 'etaxboundary';
  const truncated = `--${boundary}\r\nContent-Disposition: form-data; name="password"\r\n\r\n` +
    password;
  expect((await send(pagePath, { authorization, method: 'POST',
    type: `multipart/form-data; boundary=${boundary}`, body: truncated })).status).toBe(400);
  for (const path of ['/healthz', '/readyz', '/docs/', '/docs/json', '/openapi.json']) {
    expect((await send(path, { authorization })).status).toBeLessThan(500);
  }
}

// Up to 150 checks 200 ms apart: the registration job polls every second.
async function eventually(check: () => Promise<boolean>) {
  const done = await pollUntil(check, (passed) => passed, { attemptsMax: 150, intervalMs: 200 });
  expect(done, 'the check never passed').toBe(true);
}

// Each flow makes requests that carry or produce secrets and adds them to `secrets`. An area
// with secrets of its own adds one flow.
const SECRET_FLOWS = [
  useKeys, sendAuthenticationFailures, sendKeysWhereTheyDoNotBelong, manageWebhookEndpoints,
  registerCertificates, useHostedPages,
];

describe('logging requests at trace level, the most detailed', () => {
  it('writes no API key, Authorization value or signing secret to the log', async () => {
    for (const flow of SECRET_FLOWS) await flow();
    const failing = await send(`/v1/businessProfiles/${FAILING_PROFILE}`,
      { authorization: basicAuth(account.keys.test) });
    expect(failing.status).toBe(503);
    const { traceId } = JSON.parse(failing.text) as { traceId: string };

    expect(await stopServerProcess(server, { exitWaitMs: EXIT_WAIT_MS })).toBe(0);
    // The log was written and read: the failure is there under its trace id.
    expect(output).toContain(traceId);
    expect(findSecrets(output, secrets)).toEqual([]);
  });
});
