// The gateway transmitter of live keys speaks the JSON contract written in gateway.ts to a fake
// gateway on 127.0.0.1: ACCEPTED with a 24-digit approval number and REJECTED with a code and a
// message map to their kinds, and everything outside the contract (another status, a malformed,
// incomplete or oversized body, a slow answer, a broken or refused connection) is `unavailable`,
// never an exception, so the transmission job retries it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGatewayTransmitter,
  parseTransmissionAnswer,
} from '../../../src/upstream/tax-invoices/gateway.ts';
import type { TransmissionRequest } from '../../../src/upstream/tax-invoices/index.ts';
import { sendJson, startFakeServer, type FakeServer } from '../../helpers/fake-server.ts';
import { pollUntil } from '../../helpers/poll.ts';

// 'hang' never answers; 'stall' sends the headers and part of the body, then stops; 'reset'
// drops the connection without an answer.
type Reply = { status: number; body: string } | 'hang' | 'stall' | 'reset';

// The fake gateway answers by issuance key; it records every request it receives.
const replies = new Map<string, Reply>();
const received: Array<{ method?: string; url?: string; contentType?: string; body: unknown }> = [];
// Issuance keys whose connection the transmitter closed before the gateway answered.
const abandoned = new Set<string>();
let server: FakeServer;
let origin: string;

function answer(response: http.ServerResponse, reply: Reply) {
  if (reply === 'hang') return;
  if (reply === 'reset') {
    response.socket?.destroy();
    return;
  }
  if (reply === 'stall') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"result":"ACCEPTED",');
    return;
  }
  sendJson(response, reply.status, reply.body);
}

beforeAll(async () => {
  server = await startFakeServer((request, response) => {
    const body = JSON.parse(request.text) as TransmissionRequest;
    received.push({ method: request.method, url: request.url,
      contentType: request.headers['content-type'], body });
    response.once('close', () => {
      if (!response.writableEnded) abandoned.add(body.issuanceKey);
    });
    answer(response, replies.get(body.issuanceKey) ?? { status: 500, body: 'no reply set' });
  });
  origin = server.origin;
});
afterAll(async () => {
  await server?.close();
});

const APPROVAL_NUMBER = '202511284100000000001234';

function transmission(issuanceKey: string, approvalNumber = APPROVAL_NUMBER):
  TransmissionRequest {
  return {
    issuanceKey,
    writeDate: '2025-11-28',
    supplierNumber: '1234567891',
    recipientNumber: '2208162517',
    approvalNumber,
    signedDocument: '<TaxInvoice>signed standard XML</TaxInvoice>',
    signature: Buffer.from('signature bytes').toString('base64'),
    certificate: Buffer.from('certificate bytes').toString('base64'),
  };
}

let transmissionCount = 0;

// Transmits a new document whose gateway answer is `reply`.
function transmit(reply: Reply, options: { timeoutMs?: number; gatewayUrl?: string;
  signal?: AbortSignal; approvalNumber?: string } = {}) {
  transmissionCount += 1;
  const issuanceKey = `txi_gateway_${transmissionCount}`;
  replies.set(issuanceKey, reply);
  const transmitter = createGatewayTransmitter({
    gatewayUrl: options.gatewayUrl ?? `${origin}/nts`,
    timeoutMs: options.timeoutMs ?? 2_000,
  });
  const signal = options.signal ?? AbortSignal.timeout(5_000);
  return transmitter.transmit(transmission(issuanceKey, options.approvalNumber), signal);
}

const ok = (body: unknown) => ({ status: 200, body: JSON.stringify(body) });
const accepted = ok({ result: 'ACCEPTED', ntsTransactionId: APPROVAL_NUMBER });

