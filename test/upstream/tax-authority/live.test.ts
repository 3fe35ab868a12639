// The live tax-authority adapter speaks the public business-status API to a
// fake server on 127.0.0.1: POST {base}/status?serviceKey=… with {"b_no": […]}, one call for up
// to 100 numbers; its status and tax-type codes map to the spec enums, an unregistered number
// is data, and everything outside the contract (its error envelope, a gateway error, another
// status, a malformed or partial body, a slow answer, a refused connection, no service key) is
// `unavailable`, never an exception.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLiveTaxAuthority, statusOfEntry } from '../../../src/upstream/tax-authority/live.ts';
import { validNumbers } from '../../helpers/business-numbers.ts';
import { sendJson, startFakeServer, type FakeServer } from '../../helpers/fake-server.ts';

type Reply = { status: number; body: string } | 'hang' | 'echo';
type Received = { method?: string; url?: string; contentType?: string; body: { b_no: string[] } };

let reply: Reply = 'echo';
const received: Received[] = [];
let server: FakeServer;
let baseUrl: string;

const NOT_REGISTERED_TEXT = '국세청에 등록되지 않은 사업자등록번호입니다.';

// An active general taxpayer for every number asked, in request order (the documented shape).
function echoAnswer(numbers: string[]) {
  return {
    request_cnt: numbers.length,
    match_cnt: numbers.length,
    status_code: 'OK',
    data: numbers.map((b_no) => ({
      b_no, b_stt: '계속사업자', b_stt_cd: '01', tax_type: '부가가치세 일반과세자',
      tax_type_cd: '01', end_dt: '', utcc_yn: 'N', tax_type_change_dt: '',
      invoice_apply_dt: '', rbf_tax_type: '해당없음', rbf_tax_type_cd: '99',
    })),
  };
}

beforeAll(async () => {
  server = await startFakeServer((request, response) => {
    const body = JSON.parse(request.text) as { b_no: string[] };
    received.push({ method: request.method, url: request.url,
      contentType: request.headers['content-type'], body });
    if (reply === 'hang') return;
    const answer = reply === 'echo'
      ? { status: 200, body: JSON.stringify(echoAnswer(body.b_no)) }
      : reply;
    sendJson(response, answer.status, answer.body);
  });
  baseUrl = `${server.origin}/api/nts-businessman/v1/`;
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  reply = 'echo';
  received.length = 0;
});

function check(numbers: string[], timeoutMs = 2_000, keyless = false) {
  const serviceKey = keyless ? undefined : 'k/ey+1=';
  const authority = createLiveTaxAuthority({ baseUrl, serviceKey, timeoutMs });
  return authority.checkStatuses(numbers, AbortSignal.timeout(timeoutMs));
}

const ok = (body: unknown) => ({ status: 200, body: JSON.stringify(body) });

// `count` distinct ten-digit numbers with valid checksums.

