// The bulks page in a real browser (system Chromium via playwright-core): bulks of tax invoices
// and cash receipts sent through the API with hostile reference ids show on the list with their
// progress and document states; one bulk shows each item's outcome, the accepted ones linked to
// their document and the refused one with its error, every hostile string as text. Each state is
// checked at 390 and 1280 px (no sideways scroll, a screenshot, axe-core without serious or
// critical violations).
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage as checkPageIn, launchChromium, screenshotFolder, signedInMember, startDashboardServer,
} from '../helpers/chromium.ts';
import type { TestApp } from '../helpers/app.ts';
import { receiptBody } from '../api/cash-receipts/helpers.ts';
import {
  createSupplierAccount, invoiceBody, request, type SupplierAccount,
} from '../api/tax-invoices/helpers.ts';

const HOSTILE = '<img src=x onerror="window.__xss=1">';

let app: TestApp;
let browser: Browser;
let baseUrl: string;
let screenshots: string;
let account: SupplierAccount;
let errors: string[] = [];

// Every role reads the bulks page: a Viewer's is what everyone sees.
async function signedInPage(): Promise<Page> {
  const opened = await signedInMember(browser, { app, baseUrl },
    { accountId: account.accountId, role: 'viewer' }, { bypassCSP: true });
  errors = opened.problems;
  return opened.page;
}

const checkPage = (page: Page, name: string) => checkPageIn(page, screenshots, name);

async function bulkIssue(resource: 'taxInvoices' | 'cashReceipts', items: unknown[]) {
  const response = await app.server.inject(request(account.key, 'POST',
    `/v1/${resource}:bulkIssue`, { body: { items },
      headers: { 'service-client-reference-id': `${HOSTILE}-${randomUUID()}` } }));
  expect(response.statusCode, response.body).toBe(202);
  return response.json() as { bulkId: string };
}

beforeAll(async () => {
  ({ app, baseUrl } = await startDashboardServer({ env: {
    TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0', CASH_RECEIPT_SANDBOX_APPROVAL_DELAY_MS: '0' } }));
  browser = await launchChromium();
  screenshots = screenshotFolder('dashboard-bulks');
  account = await createSupplierAccount(app, '대량 발행 상회');
  await app.platform.points.grant({ accountId: account.accountId, environment: 'test',
    points: 100_000 });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('bulks in Chromium', () => {
  it('lists the bulks of both kinds and shows each item\'s outcome', async () => {
    const supplierKey = account.supplier.supplierKey;
    const invoices = await bulkIssue('taxInvoices', [
      { clientReferenceId: `${HOSTILE}-${randomUUID()}`, supplierKey,
        document: invoiceBody({ description: HOSTILE }) },
      { supplierKey, document: invoiceBody() },
      { clientReferenceId: `${HOSTILE}-${randomUUID()}`, supplierKey,
        document: invoiceBody({ supplied: { ...invoiceBody().supplied,
          identificationNumber: '1234567890' } }) },
    ]);
    const receipts = await bulkIssue('cashReceipts', [
      { clientReferenceId: `receipt-${randomUUID()}`, supplierKey, document: receiptBody() },
      { clientReferenceId: `receipt-${randomUUID()}`, supplierKey,
        document: receiptBody({ itemName: HOSTILE }) },
    ]);
    const page = await signedInPage();
    await page.goto(`${baseUrl}/dashboard/bulks`);
    const invoiceRow = page.locator('section[aria-labelledby="tax-invoice-bulks-title"] tr',
      { hasText: invoices.bulkId });
    expect(await invoiceRow.count()).toBe(1);
    // The bulk's hostile reference id is text, never markup.
    expect(await invoiceRow.locator('td').first().textContent()).toContain(HOSTILE);
    expect(await page.locator('section[aria-labelledby="cash-receipt-bulks-title"] tr',
      { hasText: receipts.bulkId }).count()).toBe(1);
    await checkPage(page, 'bulks');

    await Promise.all([page.waitForURL(`${baseUrl}/dashboard/bulks/${invoices.bulkId}`),
      invoiceRow.locator(`a[href="/dashboard/bulks/${invoices.bulkId}"]`).click()]);
    const items = page.locator('section[aria-labelledby="items-title"] tbody tr');
    expect(await items.count()).toBe(3);
    expect(await items.nth(0).locator('td').nth(1).textContent()).toContain(HOSTILE);
    expect(await items.nth(0).locator('a[href^="/dashboard/tax-invoices/txi_"]').count())
      .toBe(1);
    expect(await items.nth(1).locator('td').nth(1).textContent()).toBe('—');
    expect(await items.nth(2).textContent()).toContain('INVALID_BUSINESS_REGISTRATION_NUMBER');
    await checkPage(page, 'bulk-detail');

    await page.goto(`${baseUrl}/dashboard/bulks/${receipts.bulkId}`);
    expect(await page.locator('a[href^="/dashboard/cash-receipts/"]').count()).toBe(2);
    expect(errors).toEqual([]);
  }, 120_000);
});
