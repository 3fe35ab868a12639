// The drafts page in a real browser (system Chromium via playwright-core): a draft an API key
// submitted for approval waits on the page; an Admin sets the approval setting, approves the
// draft and sees it issued; another is sent back with a reason and is editable again; a Viewer
// sees no action and is refused one posted anyway. An Admin saves a draft from the tax invoice
// form, opens it from the drafts page, saves changes and issues it; a Developer saves one,
// which is submitted as the account requires approval; an uploaded file is imported as drafts,
// once however often its confirmation is sent, and a Developer imports one as drafts only,
// submitted for approval; cash receipt drafts have their own tab and form.
// Hostile strings in every field shown come back as text. Each state is checked at 390 and
// 1280 px (no sideways scroll, a screenshot, axe-core without serious or critical violations).
import 'reflect-metadata';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage as checkPageIn, launchChromium, screenshotFolder, signedInMember, startDashboardServer,
} from '../helpers/chromium.ts';
import type { TestApp } from '../helpers/app.ts';
import type { Role } from '../../src/dashboard/roles.ts';
import { workbookOf } from '../api/counterparties/helpers.ts';
import {
  createSupplierAccount, invoiceBody, request, today, type SupplierAccount,
} from '../api/tax-invoices/helpers.ts';

const HOSTILE = '<img src=x onerror="window.__xss=1">';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const scope = () => ({ accountId: account.accountId, environment: 'test' as const });
const invoiceCount = async () => (await app.taxInvoices.service.list({ scope: scope(),
  limit: 100, filters: {} })).taxInvoices.length;
const draftsIn = async (status: 'DRAFT' | 'SUBMITTED' | 'ISSUED') =>
  (await app.drafts.taxInvoiceDrafts.list({ scope: scope(), statuses: [status], limit: 100 }))
    .drafts;

let app: TestApp;
let browser: Browser;
let baseUrl: string;
let screenshots: string;
let account: SupplierAccount;
// What went wrong in the page the test drives now (each test signs in a page of its own).
let errors: string[] = [];
const rowsOf = (page: Page, section: string, text: string) =>
  page.locator(`section[aria-labelledby="${section}-title"] tr`, { hasText: text });