describe('the live tax-authority adapter', () => {
  it('posts {"b_no": [...]} as JSON to {base}/status with the encoded service key', async () => {
    const result = await check(['1320557431']);
    expect(received).toEqual([{
      method: 'POST',
      url: '/api/nts-businessman/v1/status?serviceKey=k%2Fey%2B1%3D',
      contentType: 'application/json',
      body: { b_no: ['1320557431'] },
    }]);
    expect(result).toEqual({
      kind: 'answered',
      results: new Map([['1320557431', { status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' }]]),
    });
  });

  it('asks 100 numbers in exactly one call', async () => {
    const numbers = validNumbers(100);
    const result = await check(numbers);
    expect(received).toHaveLength(1);
    expect(received[0]!.body.b_no).toEqual(numbers);
    expect(result.kind === 'answered' && result.results.size).toBe(100);
  });

  it('maps the documented status codes, tax-type codes and closing date', () => {
    expect(statusOfEntry({ b_stt_cd: '01', tax_type_cd: '01' }))
      .toEqual({ status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' });
    expect(statusOfEntry({ b_stt_cd: '02', tax_type_cd: '02', end_dt: '' }))
      .toEqual({ status: 'SUSPENDED', closedOn: null, taxType: 'SIMPLIFIED_RECEIPT_ISSUER' });
    expect(statusOfEntry({ b_stt_cd: '03', tax_type_cd: '03', end_dt: '20240630' }))
      .toEqual({ status: 'CLOSED', closedOn: '2024-06-30', taxType: 'SPECIAL_TAXPAYER' });
    const taxTypes = {
      '04': 'TAX_FREE', '05': 'NONPROFIT', '06': 'UNIQUE_NUMBER_ORGANIZATION',
      '07': 'SIMPLIFIED_TAX_INVOICE_ISSUER', '99': null, '': null,
    };
    for (const [code, taxType] of Object.entries(taxTypes)) {
      expect(statusOfEntry({ b_stt_cd: '01', tax_type_cd: code }).taxType).toBe(taxType);
    }
    // Another status code is UNKNOWN; a closing date counts only for CLOSED.
    expect(statusOfEntry({ b_stt_cd: '09', tax_type_cd: '01', end_dt: '20240630' }))
      .toEqual({ status: 'UNKNOWN', closedOn: null, taxType: 'GENERAL' });
  });

  it('answers an unregistered number as NOT_REGISTERED data, not an error', async () => {
    reply = ok({
      request_cnt: 2, status_code: 'OK',
      data: [
        { b_no: '1234567891', b_stt: '', b_stt_cd: '', tax_type: NOT_REGISTERED_TEXT,
          tax_type_cd: '', end_dt: '', utcc_yn: '', tax_type_change_dt: '',
          invoice_apply_dt: '', rbf_tax_type: '', rbf_tax_type_cd: '' },
        { b_no: '1320557431', b_stt: '폐업자', b_stt_cd: '03', tax_type: '부가가치세 간이과세자',
          tax_type_cd: '07', end_dt: '20231231' },
      ],
    });
    const result = await check(['1234567891', '1320557431']);
    expect(result).toEqual({
      kind: 'answered',
      results: new Map([
        ['1234567891', { status: 'NOT_REGISTERED', closedOn: null, taxType: null }],
        ['1320557431', {
          status: 'CLOSED', closedOn: '2023-12-31', taxType: 'SIMPLIFIED_TAX_INVOICE_ISSUER',
        }],
      ]),
    });
  });

  const unavailableReplies: Array<[string, Reply]> = [
    ['its error envelope (TOO_LARGE_REQUEST, 413)',
      { status: 413, body: JSON.stringify({ status_code: 'TOO_LARGE_REQUEST' }) }],
    ['its error envelope with 200', ok({ status_code: 'INTERNAL_ERROR' })],
    ['REQUEST_DATA_MALFORMED (411)',
      { status: 411, body: JSON.stringify({ status_code: 'REQUEST_DATA_MALFORMED' }) }],
    ['an unregistered service key (401 gateway envelope)',
      { status: 401, body: JSON.stringify({ code: -4, msg: '등록되지 않은 인증키 입니다.' }) }],
    ['a 500', { status: 500, body: 'oops' }],
    ['a body that is not JSON', { status: 200, body: '<xml/>' }],
    ['an answer missing a number', ok({ status_code: 'OK', request_cnt: 1, data: [] })],
    ['data that is not an array', ok({ status_code: 'OK', data: {} })],
  ];
  it.each(unavailableReplies)('is unavailable on %s', async (_name, answer) => {
    reply = answer;
    expect(await check(['1320557431'])).toEqual({ kind: 'unavailable' });
  });

  it('is unavailable when the answer is slower than the timeout', async () => {
    reply = 'hang';
    expect(await check(['1320557431'], 100)).toEqual({ kind: 'unavailable' });
  });

  it('is unavailable when the connection is refused', async () => {
    const authority = createLiveTaxAuthority({
      baseUrl: 'http://127.0.0.1:1', serviceKey: 'key', timeoutMs: 1_000,
    });
    expect(await authority.checkStatuses(['1320557431'], AbortSignal.timeout(1_000)))
      .toEqual({ kind: 'unavailable' });
  });

  it('is unavailable without a service key and makes no call', async () => {
    expect(await check(['1320557431'], 1_000, true)).toEqual({ kind: 'unavailable' });
    expect(received).toHaveLength(0);
  });
});
