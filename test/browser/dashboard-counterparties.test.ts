// The counterparties page and the invoice upload page in a real browser (the system Chromium,
// driven by playwright-core) against a listening etax: import counterparties from an xlsx file
// whose bad row the preview marks, add the rest, check a closed counterparty's status and see it
// flagged; upload an invoice xlsx with a bad cell, see the cell's error, issue the other rows.
// Hostile strings in every shown field are text and run nothing. Every page is checked at 390
// and 1280 px (no sideways scrolling, a full-page screenshot saved under a printed folder) and by
// axe-core (no serious or critical violation).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_STATUS_NUMBERS as N } from '../../src/upstream/tax-authority/sandbox.ts';
import {
  checkPage as checkPageIn, launchChromium, openPage, screenshotFolder, signIn,
  startDashboardServer,
} from '../helpers/chromium.ts';
import type { TestApp } from '../helpers/app.ts';
import { PASSWORD, usersOf } from '../dashboard/helpers.ts';
import { registerSupplier, today } from '../api/tax-invoices/helpers.ts';
import { workbookOf } from '../api/counterparties/helpers.ts';

const HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

let app: TestApp;
let browser: Browser;
let baseUrl: string;
let screenshots: string;

beforeAll(async () => {
  ({ app, baseUrl } = await startDashboardServer());
  browser = await launchChromium();
  screenshots = screenshotFolder('dashboard-counterparties');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

let users = 0;
async function signedInPage(accountId: string) {
  const email = `parties${++users}-${Date.now()}@example.com`;
  await usersOf(app).createUser({ accountId, email, role: 'owner', password: PASSWORD });
  const { page } = await openPage(browser, { acceptDownloads: true });
  await signIn(page, baseUrl, email, PASSWORD);
  return page;
}

const checkPage = (page: Page, name: string) => checkPageIn(page, screenshots, name);

describe('the counterparties page', () => {
  it('imports an xlsx file with a bad row marked, then checks and flags a closed one', async () => {
    const { accountId } = await app.createAccount();
    const page = await signedInPage(accountId);
    await page.goto(`${baseUrl}/dashboard/counterparties`);
    await checkPage(page, 'counterparties-empty');

    const file = await workbookOf([
      ['사업자등록번호', '상호', '대표자명', '담당자 이메일', '메모'],
      [N.closed, '폐업한 상회', '김폐업', 'closed@example.com', HOSTILE],
      ['123-45-67890', '번호가 틀린 곳', '박오류', 'bad@example.com', ''],
      ['220-81-62517', HOSTILE, HOSTILE.slice(0, 50), 'ok@example.com', ''],
    ]);
    await page.setInputFiles('input[name="file"]', { name: 'counterparties.xlsx',
      mimeType: XLSX, buffer: file });
    await Promise.all([page.waitForURL(`${baseUrl}/dashboard/counterparties/import`),
      page.click('#import-title ~ form button[type="submit"]')]);
    const badCell = page.locator(
      'tr[data-row="3"] td.bad-cell[data-column="businessRegistrationNumber"]');
    await expect(badCell.count()).resolves.toBe(1);
    await expect(page.locator('tr.invalid').count()).resolves.toBe(1);
    expect(await page.locator('tr[data-row="4"] td[data-column="organizationName"]').textContent())
      .toBe(HOSTILE);
    await checkPage(page, 'counterparties-preview');

    await Promise.all([page.waitForURL(/notice=counterparties.imported/),
      page.click('#preview-title ~ form button[type="submit"]')]);
    await expect(page.locator('table.cards tbody tr').count()).resolves.toBe(2);
    await checkPage(page, 'counterparties-list');

    // Searching by number, then checking the closed business's status.
    await page.fill('input[name="number"]', N.closed.slice(0, 6));
    await Promise.all([page.waitForURL(/number=/), page.click('form.filters button')]);
    await expect(page.locator('table.cards tbody tr').count()).resolves.toBe(1);
    await Promise.all([page.waitForURL(/\/dashboard\/counterparties\/cpt_/),
      page.click('table.cards tbody a')]);
    await Promise.all([page.waitForURL(/notice=counterparties.checked/),
      page.click('#counterparty-title ~ form button[type="submit"]')]);
    expect(await page.locator('.notice.error').first().textContent()).toContain('2024-06-30');
    await checkPage(page, 'counterparty-closed');
    await page.goto(`${baseUrl}/dashboard/counterparties?closed=true`);
    await expect(page.locator('table.cards tbody tr.flagged').count()).resolves.toBe(1);
  }, 120_000);
});

describe('the invoice upload page', () => {
  it('marks a bad cell, then issues the other rows as one bulk', async () => {
    const account = await app.createAccount();
    await registerSupplier(app, account.keys.test);
    const page = await signedInPage(account.accountId);
    await page.goto(`${baseUrl}/dashboard/invoice-upload`);
    await checkPage(page, 'upload-start');
    const date = today();
    const file = await workbookOf([
      ['작성일자', '영수/청구', '공급받는자 등록번호', '상호', '대표자', '담당자 이메일', '품목',
        '공급가액', '세액', '비고'],
      [date, '청구', '220-81-62517', HOSTILE, '이영희', 'a@example.com', '컨설팅', 100000, '',
        HOSTILE.slice(0, 60)],
      [date, '영수', '2208162517', '주식회사 둘', '박둘', 'not an email', '유지보수', 50000, 5000, ''],
      [date, '청구', '2208162517', '주식회사 셋', '최셋', 'c@example.com', HOSTILE, 20000, 2000, ''],
    ]);
    await page.fill('input[name="supplierEmail"]', 'supplier@example.co.kr');
    await page.setInputFiles('input[name="file"]', { name: 'invoices.xlsx', mimeType: XLSX,
      buffer: file });
    await Promise.all([page.waitForURL(`${baseUrl}/dashboard/invoice-upload/preview`),
      page.click('#upload-title ~ form button[type="submit"]')]);
    await expect(page.locator('tr[data-row="3"] td.bad-cell[data-column="recipientEmail"]')
      .count()).resolves.toBe(1);
    await expect(page.locator('tr.invalid').count()).resolves.toBe(1);
    expect(await page.locator('tr[data-row="2"] td[data-column="recipientName"]').textContent())
      .toBe(HOSTILE);
    await checkPage(page, 'upload-preview');

    const confirmation = Object.fromEntries(await Promise.all(['_csrf', 'payload', 'signature']
      .map(async (name) => [name, await page.locator(`#preview-title ~ form input[name="${name}"]`)
        .getAttribute('value') ?? ''])));
    await Promise.all([page.waitForURL(`${baseUrl}/dashboard/invoice-upload/issue`),
      page.click('#preview-title ~ form button[type="submit"]')]);
    expect(await page.locator('.notice').first().textContent()).toMatch(/2/);
    await expect(page.locator('#result-title ~ div a').count()).resolves.toBe(2);
    await checkPage(page, 'upload-result');
    // The same confirmation sent again answers the same bulk and issues nothing more; a payload
    // changed after its signature is refused.
    const again = await page.request.post(`${baseUrl}/dashboard/invoice-upload/issue`,
      { multipart: confirmation, headers: { origin: baseUrl } });
    expect(again.status()).toBe(200);
    expect(await again.text()).toContain('#result-title'.slice(1));
    expect(confirmation.payload).toContain('100000');
    const forged = await page.request.post(`${baseUrl}/dashboard/invoice-upload/issue`,
      { multipart: { ...confirmation, payload: confirmation.payload!.replace('100000', '5') },
        headers: { origin: baseUrl } });
    expect(forged.status()).toBe(400);
    const listed = await app.taxInvoices.service.list({ scope: { accountId: account.accountId,
      environment: 'test' }, limit: 100, filters: {} });
    expect(listed.taxInvoices).toHaveLength(2);
  }, 120_000);
});
