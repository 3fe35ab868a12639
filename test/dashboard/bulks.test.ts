import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { receiptBody } from '../api/cash-receipts/helpers.ts';
import {
  createSupplierAccount, invoiceBody, request, type SupplierAccount,
} from '../api/tax-invoices/helpers.ts';
import { createUser, signIn, type Browser } from './helpers.ts';

// The bulks page: the bulks of the session's account and environment, both kinds, read through
// the areas' bulk services (the same answers as GET /v1/…/bulks); one bulk with each item's
// outcome; test and live apart, another account's bulk by URL 404, hostile strings as text.

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
// As the page writes it: `<` escaped, so no tag opens.
const ESCAPED = '&lt;script>alert(1)&lt;/script>';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ jobs: true });
});
afterAll(async () => {
  await app?.close();
});

async function viewerOf(account: SupplierAccount): Promise<Browser> {
  const user = await createUser(app, account.accountId, 'viewer');
  return signIn(app, user.email);
}

async function bulkIssue(key: string, resource: 'taxInvoices' | 'cashReceipts',
  items: unknown[], reference = `${HOSTILE}-${randomUUID()}`) {
  const response = await app.server.inject(request(key, 'POST', `/v1/${resource}:bulkIssue`,
    { body: { items }, headers: { 'service-client-reference-id': reference } }));
  expect(response.statusCode, response.body).toBe(202);
  return response.json() as { bulkId: string; items: Array<{ issuanceKey: string | null }> };
}

describe('bulks pages', () => {
  it('lists both kinds of the session\'s environment, and shows one bulk\'s items as text',
    async () => {
    const account = await createSupplierAccount(app, 'Bulks page');
    const supplierKey = account.supplier.supplierKey;
    const invoices = await bulkIssue(account.key, 'taxInvoices', [
      { clientReferenceId: `${HOSTILE}-item`, supplierKey, document: invoiceBody() },
      { supplierKey, document: invoiceBody({ supplied: { ...invoiceBody().supplied,
        identificationNumber: '1234567890' } }) },
    ]);
    const receipts = await bulkIssue(account.key, 'cashReceipts', [
      { clientReferenceId: `receipt-${randomUUID()}`, supplierKey, document: receiptBody() },
    ]);
    const live = await bulkIssue(account.liveKey, 'taxInvoices',
      [{ supplierKey, document: invoiceBody() }]);
    const browser = await viewerOf(account);

    const list = await browser.get('/dashboard/bulks');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(invoices.bulkId);
    expect(list.body).toContain(receipts.bulkId);
    expect(list.body).not.toContain(live.bulkId);
    expect(list.body).toContain(ESCAPED);
    expect(list.body).not.toContain('<script>alert(1)');
    expect(list.body).not.toContain('<img src=x');
    // The counts are the service's: the accepted invoice in its state now.
    const api = await app.server.inject(request(account.key, 'GET',
      `/v1/taxInvoices/bulks/${invoices.bulkId}`));
    const counted = Object.entries(api.json().counts as Record<string, number>)
      .filter(([, count]) => count > 0);
    expect(counted).toHaveLength(1);

    const detail = await browser.get(`/dashboard/bulks/${invoices.bulkId}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain(
      `href="/dashboard/tax-invoices/${invoices.items[0]!.issuanceKey}"`);
    expect(detail.body).toContain('INVALID_BUSINESS_REGISTRATION_NUMBER');
    expect(detail.body).toContain(`${ESCAPED}&quot;>&lt;img src=x onerror=alert(2)>-item`);
    expect(detail.body).not.toContain('<script>alert(1)');
    const receipt = await browser.get(`/dashboard/bulks/${receipts.bulkId}`);
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toContain(
      `href="/dashboard/cash-receipts/${receipts.items[0]!.issuanceKey}"`);

    // In live, the live bulk and not the test ones; a test bulk by URL is 404 there.
    await browser.post('/dashboard/environment', { environment: 'live',
      return: '/dashboard/bulks' });
    const inLive = await browser.get('/dashboard/bulks');
    expect(inLive.body).toContain(live.bulkId);
    expect(inLive.body).not.toContain(invoices.bulkId);
    expect((await browser.get(`/dashboard/bulks/${invoices.bulkId}`)).statusCode).toBe(404);
    expect((await browser.get(`/dashboard/bulks/${live.bulkId}`)).statusCode).toBe(200);
  }, 180_000);

  it('answers 404 for another account\'s bulk and for an id that is none, 400 for a bad ' +
    'cursor', async () => {
    const owner = await createSupplierAccount(app, 'Bulk owner');
    const { bulkId } = await bulkIssue(owner.key, 'cashReceipts', [{
      clientReferenceId: `receipt-${randomUUID()}`, supplierKey: owner.supplier.supplierKey,
      document: receiptBody() }]);
    const other = await createSupplierAccount(app, 'Bulk stranger');
    const browser = await viewerOf(other);
    const foreign = await browser.get(`/dashboard/bulks/${bulkId}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain('<table');
    expect((await browser.get('/dashboard/bulks')).body).not.toContain(bulkId);
    for (const id of ['blk_doesNotExist', 'not-a-bulk', `${bulkId}%3Cscript%3E`]) {
      expect((await browser.get(`/dashboard/bulks/${id}`)).statusCode, id).toBe(404);
    }
    for (const query of ['taxInvoiceCursor=%3Cscript%3E', 'cashReceiptCursor=AAAAAAAAAAAA']) {
      const response = await browser.get(`/dashboard/bulks?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.body).not.toContain('<script>');
    }
  }, 120_000);

  it('pages each kind newest first, keeping the other kind\'s place', async () => {
    const account = await createSupplierAccount(app, 'Many bulks');
    const ids: string[] = [];
    for (let index = 0; index < 22; index += 1) {
      ids.push((await bulkIssue(account.key, 'cashReceipts', [{
        clientReferenceId: `receipt-${randomUUID()}`, supplierKey: account.supplier.supplierKey,
        document: receiptBody() }], `many-${index}-${randomUUID()}`)).bulkId);
    }
    const browser = await viewerOf(account);
    const first = await browser.get('/dashboard/bulks');
    expect(first.body).toContain(ids[21]);
    expect(first.body).toContain(ids[2]);
    expect(first.body).not.toContain(ids[1]);
    const more = /href="(\/dashboard\/bulks\?cashReceiptCursor=[^"]+)"/.exec(first.body)?.[1];
    expect(more).toBeDefined();
    const second = await browser.get(more!.replaceAll('&amp;', '&'));
    expect(second.statusCode).toBe(200);
    expect(second.body).toContain(ids[1]);
    expect(second.body).toContain(ids[0]);
    expect(second.body).not.toContain(ids[2]);
  }, 180_000);
});
