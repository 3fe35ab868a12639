// Every upload gets an answer or a closed connection within a bound, over a real socket (inject
// never has a socket to hang): a part without Content-Disposition or with it past the header
// lines the parser reads, each in a body over the parser's 16 KiB part buffer, is answered 400;
// a body that stops arriving is answered 408 and closed after REQUEST_RECEIVE_TIMEOUT_MS
// (docs/operations.md § Time limits).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';

const VERIFY_PATH = '/v1/businessRegistrationCertificates:verify';
const BOUNDARY = 'etaxUnansweredBoundary';
const RECEIVE_TIMEOUT_MS = 1_000;
// Far more than any of these needs (the 408 comes at about 1.1 × the receive timeout), far less
// than forever.
const ANSWER_BOUND_MS = 15_000;

let app: TestApp;
let port = 0;
let key = '';

beforeAll(async () => {
  app = await createTestApp({ env: { REQUEST_RECEIVE_TIMEOUT_MS: String(RECEIVE_TIMEOUT_MS) } });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.server.address() as net.AddressInfo).port;
  key = (await app.createAccount()).keys.test;
});
afterAll(async () => {
  await app?.close();
});

type Outcome = { status: number | null; response: string; closed: boolean };

// Writes `bytes` on a new connection and reads until the server closes it or ANSWER_BOUND_MS
// has passed.
function exchange(bytes: Buffer): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let response = '';
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/u.exec(response)?.[1];
      resolve({ status: status === undefined ? null : Number(status), response, closed });
    };
    const timer = setTimeout(() => finish(false), ANSWER_BOUND_MS);
    socket.on('data', (chunk) => {
      response += chunk.toString('utf8');
    });
    socket.on('close', () => finish(true));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

// An upload of `body` whose Content-Length declares `missing` bytes more than are sent.
function upload(body: Buffer, missing = 0): Promise<Outcome> {
  return exchange(Buffer.concat([Buffer.from(`POST ${VERIFY_PATH} HTTP/1.1\r\n` +
    `Host: 127.0.0.1\r\nAuthorization: ${basicAuth(key)}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
    `Content-Length: ${body.length + missing}\r\nConnection: close\r\n\r\n`), body]));
}

// One part with the given header lines and 20 KiB of content.
function formWithPart(headerLines: string[]): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\n${headerLines.map((line) => `${line}\r\n`).join('')}\r\n`),
    Buffer.alloc(20 * 1024, '%'),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

function errorCodeOf(outcome: Outcome): string {
  const body = outcome.response.slice(outcome.response.indexOf('\r\n\r\n') + 4);
  return (JSON.parse(body) as { code: string }).code;
}

describe('an upload the multipart parser skips a part of', () => {
  it('is answered 400 when its part has no Content-Disposition', async () => {
    const outcome = await upload(formWithPart(['Content-Type: application/pdf']));
    expect(outcome.status, outcome.response).toBe(400);
    expect(errorCodeOf(outcome)).toBe('INVALID_REQUEST');
  });

  it('is answered 400 when Content-Disposition comes after more header lines than are read',
    async () => {
    const filler = Array.from({ length: 25 }, (_, index) => `X-Filler-${index}: y`);
    const outcome = await upload(formWithPart([...filler,
      'Content-Disposition: form-data; name="file"; filename="c.pdf"']));
    expect(outcome.status, outcome.response).toBe(400);
    expect(errorCodeOf(outcome)).toBe('INVALID_REQUEST');
  });
});

describe('an upload that stops arriving', () => {
  it('is answered 408 and closed after the receive timeout', async () => {
    const form = formWithPart(['Content-Disposition: form-data; name="file"; filename="c.pdf"',
      'Content-Type: application/pdf']);
    const outcome = await upload(form.subarray(0, 1_000), form.length - 1_000);
    expect(outcome.status, outcome.response).toBe(408);
    expect(outcome.closed).toBe(true);
  });

  it('is answered 408 when even its headers never end', async () => {
    const outcome = await exchange(Buffer.from(`POST ${VERIFY_PATH} HTTP/1.1\r\n` +
      'Host: 127.0.0.1\r\n'));
    expect(outcome.status, outcome.response).toBe(408);
    expect(outcome.closed).toBe(true);
  });
});
