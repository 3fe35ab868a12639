// Requests that are not well-formed HTTP get the error body too: Node's parser
// refuses them before Fastify routes them (raw bytes in the URL, a body longer than its
// Content-Length, broken chunked framing, oversized headers), and src/platform/client-errors.ts
// answers 400 INVALID_REQUEST with a Trace-Id and closes the connection. fastify.inject skips
// the parser, so these go over a real socket, byte for byte.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { TRACE_ID_PATTERN } from '../helpers/http.ts';

// Above Node's default limit of 16 KiB for all headers together.
const OVERSIZED_HEADER_BYTES = 20_000;

let app: TestApp;
let port = 0;
let authorization = '';

beforeAll(async () => {
  app = await createTestApp();
  authorization = basicAuth((await app.createAccount()).keys.test);
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.server.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await app?.close();
});

// Sends the bytes and resolves with everything the server wrote before it closed the
// connection, which it does after an error and after a request with Connection: close.
function exchange(bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    // Written, not ended: a half-closed connection may be dropped before it is answered.
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

function request(startLine: Buffer | string, headers: string[], body = ''): Buffer {
  const head = ['Host: localhost', `Authorization: ${authorization}`, ...headers]
    .map((line) => `${line}\r\n`).join('');
  return Buffer.concat([Buffer.from(startLine), Buffer.from(`\r\n${head}\r\n${body}`)]);
}

function parse(response: string) {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((line) => {
    const colon = line.indexOf(':');
    return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
  }));
  return { statusLine, headers, body };
}

const getLine = (path: Buffer) =>
  Buffer.concat([Buffer.from('GET '), path, Buffer.from(' HTTP/1.1')]);

// Built when a test runs: the key is known only after beforeAll.
const CASES: [string, () => Buffer][] = [
  ['raw non-ASCII bytes in the path', () => request(getLine(Buffer.from([0xff, 0xfe])), [])],
  ['a NUL byte in the path', () => request(getLine(Buffer.from('/v1/a\u0000b', 'latin1')), [])],
  ['raw UTF-8 in the query',
    () => request(getLine(Buffer.from('/v1/businessProfiles?query=한글')), [])],
  ['a Content-Length that is not a number', () => request(
    'POST /v1/bankAccountHolders:inquire HTTP/1.1',
    ['Content-Type: application/json', 'Content-Length: 2x'], '{}')],
  ['broken chunked framing', () => request('POST /v1/bankAccountHolders:inquire HTTP/1.1',
    ['Content-Type: application/json', 'Transfer-Encoding: chunked'], 'zz\r\n')],
  ['headers over the size limit', () => request('GET /v1/points HTTP/1.1',
    [`X-Padding: ${'a'.repeat(OVERSIZED_HEADER_BYTES)}`])],
  ['a start line that is not HTTP', () => Buffer.from('HELLO\r\n\r\n')],
];

describe('requests that are not well-formed HTTP', () => {
  it.each(CASES)('answers %s with 400 INVALID_REQUEST in the error shape', async (_, bytes) => {
    const { statusLine, headers, body } = parse(await exchange(bytes()));
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['trace-id']).toMatch(TRACE_ID_PATTERN);
    expect(JSON.parse(body)).toEqual({
      code: 'INVALID_REQUEST',
      message: 'The request is not well-formed HTTP.',
      traceId: headers['trace-id'],
    });
  });

  it('still answers a well-formed request on a new connection', async () => {
    const { statusLine } = parse(await exchange(request('GET /v1/points HTTP/1.1',
      ['Connection: close'])));
    expect(statusLine).toBe('HTTP/1.1 200 OK');
  });
});
