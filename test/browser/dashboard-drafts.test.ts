// The drafts page in a real browser (system Chromium via playwright-core): a draft an API key
// submitted for approval waits on the page; an Admin sets the approval setting, approves the
// draft and sees it issued; another is sent back with a reason and is editable again; a Viewer
// sees no action and is refused one posted anyway. Hostile strings in every field shown come
// back as text. Each state is checked at 390 and 1280 px (no sideways scroll, a screenshot,
// axe-core without serious or critical violations).
import 'reflect-metadata';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage as checkPageIn, launchChromium, openPage, screenshotFolder, signIn,
  startDashboardServer,
} from '../helpers/chromium.ts';
import type { TestApp } from '../helpers/app.ts';
import { PASSWORD, usersOf } from '../dashboard/helpers.ts';
import {
  createSupplierAccount, invoiceBody, request, type SupplierAccount,
} from '../api/tax-invoices/helpers.ts';

const HOSTILE = '<img src=x onerror="window.__xss=1">';

let app: TestApp;
let browser: Browser;
let baseUrl: string;
let screenshots: string;
let account: SupplierAccount;
const rowsOf = (page: Page, section: string, text: string) =>
  page.locator(`section[aria-labelledby="${section}-title"] tr`, { hasText: text });

async function signedInPage(role: 'admin' | 'viewer') {
  const email = `drafts-${role}-${Date.now()}@example.com`;
  await usersOf(app).createUser({ accountId: account.accountId, email, role,
    password: PASSWORD });
  const { page, problems } = await openPage(browser, { bypassCSP: true });
  await signIn(page, baseUrl, email, PASSWORD);
  return { page, problems };
}

const checkPage = (page: Page, name: string) => checkPageIn(page, screenshots, name);

// A draft the API key saves and asks to issue: submitted, as the account requires approval.
async function submittedDraft(description: string): Promise<string> {
  const saved = await app.server.inject(request(account.key, 'POST', '/v1/taxInvoices/drafts', {
    body: invoiceBody({ description, supplied: { ...invoiceBody().supplied,
      organizationName: HOSTILE } }),
    headers: { 'supplier-key': account.supplier.supplierKey } }));
  expect(saved.statusCode, saved.body).toBe(201);
  const draftId = (saved.json() as { draftId: string }).draftId;
  const issued = await app.server.inject(request(account.key, 'POST',
    `/v1/taxInvoices/drafts/${draftId}:issue`,
    { headers: { 'service-client-reference-id': `browser-${draftId}` } }));
  expect(issued.statusCode, issued.body).toBe(403);
  return draftId;
}

beforeAll(async () => {
  ({ app, baseUrl } = await startDashboardServer());
  browser = await launchChromium();
  screenshots = screenshotFolder('dashboard-drafts');
  account = await createSupplierAccount(app, '임시저장 상회');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('drafts in Chromium', () => {
  it('an Admin requires approval, approves a submitted draft and sees it issued', async () => {
    const { page, problems } = await signedInPage('admin');
    await page.goto(`${baseUrl}/dashboard/drafts`);
    await page.check('input[name="approvalRequired"][value="true"]');
    await Promise.all([page.waitForURL(/notice=drafts\.approvalSaved/),
      page.click('section[aria-labelledby="approval-title"] button[type="submit"]')]);
    const draftId = await submittedDraft(HOSTILE);
    await page.goto(`${baseUrl}/dashboard/drafts`);
    const row = rowsOf(page, 'waiting', draftId);
    expect(await row.count()).toBe(1);
    // Hostile strings are text, never markup.
    expect(await row.locator('td').nth(1).textContent()).toBe(HOSTILE);
    expect(await row.locator('td').nth(2).textContent()).toBe(HOSTILE);
    await checkPage(page, 'drafts-waiting');
    await Promise.all([page.waitForURL(/notice=drafts\.approved/),
      row.locator('button:has-text("승인하고 발행")').click()]);
    const issuedRow = rowsOf(page, 'issued', draftId);
    expect(await issuedRow.count()).toBe(1);
    expect(await issuedRow.locator('a[href^="/dashboard/tax-invoices/txi_"]').count()).toBe(1);
    await checkPage(page, 'drafts-issued');

    const returned = await submittedDraft('반려할 문서');
    await page.goto(`${baseUrl}/dashboard/drafts`);
    const waiting = rowsOf(page, 'waiting', returned);
    await waiting.locator('input[name="reason"]').fill(HOSTILE);
    await Promise.all([page.waitForURL(/notice=drafts\.sentBack/),
      waiting.locator('button:has-text("반려")').click()]);
    const editable = rowsOf(page, 'editable', returned);
    expect(await editable.locator('td').first().textContent()).toContain(HOSTILE);
    await checkPage(page, 'drafts-returned');
    expect(problems).toEqual([]);
  }, 120_000);

  it('a Viewer sees no action and is refused one posted anyway', async () => {
    const draftId = await submittedDraft('열람자');
    const { page } = await signedInPage('viewer');
    await page.goto(`${baseUrl}/dashboard/drafts`);
    expect(await rowsOf(page, 'waiting', draftId).count()).toBe(1);
    expect(await page.locator('button:has-text("승인하고 발행")').count()).toBe(0);
    expect(await page.locator('section[aria-labelledby="approval-title"]').count()).toBe(0);
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.request().method() === 'POST'),
      page.evaluate((id) => {
        const token = document.querySelector<HTMLInputElement>('input[name="_csrf"]')!.value;
        const form = document.createElement('form');
        form.method = 'post';
        form.action = `/dashboard/drafts/${id}/approve`;
        const input = document.createElement('input');
        input.name = '_csrf';
        input.value = token;
        form.append(input);
        document.body.append(form);
        setTimeout(() => form.submit(), 0);
      }, draftId),
    ]);
    expect(response.status()).toBe(403);
    await page.getByText('권한이 없습니다').first().waitFor();
    const draft = await app.drafts.taxInvoiceDrafts.get({ caller: { accountId: account.accountId,
      environment: 'test', apiKeyId: 'check' }, draftId });
    expect(draft.status).toBe('SUBMITTED');
  }, 120_000);
});