async function signedInPage(role: Role): Promise<Page> {
  const opened = await signedInMember(browser, { app, baseUrl },
    { accountId: account.accountId, role }, { bypassCSP: true });
  errors = opened.problems;
  return opened.page;
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
    const page = await signedInPage('admin');
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
    expect(errors).toEqual([]);
  }, 120_000);

  it('a Viewer sees no action and is refused one posted anyway', async () => {
    const draftId = await submittedDraft('열람자');
    const page = await signedInPage('viewer');
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

  it('saves a draft from the issue form, edits it from the drafts page and issues it',
    async () => {
      const page = await signedInPage('admin');
      await page.goto(`${baseUrl}/dashboard/tax-invoices/new`);
      await page.fill('input[name="recipient.number"]', '2208162517');
      await page.fill('input[name="recipient.name"]', HOSTILE);
      await page.fill('input[name="items.0.name"]', '초안 품목');
      await page.fill('input[name="items.0.supplyCost"]', '10000');
      // Incomplete (no representative, no e-mail): saved all the same.
      await Promise.all([page.waitForURL(/notice=saved/),
        page.click('button:has-text("임시저장")')]);
      const draftId = /draft=(drf_[A-Za-z0-9_-]+)/.exec(page.url())![1]!;
      expect(await page.inputValue('input[name="recipient.name"]')).toBe(HOSTILE);
      expect(await page.locator('#draft-editing').textContent()).toContain(draftId);
      await checkPage(page, 'draft-form-saved');

      await page.goto(`${baseUrl}/dashboard/drafts`);
      const row = rowsOf(page, 'editable', draftId);
      expect(await row.locator('td').nth(1).textContent()).toBe(HOSTILE);
      await Promise.all([page.waitForURL(new RegExp(`draft=${draftId}`)),
        row.locator('a:has-text("수정")').click()]);
      await page.fill('input[name="recipient.representative"]', '이영희');
      await page.fill('input[name="recipient.email"]', 'account@example.com');
      await Promise.all([page.waitForURL(/notice=saved/),
        page.click('button:has-text("변경 내용 저장")')]);
      const saved = await app.drafts.taxInvoiceDrafts.get({ caller: { ...scope(),
        apiKeyId: 'check' }, draftId });
      expect(saved).toMatchObject({ version: 2, issueProblems: [] });

      await page.click('section[aria-labelledby="issue-form-title"] button[type="submit"].primary');
      await page.waitForSelector('section[aria-labelledby="preview-title"]');
      await checkPage(page, 'draft-form-preview');
      await Promise.all([page.waitForURL(/\/dashboard\/tax-invoices\/txi_/),
        page.click('section[aria-labelledby="preview-title"] button[type="submit"]')]);
      const issuanceKey = /txi_[A-Za-z0-9_-]+/.exec(page.url())![0];
      expect((await draftsIn('ISSUED')).find((draft) => draft.draftId === draftId)?.issuanceKey)
        .toBe(issuanceKey);
      expect(errors).toEqual([]);
    }, 120_000);

  it('submits what a Developer saves while the account requires approval', async () => {
    await app.drafts.approval.setApprovalRequired({ accountId: account.accountId,
      approvalRequired: true, actor: 'test' });
    const page = await signedInPage('developer');
    await page.goto(`${baseUrl}/dashboard/tax-invoices/new`);
    expect(await page.locator('button:has-text("미리보기")').count()).toBe(0);
    await page.fill('input[name="recipient.number"]', '2208162517');
    await page.fill('input[name="recipient.name"]', '개발자 거래처');
    await page.fill('input[name="recipient.representative"]', '김개발');
    await page.fill('input[name="recipient.email"]', 'dev@example.com');
    await page.fill('input[name="items.0.name"]', '개발 용역');
    await page.fill('input[name="items.0.supplyCost"]', '20000');
    await checkPage(page, 'draft-form-developer');
    await Promise.all([page.waitForURL(/notice=drafts\.submitted/),
      page.click('button:has-text("임시저장")')]);
    const waiting = page.locator('section[aria-labelledby="waiting-title"] tr',
      { hasText: '개발자 거래처' });
    expect(await waiting.count()).toBe(1);
    expect(await waiting.locator('button:has-text("승인하고 발행")').count()).toBe(0);
    await checkPage(page, 'drafts-developer');
  }, 120_000);

  it('imports an uploaded file as drafts, once however often it is confirmed', async () => {
    const page = await signedInPage('admin');
    await page.goto(`${baseUrl}/dashboard/invoice-upload`);
    const file = await workbookOf([
      ['작성일자', '공급받는자 등록번호', '상호', '대표자', '담당자 이메일', '품목', '공급가액'],
      [today(), '220-81-62517', HOSTILE, '이영희', 'a@example.com', '가져온 품목 1', 10000],
      [today(), '2208162517', '주식회사 둘', '박둘', 'b@example.com', '가져온 품목 2', 20000],
    ]);
    await page.setInputFiles('input[name="file"]', { name: 'drafts.xlsx', mimeType: XLSX,
      buffer: file });
    await Promise.all([page.waitForURL(`${baseUrl}/dashboard/invoice-upload/preview`),
      page.click('#upload-title ~ form button[type="submit"]')]);
    await checkPage(page, 'upload-drafts-preview');
    const confirmation = Object.fromEntries(await Promise.all(['_csrf', 'payload', 'signature']
      .map(async (name) => [name, await page.locator(`#preview-title ~ form input[name="${name}"]`)
        .getAttribute('value') ?? ''])));
    const before = (await draftsIn('DRAFT')).length;
    const invoicesBefore = await invoiceCount();
    await Promise.all([page.waitForURL(/notice=drafts\.imported/),
      page.click('#preview-title ~ form button:has-text("임시저장")')]);
    const imported = await draftsIn('DRAFT');
    expect(imported.length).toBe(before + 2);
    expect(imported.map((draft) => draft.body.items)).toContainEqual([expect.objectContaining(
      { name: '가져온 품목 2', supplyCost: 20000 })]);
    expect(await rowsOf(page, 'editable', '주식회사 둘').count()).toBe(1);
    await checkPage(page, 'drafts-imported');
    const again = await page.request.post(`${baseUrl}/dashboard/invoice-upload/drafts`,
      { multipart: confirmation, headers: { origin: baseUrl } });
    expect(again.status()).toBe(200);
    expect((await draftsIn('DRAFT')).length).toBe(before + 2);
    // Nothing was issued: the rows wait as drafts.
    expect(await invoiceCount()).toBe(invoicesBefore);
  }, 120_000);

  it('lets a Developer import an uploaded file as drafts only, submitted for approval',
    async () => {
      // The account requires approval since the Developer's form above.
      const page = await signedInPage('developer');
      await page.goto(`${baseUrl}/dashboard/invoice-upload`);
      await checkPage(page, 'upload-developer-start');
      const file = await workbookOf([
        ['작성일자', '공급받는자 등록번호', '상호', '대표자', '담당자 이메일', '품목', '공급가액'],
        [today(), '220-81-62517', '개발자 업로드', '이영희', 'a@example.com', '개발 품목', 30000],
      ]);
      await page.setInputFiles('input[name="file"]', { name: 'developer.xlsx', mimeType: XLSX,
        buffer: file });
      await Promise.all([page.waitForURL(`${baseUrl}/dashboard/invoice-upload/preview`),
        page.click('#upload-title ~ form button[type="submit"]')]);
      // One button: the rows are saved as drafts and submitted; no bulk issue is offered.
      const buttons = page.locator('#preview-title ~ form button');
      expect(await buttons.count()).toBe(1);
      expect(await buttons.textContent()).toContain('승인 요청');
      await checkPage(page, 'upload-developer-preview');
      const waiting = (await draftsIn('SUBMITTED')).length;
      const invoicesBefore = await invoiceCount();
      await Promise.all([page.waitForURL(/notice=drafts\.importedSubmitted/), buttons.click()]);
      expect((await draftsIn('SUBMITTED')).length).toBe(waiting + 1);
      const row = rowsOf(page, 'waiting', '개발자 업로드');
      expect(await row.count()).toBe(1);
      expect(await row.locator('button:has-text("승인하고 발행")').count()).toBe(0);
      await checkPage(page, 'drafts-developer-imported');
      expect(await invoiceCount()).toBe(invoicesBefore);
      expect(errors).toEqual([]);
    }, 120_000);

  it('lists cash receipt drafts in their own tab and edits one in the cash receipt form',
    async () => {
      const saved = await app.server.inject(request(account.key, 'POST',
        '/v1/cashReceipts/drafts', { body: { itemName: HOSTILE, totalAmount: 11000,
          tradeDate: today() }, headers: { 'supplier-key': account.supplier.supplierKey } }));
      expect(saved.statusCode, saved.body).toBe(201);
      const draftId = (saved.json() as { draftId: string }).draftId;
      const page = await signedInPage('admin');
      await page.goto(`${baseUrl}/dashboard/drafts?kind=cash-receipts`);
      const row = rowsOf(page, 'editable', draftId);
      expect(await row.locator('td').nth(1).textContent()).toBe(HOSTILE);
      expect(await row.locator('td').nth(3).textContent()).toBe('11,000원');
      await checkPage(page, 'drafts-cash-receipts');
      await Promise.all([page.waitForURL(new RegExp(`draft=${draftId}`)),
        row.locator('a:has-text("수정")').click()]);
      expect(await page.inputValue('input[name="itemName"]')).toBe(HOSTILE);
      await checkPage(page, 'cash-receipt-draft-form');
      expect(errors).toEqual([]);
    }, 120_000);
});
