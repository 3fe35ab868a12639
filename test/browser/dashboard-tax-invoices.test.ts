// The dashboard's tax-invoice pages in a real browser: the system Chromium, driven by
// playwright-core, against a listening etax whose workers run. The journeys as a person makes
// them: issue a tax invoice from the form (the line editor computing the line's amounts) and
// watch it reach TRANSMITTED in the sandbox, download its PDF, amend it, approve a reverse
// issuance request, reload a filtered list and keep its filters, see hostile strings as text.
// Every page is checked at 390 and 1280 px: nothing scrolls sideways, a full-page screenshot is
// saved under a temporary folder (printed), and axe-core finds no serious or critical violation.
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage as checkPageIn, expectFailedLoad, launchChromium, openPage, screenshotFolder,
  signIn, startDashboardServer,
} from '../helpers/chromium.ts';
import type { TestApp } from '../helpers/app.ts';
import { PASSWORD, usersOf } from '../dashboard/helpers.ts';
import { PDF_FILE, PNG_FILE } from '../helpers/attachment-files.ts';
import {
  createSupplierAccount, invoiceBody, postWithSupplier, type SupplierAccount,
} from '../api/tax-invoices/helpers.ts';

const HOSTILE = '<img src=x onerror="window.__xss=1">';

let app: TestApp;
let browser: Browser;
let baseUrl: string;
let screenshots: string;
let account: SupplierAccount;
let page: Page;
let errors: string[] = [];

