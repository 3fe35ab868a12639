// The SDK against a real etax server listening on a port of its own: typed calls and errors,
// retrying of 429 honouring Retry-After (and never of a POST whose answer was lost), cursor
// pagination, a tax invoice issued with a reference id and recovered by it, and its PDF.
import type { AddressInfo } from 'node:net';
import {
  bulkIssueTaxInvoices,
  createEtaxClient,
  downloadTaxInvoicePdf,
  EtaxError,
  getTaxInvoiceBulk,
  isEtaxError,
  issueStatus,
  issueTaxInvoice,
  newReferenceId,
  paginate,
  unwrap,
  type EtaxClient,
  type OperationErrorCode,
  type TaxInvoiceDraft,
} from '@etax/sdk';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  invoiceBody,
  registerSupplier,
  type Supplier,
} from '../api/tax-invoices/helpers.ts';

// points.retrieve allows this many calls a second, so that the SDK meets a 429.
const POINTS_LIMIT = 2;
const UNKNOWN_KEY = `test_${'Q'.repeat(43)}`;

let app: TestApp;
let baseUrl = '';
let key = '';
let supplier: Supplier;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: {
    TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0',
    RATE_LIMIT_OVERRIDES: JSON.stringify({
      'points.retrieve': { limit: POINTS_LIMIT, windowSeconds: 1 } }),
  } });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
  const account = await app.createAccount();
  key = account.keys.test;
  supplier = await registerSupplier(app, key);
});
afterAll(async () => {
  await app?.close();
});

const client = (options: Parameters<typeof createEtaxClient>[0] extends infer O
  ? Partial<O> : never = {}): EtaxClient => createEtaxClient({ apiKey: key, baseUrl, ...options });