describe('the gateway transmitter', () => {
  it('posts every field of the request as JSON to {TAX_INVOICE_GATEWAY_URL}/taxInvoices:transmit',
    async () => {
      await transmit(accepted);
      const last = received.at(-1)!;
      expect(last).toEqual({
        method: 'POST',
        url: '/nts/taxInvoices:transmit',
        contentType: 'application/json',
        body: transmission(`txi_gateway_${transmissionCount}`),
      });
      expect(Object.keys(last.body as object).sort()).toEqual(['certificate', 'issuanceKey',
        'recipientNumber', 'signature', 'signedDocument', 'supplierNumber', 'writeDate',
        'approvalNumber'].sort());
    });

  it.each([
    ['/nts/', '/nts/taxInvoices:transmit'],
    ['/nts///', '/nts/taxInvoices:transmit'],
    ['/', '/taxInvoices:transmit'],
    ['', '/taxInvoices:transmit'],
  ])('strips the trailing slashes of a gateway URL ending in "%s"', async (path, target) => {
    const result = await transmit(accepted, { gatewayUrl: `${origin}${path}` });
    expect(received.at(-1)!.url).toBe(target);
    expect(result).toEqual({ kind: 'accepted', ntsTransactionId: APPROVAL_NUMBER });
  });

  it('maps ACCEPTED with the number sent to accepted, letters in the serial included',
    async () => {
      expect(await transmit(accepted))
        .toEqual({ kind: 'accepted', ntsTransactionId: APPROVAL_NUMBER });
      for (const number of ['2025112841000008a1b2c3d4', '2025112841000008uwh00005']) {
        expect(await transmit(ok({ result: 'ACCEPTED', ntsTransactionId: number }),
          { approvalNumber: number })).toEqual({ kind: 'accepted', ntsTransactionId: number });
      }
    });

  it('treats ACCEPTED with another number than the one signed as outside the contract',
    async () => {
      expect(await transmit(ok({ result: 'ACCEPTED',
        ntsTransactionId: '202511284100000000001235' }))).toEqual({ kind: 'unavailable' });
    });

  it('maps REJECTED with a code and a message to rejected, both trimmed', async () => {
    expect(await transmit(ok({ result: 'REJECTED', code: ' NTS_DUPLICATE ',
      message: '  이미 전송된 세금계산서입니다.  ' }))).toEqual({ kind: 'rejected',
      code: 'NTS_DUPLICATE', message: '이미 전송된 세금계산서입니다.' });
  });

  it.each([
    ['a 500', { status: 500, body: accepted.body }],
    ['a 503', { status: 503, body: '{"result":"REJECTED","code":"BUSY","message":"busy"}' }],
    ['a 404', { status: 404, body: accepted.body }],
    ['a 201', { status: 201, body: accepted.body }],
    ['a 302', { status: 302, body: accepted.body }],
    ['malformed JSON', { status: 200, body: '{"result":"ACCEPTED",' }],
    ['an empty body', { status: 200, body: '' }],
    ['a JSON null', ok(null)],
    ['a JSON string', ok('ACCEPTED')],
    ['a JSON array', ok(['ACCEPTED', APPROVAL_NUMBER])],
    ['an unknown result', ok({ result: 'PENDING', ntsTransactionId: APPROVAL_NUMBER })],
    ['a lower-case result', ok({ result: 'accepted', ntsTransactionId: APPROVAL_NUMBER })],
    ['ACCEPTED without a number', ok({ result: 'ACCEPTED' })],
    ['ACCEPTED with a 23-digit number', ok({ result: 'ACCEPTED',
      ntsTransactionId: APPROVAL_NUMBER.slice(1) })],
    ['ACCEPTED with a 25-digit number', ok({ result: 'ACCEPTED',
      ntsTransactionId: `${APPROVAL_NUMBER}0` })],
    ['ACCEPTED with a non-digit number', ok({ result: 'ACCEPTED',
      ntsTransactionId: `${APPROVAL_NUMBER.slice(0, 23)}A` })],
    ['a letter before the serial', ok({ result: 'ACCEPTED',
      ntsTransactionId: `${APPROVAL_NUMBER.slice(0, 15)}a${APPROVAL_NUMBER.slice(16)}` })],
    ['ACCEPTED with a hyphenated number', ok({ result: 'ACCEPTED',
      ntsTransactionId: '20251128-41000000-00001234' })],
    ['ACCEPTED with a number padded by spaces', ok({ result: 'ACCEPTED',
      ntsTransactionId: ` ${APPROVAL_NUMBER} ` })],
    ['ACCEPTED with full-width digits', ok({ result: 'ACCEPTED',
      ntsTransactionId: '２'.repeat(24) })],
    ['ACCEPTED with the number as a JSON number', ok({ result: 'ACCEPTED',
      ntsTransactionId: Number(APPROVAL_NUMBER) })],
    ['REJECTED without a code', ok({ result: 'REJECTED', message: 'rejected' })],
    ['REJECTED with a blank code', ok({ result: 'REJECTED', code: '  ', message: 'rejected' })],
    ['REJECTED with a numeric code', ok({ result: 'REJECTED', code: 4001, message: 'rejected' })],
    ['REJECTED without a message', ok({ result: 'REJECTED', code: 'NTS_REJECTED' })],
    ['REJECTED with a code of 501 characters', ok({ result: 'REJECTED', code: 'C'.repeat(501),
      message: 'rejected' })],
    // PostgreSQL cannot store these in the document's failure or the failure event.
    ['REJECTED with a NUL in the message', ok({ result: 'REJECTED', code: 'NTS_REJECTED',
      message: 'rejected\u0000' })],
    ['REJECTED with a NUL in the code', ok({ result: 'REJECTED', code: 'NTS\u0000',
      message: 'rejected' })],
    ['REJECTED with a lone surrogate', ok({ result: 'REJECTED', code: 'NTS_REJECTED',
      message: 'rejected \ud83d' })],
    ['REJECTED with a control character inside the message', ok({ result: 'REJECTED',
      code: 'NTS_REJECTED', message: 'line one\nline two' })],
    ['a body over 16 KiB', ok({ result: 'ACCEPTED', ntsTransactionId: APPROVAL_NUMBER,
      padding: 'x'.repeat(20_000) })],
    ['a dropped connection', 'reset' as const],
  ])('is unavailable for %s', async (_name, reply) => {
    expect(await transmit(reply)).toEqual({ kind: 'unavailable' });
  });

  it('is unavailable when the gateway does not answer within the timeout, and hangs up',
    async () => {
      expect(await transmit('hang', { timeoutMs: 150 })).toEqual({ kind: 'unavailable' });
      // The gateway never answered: the transmitter gave up on its own and closed the
      // connection instead of leaving it open.
      const issuanceKey = `txi_gateway_${transmissionCount}`;
      expect(await pollUntil(async () => abandoned.has(issuanceKey), (closed) => closed))
        .toBe(true);
    });

  it('is unavailable when the answer stops halfway past the timeout', async () => {
    expect(await transmit('stall', { timeoutMs: 150 })).toEqual({ kind: 'unavailable' });
  });

  it('is unavailable when the caller\'s signal aborts first', async () => {
    expect(await transmit('hang', { timeoutMs: 30_000, signal: AbortSignal.timeout(100) }))
      .toEqual({ kind: 'unavailable' });
    expect(await transmit(accepted, { signal: AbortSignal.abort() }))
      .toEqual({ kind: 'unavailable' });
  });

  it('is unavailable when the gateway refuses the connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await transmit(accepted, { gatewayUrl: `http://127.0.0.1:${port}` }))
      .toEqual({ kind: 'unavailable' });
  });

  it('is unavailable, without throwing, for a gateway URL that cannot be requested', async () => {
    expect(await transmit(accepted, { gatewayUrl: 'http://exa mple.invalid' }))
      .toEqual({ kind: 'unavailable' });
  });
});

