// Reading tax invoices: one by issuance key, the filtered and paged list, and the PDF, whose text
// is read back. Another scope's documents do not exist for the caller (404, never listed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractText, getDocumentProxy } from 'unpdf';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import {
  invoiceBody,
  issue,
  RECIPIENT_NUMBER,
  registerSupplier,
  request,
  type Supplier,
} from './helpers.ts';

let app: TestApp;
let key: string;
let supplier: Supplier;
const keys: string[] = [];

// Another recipient with a valid checksum.
const OTHER_RECIPIENT = '1048123454';

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
  key = (await app.createAccount()).keys.test;
  supplier = await registerSupplier(app, key);
  for (const recipient of [RECIPIENT_NUMBER, OTHER_RECIPIENT, RECIPIENT_NUMBER]) {
    const body = invoiceBody();
    const response = await issue(app, key, supplier.supplierKey, { ...body,
      supplied: { ...body.supplied, identificationNumber: recipient } });
    keys.push((response.json() as { issuanceKey: string }).issuanceKey);
  }
  await app.server.inject(request(key, 'POST', `/v1/taxInvoices/${keys[2]}/cancel`));
});
afterAll(async () => {
  await app?.close();
});

type Page = { taxInvoices: { issuanceKey: string; status: string }[]; nextCursor: string | null };

async function list(query: string): Promise<Page> {
  const response = await app.server.inject(request(key, 'GET', `/v1/taxInvoices${query}`));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Page;
}

const keysOf = (page: Page) => page.taxInvoices.map((invoice) => invoice.issuanceKey);

describe('GET /v1/taxInvoices/{issuanceKey}', () => {
  it('returns the document with its status, approval number, issue time and invoice', async () => {
    const response = await app.server.inject(request(key, 'GET', `/v1/taxInvoices/${keys[0]}`));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      issuanceKey: keys[0], status: 'PENDING', ntsTransactionId: null, issuedAt: null,
      invoice: { purpose: 'CLAIM',
        supplier: { identificationNumber: supplier.identificationNumber },
        supplied: { identificationNumber: RECIPIENT_NUMBER } },
      issuerId: supplier.issuerId, amendment: null, failure: null,
      totals: { supplyCost: 200_000, tax: 20_000, total: 220_000 },
    });
  });

  it.each([
    ['an unknown key', 'txi_doesNotExist', 404, 'NOT_FOUND'],
    ['a key with a slash', 'txi%2F..%2Fx', 400, 'INVALID_REQUEST'],
    ['a key with SQL', "txi'%20or%201=1--", 400, 'INVALID_REQUEST'],
  ])('answers %s with %i', async (_case, issuanceKey, status, code) => {
    expectError(await app.server.inject(request(key, 'GET', `/v1/taxInvoices/${issuanceKey}`)),
      status, code);
  });

  it('hides the document from another account and from the other environment', async () => {
    const other = await app.createAccount();
    for (const stranger of [other.keys.test, other.keys.live]) {
      expectError(await app.server.inject(request(stranger, 'GET',
        `/v1/taxInvoices/${keys[0]}`)), 404, 'NOT_FOUND');
      expect(keysOf(await listWith(stranger))).toEqual([]);
    }
  });
});

async function listWith(apiKey: string): Promise<Page> {
  const response = await app.server.inject(request(apiKey, 'GET', '/v1/taxInvoices'));
  return response.json() as Page;
}

