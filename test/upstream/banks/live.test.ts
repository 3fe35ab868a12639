// The live bank adapter speaks the gateway contract of docs/bank-account-holders.md to a fake
// gateway on 127.0.0.1: each documented result maps to its kind, and everything outside the
// contract (another status, a malformed or oversized body, a slow answer, a refused
// connection, no gateway at all) is `unavailable`, never an exception.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLiveBanks, parseGatewayAnswer } from '../../../src/upstream/banks/live.ts';
import { sendJson, startFakeServer, type FakeServer } from '../../helpers/fake-server.ts';

type Reply = { status: number; body: string } | 'hang';

// The fake gateway answers by account number; it records every request it receives.
const replies = new Map<string, Reply>();
const received: Array<{ method?: string; url?: string; contentType?: string; body: unknown }> = [];
let gateway: FakeServer;
let gatewayUrl: string;

beforeAll(async () => {
  gateway = await startFakeServer((request, response) => {
    const body = JSON.parse(request.text) as { accountNumber: string };
    received.push({ method: request.method, url: request.url,
      contentType: request.headers['content-type'], body });
    const reply = replies.get(body.accountNumber) ?? { status: 500, body: 'no reply set' };
    if (reply === 'hang') return;
    sendJson(response, reply.status, reply.body);
  });
  gatewayUrl = `${gateway.origin}/bank/`;
});
afterAll(async () => {
  await gateway?.close();
});

function lookup(accountNumber: string, reply: Reply, timeoutMs = 2_000) {
  replies.set(accountNumber, reply);
  const banks = createLiveBanks({ gatewayUrl, timeoutMs });
  return banks.lookupHolder({
    bankCode: '004',
    accountNumber,
    signal: AbortSignal.timeout(timeoutMs),
  });
}

const ok = (body: unknown) => ({ status: 200, body: JSON.stringify(body) });

describe('the live bank adapter', () => {
  it('posts {bankCode, accountNumber} as JSON to {BANK_GATEWAY_URL}/holders:inquire', async () => {
    await lookup('1000000001', ok({ result: 'FOUND', holderName: '홍길동' }));
    expect(received.at(-1)).toEqual({
      method: 'POST',
      url: '/bank/holders:inquire',
      contentType: 'application/json',
      body: { bankCode: '004', accountNumber: '1000000001' },
    });
  });

  it.each([
    [{ result: 'FOUND', holderName: '홍길동' }, { kind: 'found', holderName: '홍길동' }],
    [{ result: 'FOUND', holderName: '  (주)이택스  ' }, { kind: 'found', holderName: '(주)이택스' }],
    [{ result: 'NOT_FOUND' }, { kind: 'notFound' }],
    [{ result: 'CLOSED' }, { kind: 'closed' }],
    [{ result: 'AMOUNT_REQUIRED' }, { kind: 'amountRequired' }],
  ])('maps the gateway answer %j to %j', async (answer, expected) => {
    expect(await lookup('1000000002', ok(answer))).toEqual(expected);
  });

  it.each([
    ['a 500', { status: 500, body: '{"result":"FOUND","holderName":"홍길동"}' }],
    ['a 404', { status: 404, body: '{"result":"NOT_FOUND"}' }],
    ['a 201', { status: 201, body: '{"result":"FOUND","holderName":"홍길동"}' }],
    ['malformed JSON', { status: 200, body: '{"result":"FOUND",' }],
    ['an unknown result', ok({ result: 'MAYBE' })],
    ['FOUND without a name', ok({ result: 'FOUND' })],
    ['FOUND with an empty name', ok({ result: 'FOUND', holderName: '   ' })],
    ['FOUND with a number as name', ok({ result: 'FOUND', holderName: 42 })],
    ['a JSON array', ok(['FOUND'])],
    ['an oversized body', ok({ result: 'FOUND', holderName: '가'.repeat(20_000) })],
  ])('is unavailable for %s', async (_name, reply) => {
    expect(await lookup('1000000003', reply)).toEqual({ kind: 'unavailable' });
  });

  it('is unavailable when the gateway does not answer within the timeout', async () => {
    expect(await lookup('1000000004', 'hang', 150)).toEqual({ kind: 'unavailable' });
  });

  it('is unavailable when the gateway refuses the connection', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const banks = createLiveBanks({ gatewayUrl: `http://127.0.0.1:${port}`, timeoutMs: 1_000 });
    const result = await banks.lookupHolder({
      bankCode: '004',
      accountNumber: '1000000005',
      signal: AbortSignal.timeout(1_000),
    });
    expect(result).toEqual({ kind: 'unavailable' });
  });

  it('is unavailable for every lookup, without a request, when no gateway is configured',
    async () => {
      const before = received.length;
      const banks = createLiveBanks({ gatewayUrl: undefined, timeoutMs: 1_000 });
      const result = await banks.lookupHolder({
        bankCode: '004',
        accountNumber: '1000000006',
        signal: AbortSignal.timeout(1_000),
      });
      expect(result).toEqual({ kind: 'unavailable' });
      expect(received.length).toBe(before);
    });
});

describe('parseGatewayAnswer', () => {
  it('refuses holder names longer than 200 characters', () => {
    expect(parseGatewayAnswer(JSON.stringify({ result: 'FOUND', holderName: 'a'.repeat(201) })))
      .toBeNull();
    expect(parseGatewayAnswer(JSON.stringify({ result: 'FOUND', holderName: 'a'.repeat(200) })))
      .toEqual({ kind: 'found', holderName: 'a'.repeat(200) });
  });

  it('refuses inherited names as results', () => {
    expect(parseGatewayAnswer('{"result":"constructor"}')).toBeNull();
    expect(parseGatewayAnswer('null')).toBeNull();
  });
});