describe('parseTransmissionAnswer', () => {
  it('takes rejection codes and messages of up to 500 characters', () => {
    const answer = (code: string, message: string) =>
      parseTransmissionAnswer(JSON.stringify({ result: 'REJECTED', code, message }));
    expect(answer('C'.repeat(500), 'm'.repeat(500)))
      .toEqual({ kind: 'rejected', code: 'C'.repeat(500), message: 'm'.repeat(500) });
    expect(answer('C'.repeat(501), 'rejected')).toBeNull();
    expect(answer('NTS_REJECTED', 'm'.repeat(501))).toBeNull();
  });

  it('takes rejection messages in any script, with emoji, and trims line ends', () => {
    expect(parseTransmissionAnswer(JSON.stringify({ result: 'REJECTED', code: 'NTS_REJECTED',
      message: '\n  공급받는자 사업자번호 오류 😀\r\n' }))).toEqual({ kind: 'rejected',
      code: 'NTS_REJECTED', message: '공급받는자 사업자번호 오류 😀' });
  });

  it('reads approval numbers as the tax authority makes them: 16 digits, then 8 digits or ' +
    'lower-case letters', () => {
    const read = (ntsTransactionId: string) =>
      parseTransmissionAnswer(JSON.stringify({ result: 'ACCEPTED', ntsTransactionId }));
    for (const number of ['2025112841000008a1b2c3d4', '2025112841000008uwh00005',
      '2025112841000008zzzzzzzz', APPROVAL_NUMBER]) {
      expect(read(number)).toEqual({ kind: 'accepted', ntsTransactionId: number });
    }
    for (const number of ['2025112841000008A1B2C3D4', '202511284100000a00000001',
      '2025112841000008a1b2c3d', '2025112841000008a1b2c3d4e', '2025112841000008a1b2c3-4']) {
      expect(read(number), number).toBeNull();
    }
  });

  it('ignores fields outside the contract', () => {
    expect(parseTransmissionAnswer(JSON.stringify({ result: 'ACCEPTED',
      ntsTransactionId: APPROVAL_NUMBER, code: 'IGNORED', extra: [1, 2] })))
      .toEqual({ kind: 'accepted', ntsTransactionId: APPROVAL_NUMBER });
  });

  it('refuses REJECTED that carries an approval number but no code', () => {
    expect(parseTransmissionAnswer(JSON.stringify({ result: 'REJECTED',
      ntsTransactionId: APPROVAL_NUMBER, message: 'rejected' }))).toBeNull();
  });
});
