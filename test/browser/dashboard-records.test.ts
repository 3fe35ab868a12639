// The cash receipts, documents, books and bank transactions pages of the dashboard in a real
// browser: the system Chromium, driven by playwright-core, against a listening etax whose
// workers run. The journeys as a person makes them: issue a cash receipt from the form and
// partly cancel it; request a document and download its PDF; connect the account's own tax
// portal and a bank account in the sandbox, collect and sync from the pages, and see the books
// and the transactions fill. Hostile strings in every field the user types are shown as text and
// run nothing. Every page is checked at 390 and 1280 px: nothing scrolls sideways, a full-page
// screenshot is saved under a temporary folder (printed), and axe-core finds no serious or
// critical violation.
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage as checkPageIn, HEIGHT, launchChromium, openPage, screenshotFolder, signIn,
  startDashboardServer, WIDTHS,
} from '../helpers/chromium.ts';
import type { TestApp } from '../helpers/app.ts';
import { PASSWORD, usersOf } from '../dashboard/helpers.ts';
import { registerSupplier } from '../api/tax-invoices/helpers.ts';
import { createOwnerAccount } from '../api/documents/helpers.ts';
import { connectHometax, monthsAgo } from '../api/revenue-expenses/helpers.ts';
import { connectBankAccount } from '../api/bank-transactions/helpers.ts';

// Runs if anything a user typed were taken as markup: the journeys check it never did.
const HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
const OWN_NUMBER = '1234567891';
// The section of a page whose heading has this id.
const section = (id: string) => `[aria-labelledby="${id}-title"]`;

let app: TestApp;
let browser: Browser;
let baseUrl: string;
let screenshots: string;

beforeAll(async () => {
  ({ app, baseUrl } = await startDashboardServer({ env: {
    CASH_RECEIPT_SANDBOX_APPROVAL_DELAY_MS: '0', DOCUMENTS_SANDBOX_LATENCY_MS: '0' } }));
  browser = await launchChromium();
  screenshots = screenshotFolder('dashboard-records');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

let users = 0;
async function signedInPage(accountId: string) {
  const email = `records${++users}-${Date.now()}@example.com`;
  await usersOf(app).createUser({ accountId, email, role: 'owner', password: PASSWORD });
  const { page, problems } = await openPage(browser, { bypassCSP: true,
    acceptDownloads: true });
  await signIn(page, baseUrl, email, PASSWORD);
  return Object.assign(page, { consoleErrors: problems });
}

// At each width: no sideways scrolling, a screenshot; then axe's serious and critical findings,
// and no script that a hostile value could have run.
const checkPage = (page: Page, name: string) => checkPageIn(page, screenshots, name);

// Reloads until the page shows `text` (a status reached by a worker).
async function reloadUntil(page: Page, text: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await page.content()).includes(text)) return;
    if (Date.now() > deadline) throw new Error(`the page never showed ${text}`);
    await page.waitForTimeout(300);
    await page.reload();
  }
}

// Reloads while the page shows `text` (a state a worker moves on from).
async function reloadWhile(page: Page, text: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while ((await page.content()).includes(text)) {
    if (Date.now() > deadline) throw new Error(`the page kept showing ${text}`);
    await page.waitForTimeout(300);
    await page.reload();
  }
}

async function download(page: Page, selector: string) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const stream = await file.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return { name: file.suggestedFilename(), body: Buffer.concat(chunks) };
}

