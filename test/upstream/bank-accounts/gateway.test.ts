// The live bank adapter (docs/bank-transactions.md § The live bank gateway) against a fake
// gateway: it posts the credentials and the days, reads a listing or a failure of the documented
// shape, and takes anything else, or no answer in time, as unreachable.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayBankAccountPortal } from '../../../src/upstream/bank-accounts/gateway.ts';

let server: Server;
let answer: { status: number; body: unknown; delayMs?: number } = { status: 200, body: {} };
const received: Array<{ url: string; body: unknown }> = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => { text += String(chunk); });
    request.on('end', () => {
      received.push({ url: request.url ?? '', body: text === '' ? null : JSON.parse(text) });
      setTimeout(() => {
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer.body));
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const portal = () => createGatewayBankAccountPortal({ gatewayUrl:
  `http://127.0.0.1:${(server.address() as AddressInfo).port}/bank/`, timeoutMs: 500 });
const credentials = { bankCode: '004', accountNumber: '110123456789', userId: 'owner',
  password: 'secret' };
const range = { from: '2026-11-01', to: '2026-11-20' };
const line = { bookedDate: '2026-11-20', sequence: 1, bookedTime: '10:15:00',
  direction: 'DEPOSIT', amount: 110_000, balanceAfter: 1_110_000,
  counterpartyName: '주식회사 받는자', memo: '타행이체', branch: null };
const signal = () => new AbortController().signal;

describe('bank gateway transactions', () => {
  it('posts the credentials and the days and reads the listing', async () => {
    answer = { status: 200, body: { result: 'LISTED', holderName: '주식회사 이택스',
      balance: 1_110_000, lines: [line, { ...line, sequence: 2, bookedTime: null,
        balanceAfter: null, counterpartyName: null, memo: null }] } };
    const listed = await portal().transactions(credentials, range, signal());
    expect(listed).toMatchObject({ kind: 'listed', holderName: '주식회사 이택스',
      balance: 1_110_000 });
    expect(listed.kind === 'listed' && listed.lines).toHaveLength(2);
    expect(received.at(-1)).toEqual({ url: '/bank/transactions',
      body: { credentials, ...range } });
  });

  it('passes a failure the bank answered', async () => {
    answer = { status: 200, body: { result: 'FAILED', code: 'INVALID_CREDENTIALS',
      message: 'The password was changed.' } };
    expect(await portal().transactions(credentials, range, signal())).toEqual({ kind: 'failed',
      code: 'INVALID_CREDENTIALS', message: 'The password was changed.' });
  });

  it('takes another status, another shape or no answer in time as unreachable', async () => {
    for (const wrong of [
      { status: 500, body: { result: 'LISTED' } },
      { status: 200, body: { result: 'LISTED', holderName: 'x', balance: 1, lines: [
        { ...line, sequence: 0 }] } },
      { status: 200, body: { result: 'LISTED', holderName: 'x', balance: 1, lines: [
        { ...line, direction: 'IN' }] } },
      { status: 200, body: { result: 'LISTED', holderName: 'x', balance: 1, lines: [
        { ...line, amount: -5 }] } },
      { status: 200, body: [] },
      { status: 200, body: { result: 'LISTED', holderName: 'x', balance: 1, lines: [] },
        delayMs: 2_000 },
    ]) {
      answer = wrong;
      expect(await portal().transactions(credentials, range, signal()), JSON.stringify(wrong))
        .toEqual({ kind: 'unavailable' });
    }
  });
});
