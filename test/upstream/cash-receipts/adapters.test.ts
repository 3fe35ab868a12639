// The cash-receipt authority adapters (src/upstream/cash-receipts/): the sandbox answers the same
// 9-digit number for the same issuance key and fails the documented identity numbers; the
// gateway's answers are read strictly, anything outside the contract being `unavailable`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayCashReceiptAuthority, parseApprovalAnswer } from
  '../../../src/upstream/cash-receipts/gateway.ts';
import type { ApprovalRequest } from '../../../src/upstream/cash-receipts/index.ts';
import {
  createSandboxCashReceiptAuthority,
  SANDBOX_IDENTITY_NUMBERS,
} from '../../../src/upstream/cash-receipts/sandbox.ts';

const request: ApprovalRequest = {
  issuanceKey: 'csr_test', kind: 'ISSUANCE', merchantNumber: '1234567891',
  tradeDate: '2026-11-24', usage: 'INCOME_DEDUCTION', identityNumber: '01012345678',
  taxation: 'TAXABLE', tradeOption: 'GENERAL', supplyCost: 10_000, tax: 1_000, serviceFee: 0,
  totalAmount: 11_000, itemName: '커피', original: null,
};
const signal = () => AbortSignal.timeout(5_000);

describe('the sandbox', () => {
  const sandbox = createSandboxCashReceiptAuthority({ approvalDelayMs: 0 });

  it('approves with the same 9-digit number for the same issuance key', async () => {
    const first = await sandbox.approve(request, signal());
    expect(first).toEqual({ kind: 'approved',
      approvalNumber: expect.stringMatching(/^[1-9][0-9]{8}$/) });
    expect(await sandbox.approve(request, signal())).toEqual(first);
    expect(await sandbox.approve({ ...request, issuanceKey: 'csr_other' }, signal()))
      .not.toEqual(first);
  });

  it('rejects and is unreachable for the documented identity numbers', async () => {
    expect(await sandbox.approve({ ...request,
      identityNumber: SANDBOX_IDENTITY_NUMBERS.rejected }, signal()))
      .toMatchObject({ kind: 'rejected', code: 'APPROVAL_REJECTED' });
    expect(await sandbox.approve({ ...request,
      identityNumber: SANDBOX_IDENTITY_NUMBERS.unavailable }, signal()))
      .toEqual({ kind: 'unavailable' });
  });
});

describe('the gateway', () => {
  it('reads approvals and rejections, and nothing else', () => {
    expect(parseApprovalAnswer('{"result":"APPROVED","approvalNumber":"123456789"}'))
      .toEqual({ kind: 'approved', approvalNumber: '123456789' });
    expect(parseApprovalAnswer('{"result":"REJECTED","code":"X","message":"no"}'))
      .toEqual({ kind: 'rejected', code: 'X', message: 'no' });
    for (const text of ['{"result":"APPROVED","approvalNumber":"12345678"}',
      '{"result":"REJECTED","code":"X"}', '{"result":"REJECTED","code":"X\\u0000","message":"m"}',
      'not json', '[]']) {
      expect(parseApprovalAnswer(text)).toBeNull();
    }
  });

  let server: Server;
  let url = '';
  const answers: string[] = [];
  beforeAll(async () => {
    server = createServer((incoming, reply) => {
      incoming.resume();
      incoming.on('end', () => {
        const answer = answers.shift() ?? '';
        reply.writeHead(answer === '' ? 500 : 200, { 'content-type': 'application/json' });
        reply.end(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('calls the gateway and treats a server error as unavailable', async () => {
    const gateway = createGatewayCashReceiptAuthority({ gatewayUrl: url, timeoutMs: 2_000 });
    answers.push('{"result":"APPROVED","approvalNumber":"987654321"}');
    expect(await gateway.approve(request, signal()))
      .toEqual({ kind: 'approved', approvalNumber: '987654321' });
    answers.push('');
    expect(await gateway.approve(request, signal())).toEqual({ kind: 'unavailable' });
    answers.push('{"result":"TRANSMITTED"}');
    expect(await gateway.transmit({ issuanceKey: 'csr_test', approvalNumber: '987654321' },
      signal())).toEqual({ kind: 'transmitted' });
    answers.push('{"result":"NOPE"}');
    expect(await gateway.transmit({ issuanceKey: 'csr_test', approvalNumber: '987654321' },
      signal())).toEqual({ kind: 'unavailable' });
  });
});
