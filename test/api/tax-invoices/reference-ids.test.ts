// Service-Client-Reference-Id on tax invoices: once used with a key it can never be
// used again for any tax invoice request (400 INVALID_REQUEST, nothing made, nothing charged),
// and the status lookup by clientReferenceId tells a client what became of a request whose
// response it never received.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { pollUntil } from '../../helpers/poll.ts';
import {
  createSupplierAccount,
  invoiceBody,
  issue,
  request,
  type Supplier,
} from './helpers.ts';

let app: TestApp;
let key: string;
let otherKey: string;
let accountId: string;
let supplier: Supplier;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
  ({ key, accountId, supplier } = await createSupplierAccount(app));
  ({ key: otherKey } = await app.platform.accounts.createKey({ accountId, environment: 'test' }));
});
afterAll(async () => {
  await app?.close();
});

const balance = () => app.platform.points.getBalance({ accountId, environment: 'test' });

function statusOf(referenceId: string, apiKey = key) {
  return app.server.inject(request(apiKey, 'GET',
    `/v1/taxInvoices/issue/status?clientReferenceId=${encodeURIComponent(referenceId)}`));
}

async function documentsWith(referenceId: string): Promise<number> {
  const result = await app.platform.database.pool.query(
    'select count(*)::int as count from tax_invoices where client_reference_id = $1',
    [referenceId]);
  return result.rows[0].count as number;
}

describe('a reference id used once', () => {
  it('is refused on any later tax invoice request, with the same or another body', async () => {
    const first = await issue(app, key, supplier.supplierKey, invoiceBody(), 'order-1');
    expect(first.statusCode).toBe(200);
    const before = await balance();
    for (const body of [invoiceBody(), invoiceBody({ description: '다른 내용' })]) {
      const body400 = expectError(await issue(app, key, supplier.supplierKey, body, 'order-1'),
        400, 'INVALID_REQUEST');
      expect(body400.message).toContain('Service-Client-Reference-Id');
    }
    expect(await balance()).toEqual(before);
    expect(await documentsWith('order-1')).toBe(1);
  });

  it('belongs to its key: another key of the same account may use it', async () => {
    const mine = await issue(app, key, supplier.supplierKey, invoiceBody(), 'order-2');
    expect(mine.statusCode).toBe(200);
    // Issuers belong to the account and environment, so the other key issues for the same one.
    const response = await issue(app, otherKey, supplier.supplierKey, invoiceBody(), 'order-2');
    expect(response.statusCode).toBe(200);
  });

  it('is not claimed by a refused request, so it can be used after fixing the input', async () => {
    expectError(await issue(app, key, supplier.supplierKey, invoiceBody({ purpose: 'GIFT' }),
      'order-3'), 400, 'INVALID_REQUEST');
    expect((await issue(app, key, supplier.supplierKey, invoiceBody(), 'order-3')).statusCode)
      .toBe(200);
  });

  it('gives exactly one document when two requests race with it', async () => {
    const before = await balance();
    const responses = await Promise.all(Array.from({ length: 5 }, () =>
      issue(app, key, supplier.supplierKey, invoiceBody(), 'order-race')));
    expect(responses.map((response) => response.statusCode).sort()).toEqual(
      [200, 400, 400, 400, 400]);
    expect(await documentsWith('order-race')).toBe(1);
    expect((await balance()).balance).toBe(before.balance - 100);
  });

  it.each([['empty', ''], ['blank', '   '], ['256 characters', 'r'.repeat(256)]])(
    'is 400 INVALID_REQUEST when %s', async (_case, value) => {
      expectError(await issue(app, key, supplier.supplierKey, invoiceBody(), value), 400,
        'INVALID_REQUEST');
    });
});

describe('GET /v1/taxInvoices/issue/status', () => {
  it('answers the issuance key, the reference id, the status and a message', async () => {
    const { issuanceKey } = (await issue(app, key, supplier.supplierKey, invoiceBody(),
      '주문/2026 #7')).json() as { issuanceKey: string };
    const response = await statusOf('주문/2026 #7');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ issuanceKey, issuanceKeys: [issuanceKey],
      clientReferenceId: '주문/2026 #7', status: 'PENDING', message: expect.any(String) });
  });

  it('is 404 NOT_FOUND for a reference id this key never used, as for cash receipts',
    async () => {
      expectError(await statusOf('never-used'), 404, 'NOT_FOUND',
        /^No tax invoice request was made with this clientReferenceId, by this API key or in /);
    });

  it('is 404 NOT_FOUND for another key\'s reference id', async () => {
    await issue(app, key, supplier.supplierKey, invoiceBody(), 'order-private');
    expectError(await statusOf('order-private', otherKey), 404, 'NOT_FOUND');
  });

  it('is 400 INVALID_REQUEST without the query parameter', async () => {
    expectError(await app.server.inject(request(key, 'GET', '/v1/taxInvoices/issue/status')),
      400, 'INVALID_REQUEST');
  });
});

describe('a response lost to a network failure', () => {
  it('is found by reference id instead of being resent', async () => {
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.server.address() as AddressInfo;
    const body = JSON.stringify(invoiceBody());
    // The client sends the request and its connection drops before any response arrives.
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write([
      'POST /v1/taxInvoices/issue HTTP/1.1', 'Host: localhost',
      `Authorization: ${basicAuth(key)}`, 'Content-Type: application/json',
      `Supplier-Key: ${supplier.supplierKey}`, 'Service-Client-Reference-Id: lost-response',
      `Content-Length: ${Buffer.byteLength(body)}`, '', body,
    ].join('\r\n'));
    socket.destroy();
    const status = await pollUntil(() => statusOf('lost-response'),
      (response) => response.statusCode === 200);
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ clientReferenceId: 'lost-response',
      status: 'PENDING' });
    // Resending would be refused and make nothing.
    expectError(await issue(app, key, supplier.supplierKey, invoiceBody(), 'lost-response'),
      400, 'INVALID_REQUEST');
    expect(await documentsWith('lost-response')).toBe(1);
  });
});
