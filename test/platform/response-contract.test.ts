// The check every test app makes of its responses against openapi/openapi.json
// (test/helpers/response-contract.ts) finds each way a response can break the document, and
// passes one that keeps it.
import { describe, expect, it } from 'vitest';
import {
  createResponseChecker,
  pathTemplate,
  type SentResponse,
} from '../helpers/response-contract.ts';

const check = createResponseChecker();
const TRACE_ID = '0123456789abcdef0123456789abcdef';
const JSON_TYPE = 'application/json; charset=utf-8';
const RATE_LIMIT = {
  'ratelimit-policy': '"points.retrieve";q=6000;w=60',
  ratelimit: '"points.retrieve";r=5999;t=60',
};

function points(changes: Partial<SentResponse> = {}): SentResponse {
  return {
    method: 'GET',
    routeUrl: '/v1/points',
    status: 200,
    headers: { 'trace-id': TRACE_ID, 'content-type': JSON_TYPE, ...RATE_LIMIT },
    body: JSON.stringify({ balance: 10, reserved: 0, available: 10 }),
    ...changes,
  };
}

const error = (code: string) => JSON.stringify({ code, message: 'Why.', traceId: TRACE_ID });

describe('the response check', () => {
  it('passes a response that keeps the document', () => {
    expect(check(points())).toEqual([]);
    expect(check(points({ status: 401, headers: { 'trace-id': TRACE_ID,
      'www-authenticate': 'Basic realm="etax"' }, body: '' }))).toEqual([]);
    expect(check(points({ status: 429, headers: { 'trace-id': TRACE_ID, 'content-type': JSON_TYPE,
      'retry-after': '3', ...RATE_LIMIT }, body: error('RATE_LIMITED') }))).toEqual([]);
  });

  it('finds a status the operation does not declare', () => {
    expect(check(points({ status: 404, body: error('NOT_FOUND') })))
      .toEqual([expect.stringMatching(
        /GET \/v1\/points → 404: the document does not declare 404/)]);
  });

  it('finds a body that breaks the schema, and a code the status does not list', () => {
    expect(check(points({ body: JSON.stringify({ balance: 'ten', reserved: 0, available: 10 }) })))
      .toEqual([expect.stringMatching(/body\/balance must be integer/)]);
    expect(check(points({ status: 500, body: error('SERVICE_UNAVAILABLE') })))
      .toEqual([expect.stringMatching(/body\/code must be equal to one of the allowed values/)]);
  });

  it('finds a media type the status does not declare, and a body where none is declared', () => {
    expect(check(points({ headers: { 'trace-id': TRACE_ID, 'content-type': 'text/plain',
      ...RATE_LIMIT } })))
      .toEqual([expect.stringMatching(/is text\/plain, not application\/json/)]);
    expect(check(points({ status: 401, headers: { 'trace-id': TRACE_ID,
      'www-authenticate': 'Basic realm="etax"' }, body: 'no' })))
      .toEqual([expect.stringMatching(/has a body where the document declares none/)]);
  });

  it('finds a required header missing, a header not declared, and a malformed value', () => {
    expect(check(points({ headers: { 'content-type': JSON_TYPE, ...RATE_LIMIT } })))
      .toEqual([expect.stringMatching(/lacks the required header Trace-Id/)]);
    expect(check(points({ status: 401, headers: { 'trace-id': TRACE_ID,
      'www-authenticate': 'Basic realm="etax"', ...RATE_LIMIT }, body: '' })))
      .toEqual([expect.stringMatching(/sends the header ratelimit-policy/),
        expect.stringMatching(/sends the header ratelimit,/)]);
    expect(check(points({ status: 429, headers: { 'trace-id': TRACE_ID, 'content-type': JSON_TYPE,
      'retry-after': '0', ...RATE_LIMIT }, body: error('RATE_LIMITED') })))
      .toEqual([expect.stringMatching(/header Retry-After: "0" .*>= 1/)]);
  });

  it('leaves alone routes the document does not list, and requests that matched no route', () => {
    expect(check(points({ routeUrl: '/docs/json', status: 418 }))).toEqual([]);
    expect(check(points({ routeUrl: undefined, status: 404 }))).toEqual([]);
    expect(check(points({ method: 'HEAD', status: 418 }))).toEqual([]);
  });
});

describe('pathTemplate', () => {
  it('writes a route as the document writes its path', () => {
    expect(pathTemplate('/v1/webhookEndpoints/:endpointId(^[^:/]+)::rotateSecret'))
      .toBe('/v1/webhookEndpoints/{endpointId}:rotateSecret');
    expect(pathTemplate('/v1/bankAccountHolders::inquire')).toBe('/v1/bankAccountHolders:inquire');
    expect(pathTemplate('/v1/taxInvoices/:issuanceKey/pdf'))
      .toBe('/v1/taxInvoices/{issuanceKey}/pdf');
  });
});