describe('issuing and records pages in Chromium', () => {
  it('issues a cash receipt from the form and partly cancels it', async () => {
    const account = await app.createAccount({ name: '현금 상회' });
    await registerSupplier(app, account.keys.test, { certificate: false,
      organizationName: `가맹점 ${HOSTILE}` });
    const page = await signedInPage(account.accountId);
    await page.goto(`${baseUrl}/dashboard/cash-receipts`);
    await checkPage(page, 'cash-receipts-empty');
    await page.click('a[href="/dashboard/cash-receipts/new"]');
    await page.fill('input[name="identityNumber"]', '010-1234-5678');
    await page.fill('input[name="supplyCost"]', '10,000');
    await page.fill('input[name="tax"]', '1,000');
    await page.fill('input[name="serviceFee"]', '0');
    await page.fill('input[name="totalAmount"]', '11,000');
    await page.fill('input[name="itemName"]', `아메리카노 ${HOSTILE}`);
    await page.fill('input[name="customerName"]', HOSTILE.slice(0, 50));
    await checkPage(page, 'cash-receipt-new');
    await Promise.all([page.waitForURL(/\/dashboard\/cash-receipts\/csr_/),
      page.click('[aria-labelledby="issue-title"] button[type="submit"]')]);
    const receiptUrl = page.url().split('?')[0]!;
    await reloadUntil(page, '취소 (전부 또는 일부)');
    expect(await page.locator(section('receipt')).textContent()).toContain(`아메리카노 ${HOSTILE}`);
    await checkPage(page, 'cash-receipt');
    const pdf = await download(page, 'a[href$="/pdf"]');
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    await page.fill('[aria-labelledby="cancel-title"] input[name="supplyCost"]', '5000');
    await page.fill('[aria-labelledby="cancel-title"] input[name="tax"]', '500');
    await page.fill('[aria-labelledby="cancel-title"] input[name="serviceFee"]', '0');
    await page.fill('[aria-labelledby="cancel-title"] input[name="totalAmount"]', '5500');
    await Promise.all([page.waitForURL((url) => url.pathname !== new URL(receiptUrl).pathname),
      page.click('[aria-labelledby="cancel-title"] button[type="submit"]')]);
    await checkPage(page, 'cash-receipt-cancellation');
    await page.goto(receiptUrl);
    expect(await page.locator(section('receipt')).textContent()).toContain('5,500원');
    await page.goto(`${baseUrl}/dashboard/cash-receipts`);
    expect(await page.locator('#receipts tbody tr').count()).toBe(2);
    await checkPage(page, 'cash-receipts');
    expect(page.consoleErrors).toEqual([]);
  });

  it('requests a document with its options and downloads the original PDF', async () => {
    const owner = await createOwnerAccount(app, { points: 10_000 });
    const page = await signedInPage(owner.accountId);
    await page.goto(`${baseUrl}/dashboard/documents`);
    await checkPage(page, 'documents');
    await page.click('a[href="/dashboard/documents/new?type=BUSINESS_REGISTRATION_CERTIFICATE"]');
    expect(await page.locator(section('request-form')).textContent()).toContain('가격: 500 P');
    await page.selectOption('select[name="language"]', 'EN');
    await page.fill('input[name="purpose"]', HOSTILE.slice(0, 100));
    await checkPage(page, 'document-request');
    await Promise.all([page.waitForURL(/\/dashboard\/documents\/doc_/),
      page.click('[aria-labelledby="request-form-title"] button[type="submit"]')]);
    await reloadUntil(page, '원본 PDF 내려받기');
    expect(await page.locator(section('document')).textContent()).toContain(HOSTILE.slice(0, 100));
    await checkPage(page, 'document');
    const pdf = await download(page, '[aria-labelledby="document-title"] a[href$="/pdf"]');
    expect(pdf.name).toMatch(/^doc_.*\.pdf$/);
    expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
    expect(page.consoleErrors).toEqual([]);
  });

  it('collects the books and syncs a bank account from the pages, and shows them filled',
    async () => {
      const account = await app.createAccount({ name: '장부 상회' });
      await registerSupplier(app, account.keys.test, { identificationNumber: OWN_NUMBER,
        certificate: false });
      await connectHometax(app, account.keys.test, OWN_NUMBER);
      const bank = await connectBankAccount(app, account.keys.test, '004', '110-123-456789');
      const page = await signedInPage(account.accountId);
      const month = monthsAgo(1);
      await page.goto(`${baseUrl}/dashboard/books?year=${month.slice(0, 4)}`);
      await page.fill('input[name="from"]', month);
      await page.fill('input[name="to"]', month);
      await Promise.all([page.waitForURL(/notice=books\.collection/),
        page.click('[aria-labelledby="collections-title"] button[type="submit"]')]);
      await page.goto(`${baseUrl}/dashboard/books?year=${month.slice(0, 4)}`);
      await reloadUntil(page, '/dashboard/books/entries?');
      await checkPage(page, 'books');
      await page.click('#months a[href*="/dashboard/books/entries?"]');
      expect(await page.locator('table tbody tr').count()).toBeGreaterThan(0);
      await checkPage(page, 'books-entries');
      await page.goto(`${baseUrl}/dashboard/bank-transactions`);
      await Promise.all([page.waitForURL(/notice=bank\.sync/),
        page.click(`form[action$="/${bank.bankAccountId}/sync"] button`)]);
      await reloadWhile(page, '아직 없음');
      await checkPage(page, 'bank-accounts');
      await page.click(`a[href="/dashboard/bank-transactions/${bank.bankAccountId}"]`);
      await checkPage(page, 'bank-account');
      // A month holds hundreds of transactions: the top of the page, for the guide.
      await page.setViewportSize({ width: WIDTHS[1], height: HEIGHT });
      writeFileSync(path.join(screenshots, `bank-account-top-${WIDTHS[1]}.png`),
        await page.screenshot());
      expect(await page.locator('#flows tbody tr').count()).toBe(12);
      const csv = await download(page, 'a[href*="/export.csv"]');
      expect(csv.body.toString('utf8')).toMatch(/^\uFEFFbookedAt,direction,amount/);
      expect(page.consoleErrors).toEqual([]);
    });
});