describe('GET /v1/taxInvoices', () => {
  it('lists every document in the order made', async () => {
    expect(keysOf(await list(''))).toEqual(keys);
  });

  it('pages with an opaque cursor', async () => {
    const first = await list('?limit=2');
    expect(keysOf(first)).toEqual(keys.slice(0, 2));
    const second = await list(`?limit=2&cursor=${first.nextCursor}`);
    expect(keysOf(second)).toEqual(keys.slice(2));
    expect(second.nextCursor).toBeNull();
  });

  it('filters by status, recipient, supplier and write date', async () => {
    expect(keysOf(await list('?status=CANCELED'))).toEqual([keys[2]]);
    expect(keysOf(await list('?status=PENDING&status=CANCELED'))).toEqual(keys);
    expect(keysOf(await list(`?counterpartNumber=${OTHER_RECIPIENT}`))).toEqual([keys[1]]);
    expect(keysOf(await list(`?issuerId=${supplier.issuerId}&status=PENDING`)))
      .toEqual(keys.slice(0, 2));
    const date = invoiceBody().date;
    expect(keysOf(await list(`?writeDateFrom=${date}&writeDateTo=${date}`))).toEqual(keys);
    expect(keysOf(await list('?writeDateTo=2000-01-01'))).toEqual([]);
  });

  it.each([
    ['a cursor this service did not write', '?cursor=bm90LWEtY3Vyc29y'],
    ['an unknown status', '?status=LOST'],
    ['a 9-digit recipient', '?counterpartNumber=123456789'],
    ['a malformed date', '?writeDateFrom=2026-13-40'],
    ['a limit of 0', '?limit=0'],
    ['a limit of 101', '?limit=101'],
    ['an unknown parameter', '?sort=desc'],
  ])('answers 400 INVALID_REQUEST for %s', async (_case, query) => {
    expectError(await app.server.inject(request(key, 'GET', `/v1/taxInvoices${query}`)), 400,
      'INVALID_REQUEST');
  });
});

describe('GET /v1/taxInvoices/{issuanceKey}/pdf', () => {
  it('renders the invoice as a PDF whose text reads back', async () => {
    const response = await app.server.inject(request(key, 'GET',
      `/v1/taxInvoices/${keys[0]}/pdf`));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const pdf = await getDocumentProxy(new Uint8Array(response.rawPayload));
    const { text } = await extractText(pdf, { mergePages: true });
    for (const expected of ['전자세금계산서', '주식회사 이택스', '주식회사 받는곳', '123-45-67891',
      '220-81-62517', '클라우드 사용료', '200,000', '20,000', '220,000', 'SANDBOX']) {
      expect(text).toContain(expected);
    }
  });

  it('answers 404 NOT_FOUND for another account\'s invoice', async () => {
    const other = await app.createAccount();
    expectError(await app.server.inject(request(other.keys.test, 'GET',
      `/v1/taxInvoices/${keys[0]}/pdf`)), 404, 'NOT_FOUND');
  });
});

describe('GET /v1/taxInvoiceIssueDueDates', () => {
  it.each([
    ['2026-11-20', '2026-12-10', '2027-01-25'],
    ['2026-09-15', '2026-10-12', '2027-01-25'],
    ['2026-12-31', '2027-01-11', '2027-01-25'],
    ['2026-06-15', '2026-07-10', '2026-07-27'],
  ])('gives the deadline of %s as %s and its late-issuance limit as %s',
    async (date, issueDueDate, lateIssuanceLimit) => {
      const response = await app.server.inject(request(key, 'GET',
        `/v1/taxInvoiceIssueDueDates?date=${date}`));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ issueDueDate, lateIssuanceLimit });
    });

  it('has no late-issuance limit for the second half of 9999, whose return is due in 10000',
    async () => {
      const response = await app.server.inject(request(key, 'GET',
        '/v1/taxInvoiceIssueDueDates?date=9999-11-30'));
      expect(response.json()).toMatchObject({ lateIssuanceLimit: null });
    });

  it.each(['0001-01-01', '9999-11-30'])('gives a deadline for %s, an edge of the range',
    async (date) => {
      const response = await app.server.inject(request(key, 'GET',
        `/v1/taxInvoiceIssueDueDates?date=${date}`));
      expect(response.statusCode).toBe(200);
      expect(response.json().issueDueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    });

  it.each(['9999-12-01', '9999-12-31'])(
    'answers 400 INVALID_REQUEST naming the range for %s, whose deadline is past 9999',
    async (date) => {
      const response = await app.server.inject(request(key, 'GET',
        `/v1/taxInvoiceIssueDueDates?date=${date}`));
      expectError(response, 400, 'INVALID_REQUEST');
      expect(response.json().message).toContain('9999-11-30');
    });

  it('answers 400 INVALID_REQUEST for a date that is not one', async () => {
    expectError(await app.server.inject(request(key, 'GET',
      '/v1/taxInvoiceIssueDueDates?date=2026-02-30')), 400, 'INVALID_REQUEST');
  });
});