beforeAll(async () => {
  ({ app, baseUrl } = await startDashboardServer({
    env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' } }));
  browser = await launchChromium();
  screenshots = screenshotFolder('dashboard-tax-invoices');
  account = await createSupplierAccount(app, '브라우저 상회');
  const email = `tax-invoices-${Date.now()}@example.com`;
  await usersOf(app).createUser({ accountId: account.accountId, email, role: 'issuer',
    password: PASSWORD });
  ({ page, problems: errors } = await openPage(browser, { bypassCSP: true,
    acceptDownloads: true }));
  await signIn(page, baseUrl, email, PASSWORD);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const checkPage = (name: string) => checkPageIn(page, screenshots, name);

// Reloads the page until its status badge says `text`: the jobs move the document on.
async function waitForBadge(text: string) {
  for (let attempt = 0; attempt < 60; attempt += 1) {
    if (await page.locator('.facts .badge', { hasText: text }).count() > 0) return;
    await page.waitForTimeout(500);
    await page.reload();
  }
  throw new Error(`the document never showed ${text}`);
}

describe('tax invoices in Chromium', () => {
  let issuanceKey: string;

  it('issues from the form and watches the invoice reach TRANSMITTED', async () => {
    await page.goto(`${baseUrl}/dashboard/tax-invoices/new`);
    await page.fill('input[name="supplierEmail"]', 'tax@example.co.kr');
    await page.fill('input[name="recipient.number"]', '2208162517');
    await page.fill('input[name="recipient.name"]', HOSTILE);
    await page.fill('input[name="recipient.representative"]', '이영희');
    await page.fill('input[name="recipient.email"]', 'account@example.com');
    await page.fill('input[name="items.0.name"]', '클라우드 사용료');
    await page.fill('input[name="items.0.quantity"]', '3');
    await page.fill('input[name="items.0.unitPrice"]', '3333');
    // The line editor fills the supply cost and the tax as the API computes them.
    await expect.poll(() => page.inputValue('input[name="items.0.supplyCost"]')).toBe('9999');
    expect(await page.inputValue('input[name="items.0.tax"]')).toBe('1000');
    expect(await page.locator('[data-totals]').textContent()).toContain('10,999원');
    await page.click('button:has-text("줄 추가")');
    expect(await page.locator('input[name="items.3.name"]').count()).toBe(1);
    await checkPage('tax-invoice-new');
    await page.click('section[aria-labelledby="issue-form-title"] button[type="submit"].primary');
    await page.waitForSelector('section[aria-labelledby="preview-title"]');
    const preview = page.locator('section[aria-labelledby="preview-title"]');
    expect(await preview.textContent()).toContain('10,999원');
    await checkPage('tax-invoice-preview');
    await Promise.all([page.waitForURL(/\/dashboard\/tax-invoices\/txi_/),
      page.click('section[aria-labelledby="preview-title"] button[type="submit"]')]);
    issuanceKey = /txi_[A-Za-z0-9_-]+/.exec(page.url())![0];
    await waitForBadge('전송 완료');
    expect(await page.locator('.document').textContent()).toContain(HOSTILE);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss))
      .toBeUndefined();
    expect(await page.locator('ol.timeline').textContent()).toContain('국세청 전송 완료');
    await checkPage('tax-invoice-detail');
  });

  it('downloads its PDF', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'),
      page.click('a:has-text("PDF 내려받기")')]);
    const file = await download.path();
    expect(readFileSync(file!).subarray(0, 5).toString()).toBe('%PDF-');
    expect(download.suggestedFilename()).toBe(`${issuanceKey}.pdf`);
  });

  it('amends it, with a preview of the document first', async () => {
    await page.goto(
      `${baseUrl}/dashboard/tax-invoices/${issuanceKey}/amend?reason=SUPPLY_COST_CHANGE`);
    await page.fill('input[name="items.0.name"]', '단가 인하');
    await page.fill('input[name="items.0.supplyCost"]', '-1000');
    await expect.poll(() => page.inputValue('input[name="items.0.tax"]')).toBe('-100');
    await checkPage('tax-invoice-amend');
    await page.click('section[aria-labelledby="amend-form-title"] button[type="submit"]');
    await page.waitForSelector('section[aria-labelledby="preview-title"]');
    const preview = page.locator('section[aria-labelledby="preview-title"]');
    expect(await preview.textContent()).toContain('-1,100원');
    await Promise.all([page.waitForURL(/notice=taxInvoices.notice.amended/),
      page.click('section[aria-labelledby="preview-title"] button[type="submit"]')]);
    await waitForBadge('전송 완료');
    expect(await page.locator('.facts').textContent()).toContain(issuanceKey);
  });

  it('approves a reverse issuance request', async () => {
    const response = await postWithSupplier(app, account.key, '/v1/taxInvoices/issueRequest',
      { supplierKey: account.supplier.supplierKey, body: invoiceBody() });
    expect(response.statusCode, response.body).toBe(200);
    const requested = (response.json() as { issuanceKey: string }).issuanceKey;
    await page.goto(`${baseUrl}/dashboard/tax-invoices/requests`);
    await checkPage('tax-invoice-requests');
    const row = page.locator('tr', { hasText: '주식회사 받는곳' }).filter({
      has: page.locator(`form[action$="${requested}/approve"]`) });
    await Promise.all([page.waitForURL(/notice=taxInvoices.notice.approved/),
      row.locator('button:has-text("승인")').click()]);
    await waitForBadge('전송 완료');
  });

  it('attaches files to an open request, downloads one under its Korean name, deletes one',
    async () => {
      const response = await postWithSupplier(app, account.key, '/v1/taxInvoices/issueRequest',
        { supplierKey: account.supplier.supplierKey, body: invoiceBody() });
      expect(response.statusCode, response.body).toBe(200);
      const requested = (response.json() as { issuanceKey: string }).issuanceKey;
      await page.goto(`${baseUrl}/dashboard/tax-invoices/${requested}`);
      const section = page.locator('section[aria-labelledby="attachments-title"]');
      expect(await section.textContent()).toContain('첨부파일이 없습니다.');
      await section.locator('input[type="file"]').setInputFiles([
        { name: '거래명세서.pdf', mimeType: 'application/pdf', buffer: PDF_FILE },
        { name: `${HOSTILE}\u202Egnp.png`, mimeType: 'image/png', buffer: PNG_FILE },
      ]);
      await Promise.all([page.waitForURL(/notice=taxInvoices.notice.attached/),
        section.locator('button:has-text("첨부")').click()]);
      expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
      const links = section.locator('tbody a');
      const names = await links.allTextContents();
      expect(names[0]).toBe('거래명세서.pdf');
      // Shown as text, without the markup's brackets or the right-to-left override.
      expect(names[1]).toMatch(/^_img src=x onerror=.+window\.__xss=1.+_gnp\.png$/u);
      expect(names[1]).not.toContain('\u202E');
      await checkPage('tax-invoice-attachments');
      const [download] = await Promise.all([page.waitForEvent('download'),
        links.first().click()]);
      expect(download.suggestedFilename()).toBe('거래명세서.pdf');
      expect(readFileSync((await download.path())!).equals(PDF_FILE)).toBe(true);
      // A PNG named as a PDF is refused on the page, in Korean.
      await section.locator('input[type="file"]').setInputFiles([
        { name: 'fake.pdf', mimeType: 'application/pdf', buffer: PNG_FILE }]);
      await section.locator('button:has-text("첨부")').click();
      const refusal = 'section[aria-labelledby="actions-title"] .notice.error';
      await page.waitForSelector(refusal);
      expect(await page.locator(refusal).textContent())
        .toContain('첨부파일은 PDF, PNG, JPEG, XLSX 또는 DOCX 파일이어야');
      // The refusal page answers 415, which Chromium logs as a failed load: expected here.
      expectFailedLoad(errors, 415);
      await Promise.all([page.waitForURL(/notice=taxInvoices.notice.attachmentDeleted/),
        section.locator('tbody tr').nth(1).locator('button').click()]);
      expect(await section.locator('tbody a').allTextContents()).toEqual(['거래명세서.pdf']);
    });

  it('keeps a filtered list through a reload', async () => {
    await page.goto(`${baseUrl}/dashboard/tax-invoices`);
    await page.selectOption('select[name="status"]', 'TRANSMITTED');
    await page.selectOption('select[name="amendment"]', 'yes');
    await page.click('form.filters button[type="submit"]');
    await expect.poll(() => page.url()).toContain('status=TRANSMITTED');
    await page.reload();
    expect(page.url()).toContain('amendment=yes');
    expect(await page.inputValue('select[name="status"]')).toBe('TRANSMITTED');
    expect(await page.inputValue('select[name="amendment"]')).toBe('yes');
    expect(await page.locator('#tax-invoice-results tbody tr').count()).toBe(1);
    await checkPage('tax-invoices-filtered');
    await page.goto(`${baseUrl}/dashboard/tax-invoices`);
    await checkPage('tax-invoices');
    expect(errors).toEqual([]);
  });
});