describe('calls and errors', () => {
  it('refuses a value that is not an API key before sending anything', () => {
    expect(() => createEtaxClient({ apiKey: 'sk_live_123' })).toThrow(TypeError);
  });

  it('answers typed data, and an EtaxError with the code, message and trace id', async () => {
    const points = await unwrap(client().GET('/v1/points'));
    expectTypeOf(points.balance).toEqualTypeOf<number>();
    expect(points).toMatchObject({ balance: expect.any(Number) });

    const failure = await unwrap(client().GET('/v1/issuers/{issuerId}',
      { params: { path: { issuerId: 'iss_unknown' } } })).catch((error: unknown) => error);
    expect(isEtaxError(failure, 'NOT_FOUND')).toBe(true);
    expect(failure).toMatchObject({ status: 404, code: 'NOT_FOUND',
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expectTypeOf<'NOT_FOUND'>().toMatchTypeOf<OperationErrorCode<'/v1/issuers/{issuerId}',
      'get'>>();
  });

  it('names a refused key UNAUTHORIZED, though 401 has no body', async () => {
    const refused = await unwrap(client({ apiKey: UNKNOWN_KEY }).GET('/v1/points'))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EtaxError);
    expect(refused).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});

describe('retrying', () => {
  it('waits out a 429 for Retry-After and then succeeds', async () => {
    const etax = client({ retry: { attempts: 3, maxDelayMs: 5_000 } });
    const results = [];
    for (let call = 0; call <= POINTS_LIMIT; call += 1) {
      results.push(await etax.GET('/v1/points'));
    }
    expect(results.map(({ response }) => response.status)).toEqual([200, 200, 200]);
  });

  it('returns the 429 when retrying is off or Retry-After is longer than it may wait',
    async () => {
      for (const retry of [false, { attempts: 3, maxDelayMs: 10 }] as const) {
        const etax = client({ retry });
        let last: Response | undefined;
        for (let call = 0; call <= POINTS_LIMIT; call += 1) {
          last = (await etax.GET('/v1/points')).response;
        }
        expect(last?.status).toBe(429);
        const error = EtaxError.fromResponse(last!, null);
        expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        // The next window.
        await new Promise((resolve) => setTimeout(resolve, 1_100));
      }
    });

  it('sends a GET again when the connection failed, and a POST never', async () => {
    const sent: string[] = [];
    const flaky = async (request: Request) => {
      sent.push(request.method);
      if (sent.length % 2 === 1) throw new TypeError('fetch failed');
      return fetch(request);
    };
    const etax = client({ fetch: flaky, retry: { attempts: 2, baseDelayMs: 1 } });
    await expect(unwrap(etax.GET('/v1/issuers', { params: { query: { limit: 20 } } })))
      .resolves.toBeDefined();
    expect(sent).toEqual(['GET', 'GET']);
    sent.length = 0;
    await expect(etax.POST('/v1/bankAccountHolders:inquire',
      { body: { bankCode: '004', accountNumber: '9990000002' } })).rejects.toThrow('fetch failed');
    expect(sent).toEqual(['POST']);
  });
});

describe('pagination', () => {
  it('walks every page of a list as one sequence', async () => {
    const { keys } = await app.createAccount();
    const etax = createEtaxClient({ apiKey: keys.test, baseUrl });
    const created: string[] = [];
    for (const number of ['1234567891', '2208162517', '1248100998']) {
      const issuer = await unwrap(etax.POST('/v1/issuers', { body: {
        identificationNumber: number, organizationName: `주식회사 ${number}`,
        representativeName: '홍길동' } }));
      created.push(issuer.issuerId);
    }
    const seen: string[] = [];
    for await (const issuer of paginate(etax, '/v1/issuers', { query: { limit: 1 } })) {
      seen.push(issuer.issuerId);
    }
    expect(seen.sort()).toEqual(created.sort());
  });

  it('ends a feed that says nothing more follows, though it always answers a cursor', async () => {
    const { keys } = await app.createAccount();
    const etax = createEtaxClient({ apiKey: keys.test, baseUrl });
    const pages: Array<{ hasMore: boolean; nextCursor: string }> = [];
    const counting = async (request: Request) => {
      const response = await fetch(request);
      pages.push(await response.clone().json() as { hasMore: boolean; nextCursor: string });
      return response;
    };
    const feed = createEtaxClient({ apiKey: keys.test, baseUrl, fetch: counting });
    const items = [];
    for await (const item of paginate(feed, '/v1/revenueExpenses/taxInvoices',
      { query: { limit: 5 } })) items.push(item);
    expect(items).toEqual([]);
    expect(pages).toEqual([{ items: [], hasMore: false, nextCursor: expect.any(String) }]);
    expect(await unwrap(etax.GET('/v1/points'))).toMatchObject({ balance: expect.any(Number) });
  });
});

describe('a tax invoice', () => {
  it('is issued with a reference id, found by it, and downloaded as PDF bytes', async () => {
    const etax = client();
    const clientReferenceId = newReferenceId('order');
    const draft = invoiceBody() as TaxInvoiceDraft;
    const { issuanceKey } = await issueTaxInvoice(etax, { supplierKey: supplier.supplierKey,
      clientReferenceId, draft });
    const status = await pollUntil(() => issueStatus(etax, clientReferenceId),
      (seen) => seen?.status === 'TRANSMITTED');
    expect(status).toMatchObject({ issuanceKey, status: 'TRANSMITTED' });
    const pdf = await downloadTaxInvoicePdf(etax, issuanceKey);
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(await issueStatus(etax, newReferenceId('never-sent'))).toBeNull();
  });

  it('is recovered by its reference id when the answer to the issue is lost', async () => {
    // The request reaches the server, which issues; the answer never reaches the client.
    const losing = async (request: Request) => {
      const response = await fetch(request);
      if (request.url.endsWith('/v1/taxInvoices/issue')) throw new TypeError('socket hang up');
      return response;
    };
    const etax = client({ fetch: losing });
    const clientReferenceId = newReferenceId('order');
    const { issuanceKey } = await issueTaxInvoice(etax, { supplierKey: supplier.supplierKey,
      clientReferenceId, draft: invoiceBody() as TaxInvoiceDraft });
    const invoice = await unwrap(etax.GET('/v1/taxInvoices/{issuanceKey}',
      { params: { path: { issuanceKey } } }));
    expect(invoice.issuanceKey).toBe(issuanceKey);
    const listed = await unwrap(etax.GET('/v1/taxInvoices/issue/status',
      { params: { query: { clientReferenceId } } }));
    expect(listed.issuanceKeys).toEqual([issuanceKey]);
  });
});

describe('a bulk of tax invoices', () => {
  it('is sent again with its reference id when the answer is lost, and acts once', async () => {
    let lost = 0;
    const losing = async (request: Request) => {
      const response = await fetch(request);
      if (request.url.endsWith('/v1/taxInvoices:bulkIssue') && lost === 0) {
        lost += 1;
        throw new TypeError('socket hang up');
      }
      return response;
    };
    const etax = client({ fetch: losing });
    const items = [0, 1].map(() => ({ clientReferenceId: newReferenceId('order'),
      supplierKey: supplier.supplierKey, document: invoiceBody() }));
    const accepted = await bulkIssueTaxInvoices(etax, {
      clientReferenceId: newReferenceId('bulk'), items });
    expect(lost).toBe(1);
    expect(accepted.acceptedCount).toBe(2);
    const bulk = await getTaxInvoiceBulk(etax, accepted.bulkId);
    expect(bulk.items.map((item) => item.issuanceKey))
      .toEqual(accepted.items.map((item) => item.issuanceKey));
    const { rows } = await app.platform.database.pool.query(
      'select count(*)::int as count from tax_invoices where client_reference_id = any($1)',
      [items.map((item) => item.clientReferenceId)]);
    expect(rows[0].count).toBe(2);
  });
});
