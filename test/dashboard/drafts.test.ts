import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  createSupplierAccount, RECIPIENT_NUMBER, today, type SupplierAccount,
} from '../api/tax-invoices/helpers.ts';
import { today as seoulToday } from '../api/cash-receipts/helpers.ts';
import { createUser, signIn, type Browser } from './helpers.ts';

// Drafts in the dashboard's issue forms, through HTTP: "save as draft" on the tax invoice and
// cash receipt forms, a draft opened in its form, changed (a merge patch from the version read;
// a stale version is 409) and issued through the draft's own issue (once per form, with the
// typed confirmation in live); a member without issue rights submits what they save when the
// account requires approval; the drafts page lists both kinds. Every action is CSRF-checked,
// refused to the roles that may not, scoped by account and environment (another scope's draft
// is 404), and every value shown is inert.

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

let app: TestApp;
let account: SupplierAccount;
let owner: Browser;
beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0',
    CASH_RECEIPT_SANDBOX_APPROVAL_DELAY_MS: '0' } });
  account = await createSupplierAccount(app, '임시저장 상회');
  owner = await memberOf(account, 'owner');
});
afterAll(async () => {
  await app?.close();
});

async function memberOf(of: { accountId: string }, role: Role) {
  return signIn(app, (await createUser(app, of.accountId, role)).email);
}

const caller = (of: { accountId: string }, environment: 'test' | 'live' = 'test') =>
  ({ accountId: of.accountId, environment, apiKeyId: 'check' });

// The tax invoice form as a person fills it, with the reference id the page was shown with.
function invoiceForm(page: string, overrides: Record<string, string> = {}) {
  const referenceId = /name="referenceId" value="([^"]+)"/.exec(page)?.[1] ?? '';
  return { referenceId, supplierKey: account.supplier.supplierKey,
    supplierEmail: 'tax@example.co.kr', date: today(), purpose: 'CLAIM', taxKind: 'TAXABLE',
    'recipient.number': RECIPIENT_NUMBER, 'recipient.name': '주식회사 받는곳',
    'recipient.representative': '이영희', 'recipient.email': 'account@example.com',
    'items.0.name': '클라우드 사용료', 'items.0.supplyCost': '10000', ...overrides };
}

// The hidden fields of a draft's form, as the page carries them.
function draftFields(page: string) {
  const field = (name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '';
  return { draftId: field('draftId'), draftVersion: field('draftVersion'),
    referenceId: field('referenceId') };
}

const draftIdOf = (location: unknown) =>
  /[?&]draft=(drf_[A-Za-z0-9_-]+)/.exec(String(location))?.[1] ?? '';

async function savedTaxInvoiceDraft(browser: Browser, overrides: Record<string, string> = {}) {
  const form = await browser.get('/dashboard/tax-invoices/new');
  expect(form.statusCode).toBe(200);
  const saved = await browser.post('/dashboard/tax-invoices/new/draft',
    invoiceForm(form.body, overrides));
  expect(saved.statusCode, saved.body).toBe(303);
  const draftId = draftIdOf(saved.headers.location);
  expect(draftId).toMatch(/^drf_/);
  return draftId;
}

describe('the tax invoice form and drafts', () => {
  it('saves an incomplete form as a draft, shows it filled and escaped, and lists it', async () => {
    const draftId = await savedTaxInvoiceDraft(owner, { 'recipient.name': HOSTILE,
      'recipient.email': '', 'items.0.supplyCost': '', description: HOSTILE });
    const draft = await app.drafts.taxInvoiceDrafts.get({ caller: caller(account), draftId });
    expect(draft.status).toBe('DRAFT');
    expect(draft.supplierKey).toBe(account.supplier.supplierKey);
    expect(draft.body).toMatchObject({ date: today(), description: HOSTILE,
      supplied: { organizationName: HOSTILE } });
    // What the form left empty is missing from the draft, and reported at issuance.
    expect((draft.body.supplied as Record<string, unknown>).managers).toBeUndefined();
    expect(draft.issueProblems?.[0]?.code).toBe('INVALID_REQUEST');
    const page = await owner.get(`/dashboard/tax-invoices/new?draft=${draftId}&notice=saved`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`name="draftId" value="${draftId}"`);
    expect(page.body).toContain('name="recipient.name" type="text" value="&lt;script>alert(1)');
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).toContain('formaction="/dashboard/tax-invoices/new/draft"');
    const list = await owner.get('/dashboard/drafts');
    expect(list.body).toContain(`/dashboard/tax-invoices/new?draft=${draftId}`);
    expect(list.body).not.toContain('<script>alert(1)');
  });

  it('keeps a blank supply cost out of the draft, which lists it as missing', async () => {
    const draftId = await savedTaxInvoiceDraft(owner, { 'items.0.supplyCost': '' });
    const draft = await app.drafts.taxInvoiceDrafts.get({ caller: caller(account), draftId });
    // Neither 0 nor the tax a 0 would give: left out, as every blank field is.
    expect(draft.body.items).toEqual([{ date: today(), name: '클라우드 사용료' }]);
    expect(draft.issueProblems).toEqual([expect.objectContaining({ code: 'INVALID_REQUEST',
      message: expect.stringContaining('supplyCost') })]);
    // The form shows it blank again, and the kind it was saved with (a line without a cost has
    // no tax to tell it by).
    const page = await owner.get(`/dashboard/tax-invoices/new?draft=${draftId}`);
    expect(page.body).toContain('name="items.0.supplyCost" value inputmode');
    expect(page.body).toMatch(/value="TAXABLE" selected/);
  });

  it('saves changes as a merge patch from the version read, and refuses a stale one', async () => {
    const draftId = await savedTaxInvoiceDraft(owner, { 'items.1.name': '두 번째 품목',
      'items.1.supplyCost': '500' });
    const page = await owner.get(`/dashboard/tax-invoices/new?draft=${draftId}`);
    const fields = draftFields(page.body);
    expect(fields.draftVersion).toBe('1');
    expect(page.body).toContain('value="두 번째 품목"');
    const changed = await owner.post('/dashboard/tax-invoices/new/draft', {
      ...invoiceForm(page.body, { 'recipient.name': '바뀐 상호' }), ...fields });
    expect(changed.statusCode, changed.body).toBe(303);
    expect(draftIdOf(changed.headers.location)).toBe(draftId);
    const draft = await app.drafts.taxInvoiceDrafts.get({ caller: caller(account), draftId });
    expect(draft.version).toBe(2);
    // The line the form no longer holds is gone: the items array is replaced.
    expect(draft.body.items).toHaveLength(1);
    expect((draft.body.supplied as Record<string, unknown>).organizationName).toBe('바뀐 상호');
    // The same form again, from version 1: someone changed it since, so nothing is overwritten.
    const stale = await owner.post('/dashboard/tax-invoices/new/draft', {
      ...invoiceForm(page.body, { 'recipient.name': '오래된 상호' }), ...fields });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain('임시저장 문서가 변경되었습니다');
    expect(((await app.drafts.taxInvoiceDrafts.get({ caller: caller(account), draftId }))
      .body.supplied as Record<string, unknown>).organizationName).toBe('바뀐 상호');
  });

  it('issues a draft from its form once, however often the form is sent', async () => {
    const scope = { accountId: account.accountId, environment: 'test' as const };
    const documents = async () =>
      (await app.taxInvoices.service.list({ scope, limit: 100, filters: {} })).taxInvoices.length;
    const before = await documents();
    const draftId = await savedTaxInvoiceDraft(owner);
    const page = await owner.get(`/dashboard/tax-invoices/new?draft=${draftId}`);
    const form = { ...invoiceForm(page.body, { description: '폼에서 고친 비고' }),
      ...draftFields(page.body) };
    const issued = await owner.post('/dashboard/tax-invoices/new/draft-issue', form);
    expect(issued.statusCode, issued.body).toBe(303);
    const issuanceKey = /\/dashboard\/tax-invoices\/(txi_[\w-]+)\?/.exec(
      String(issued.headers.location))?.[1];
    expect(issuanceKey).toBeDefined();
    const draft = await app.drafts.taxInvoiceDrafts.get({ caller: caller(account), draftId });
    expect(draft).toMatchObject({ status: 'ISSUED', issuanceKey });
    expect(draft.body.description).toBe('폼에서 고친 비고');
    const again = await owner.post('/dashboard/tax-invoices/new/draft-issue', form);
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe(issued.headers.location);
    expect(await documents()).toBe(before + 1);
    // An issued draft is not editable in the form.
    expect((await owner.get(`/dashboard/tax-invoices/new?draft=${draftId}`)).statusCode)
      .toBe(409);
  });

  it('refuses a draft of another account or environment as not found', async () => {
    const other = await createSupplierAccount(app, '다른 계정');
    const otherOwner = await memberOf(other, 'owner');
    const draftId = await savedTaxInvoiceDraft(owner);
    expect((await otherOwner.get(`/dashboard/tax-invoices/new?draft=${draftId}`)).statusCode)
      .toBe(404);
    const form = await otherOwner.get('/dashboard/tax-invoices/new');
    const hijack = await otherOwner.post('/dashboard/tax-invoices/new/draft', {
      ...invoiceForm(form.body, { supplierKey: other.supplier.supplierKey,
        'recipient.name': '가로채기' }), draftId, draftVersion: '1' });
    expect(hijack.statusCode).toBe(404);
    const issue = await otherOwner.post('/dashboard/tax-invoices/new/draft-issue', {
      ...invoiceForm(form.body, { supplierKey: other.supplier.supplierKey }), draftId,
      draftVersion: '1' });
    expect(issue.statusCode).toBe(404);
    for (const action of ['submit', 'delete', 'approve']) {
      expect((await otherOwner.post(`/dashboard/drafts/${draftId}/${action}`, {}))
        .statusCode, action).toBe(404);
    }
    // The session's live environment does not see the test draft either.
    const live = await memberOf(account, 'owner');
    await live.post('/dashboard/environment', { environment: 'live', return: '/dashboard' });
    expect((await live.get(`/dashboard/tax-invoices/new?draft=${draftId}`)).statusCode)
      .toBe(404);
    const untouched = await app.drafts.taxInvoiceDrafts.get({ caller: caller(account), draftId });
    expect(untouched).toMatchObject({ status: 'DRAFT', version: 1 });
  });

  it('asks for the typed confirmation before issuing a draft in live', async () => {
    const live = await memberOf(account, 'owner');
    await live.post('/dashboard/environment', { environment: 'live', return: '/dashboard' });
    const created = await app.drafts.taxInvoiceDrafts.create({
      caller: caller(account, 'live'), body: { description: 'live draft' } });
    const refused = await live.post('/dashboard/tax-invoices/new/draft-issue', {
      draftId: created.draftId, draftVersion: '1',
      referenceId: 'dash-00000000-0000-4000-8000-000000000000' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('확인란에 LIVE를 정확히 입력하세요');
    expect((await app.drafts.taxInvoiceDrafts.get({ caller: caller(account, 'live'),
      draftId: created.draftId })).status).toBe('DRAFT');
  });

  it('lets a Developer save (and, with approval required, submit) but not issue', async () => {
    const team = await createSupplierAccount(app, '승인 필요 상회');
    const developer = await memberOf(team, 'developer');
    const form = await developer.get('/dashboard/tax-invoices/new');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('formaction="/dashboard/tax-invoices/new/draft"');
    expect(form.body).not.toContain('/dashboard/tax-invoices/new/lookup');
    const fill = (overrides: Record<string, string> = {}) => invoiceForm(form.body,
      { supplierKey: team.supplier.supplierKey, ...overrides });
    expect((await developer.post('/dashboard/tax-invoices/new/preview', fill())).statusCode)
      .toBe(403);
    expect((await developer.post('/dashboard/tax-invoices/new/draft-issue', fill()))
      .statusCode).toBe(403);
    await app.drafts.approval.setApprovalRequired({ accountId: team.accountId,
      approvalRequired: true, actor: 'test' });
    const submitted = await developer.post('/dashboard/tax-invoices/new/draft', fill());
    expect(submitted.statusCode, submitted.body).toBe(303);
    expect(submitted.headers.location).toBe('/dashboard/drafts?notice=drafts.submitted');
    const { drafts } = await app.drafts.taxInvoiceDrafts.list({ scope: caller(team),
      statuses: ['SUBMITTED'], limit: 10 });
    expect(drafts).toHaveLength(1);
    // Incomplete, it is saved and not submitted, and the form says why.
    const incomplete = await developer.post('/dashboard/tax-invoices/new/draft',
      fill({ 'recipient.email': '' }));
    expect(incomplete.statusCode).toBe(400);
    expect(incomplete.body).toContain('name="draftId" value="drf_');
    const editable = await app.drafts.taxInvoiceDrafts.list({ scope: caller(team),
      statuses: ['DRAFT'], limit: 10 });
    expect(editable.drafts).toHaveLength(1);
    const viewer = await memberOf(team, 'viewer');
    expect((await viewer.get('/dashboard/tax-invoices/new')).statusCode).toBe(403);
    for (const path of ['/dashboard/tax-invoices/new/draft', '/dashboard/cash-receipts/new/draft',
      '/dashboard/invoice-upload/drafts']) {
      expect((await viewer.post(path, fill())).statusCode, path).toBe(403);
    }
  });

  it('saves no drafts from an upload confirmation that was not signed for the session',
    async () => {
      const before = (await app.drafts.taxInvoiceDrafts.list({ scope: caller(account),
        limit: 100 })).drafts.length;
      const forged = await owner.post('/dashboard/invoice-upload/drafts', {
        payload: JSON.stringify({ supplierKey: account.supplier.supplierKey, nonce: 'n',
          rows: [{ row: 2, body: { description: HOSTILE } }] }), signature: 'forged' });
      expect(forged.statusCode).toBe(400);
      expect((await app.drafts.taxInvoiceDrafts.list({ scope: caller(account), limit: 100 }))
        .drafts.length).toBe(before);
    });

  it('refuses a form without the CSRF token', async () => {
    const form = await owner.get('/dashboard/tax-invoices/new');
    for (const path of ['/dashboard/tax-invoices/new/draft',
      '/dashboard/tax-invoices/new/draft-issue', '/dashboard/cash-receipts/new/draft',
      '/dashboard/cash-receipts/new/draft-issue', '/dashboard/invoice-upload/drafts']) {
      const refused = await owner.post(path, { ...invoiceForm(form.body), _csrf: 'forged' });
      expect(refused.statusCode, path).toBe(403);
    }
  });
});

describe('the cash receipt form and drafts', () => {
  function receiptForm(page: string, issuerId: string, overrides: Record<string, string> = {}) {
    const referenceId = /name="referenceId" value="([^"]+)"/.exec(page)?.[1] ?? '';
    return { issuerId, referenceId, tradeDate: seoulToday(), usage: 'INCOME_DEDUCTION',
      identityNumber: '010-1234-5678', taxation: 'TAXABLE', tradeOption: 'GENERAL',
      supplyCost: '10,000', tax: '1,000', serviceFee: '0', totalAmount: '11,000',
      itemName: '아메리카노', ...overrides };
  }

  it('saves, lists, edits and issues a cash receipt draft once; other accounts get 404',
    async () => {
      const form = await owner.get('/dashboard/cash-receipts/new');
      expect(form.statusCode).toBe(200);
      const { issuerId } = account.supplier;
      const saved = await owner.post('/dashboard/cash-receipts/new/draft',
        receiptForm(form.body, issuerId, { itemName: HOSTILE, totalAmount: '' }));
      expect(saved.statusCode, saved.body).toBe(303);
      const draftId = draftIdOf(saved.headers.location);
      const draft = await app.drafts.cashReceiptDrafts.get({ caller: caller(account), draftId });
      expect(draft.body).toMatchObject({ itemName: HOSTILE, supplyCost: 10000 });
      expect(draft.body.totalAmount).toBeUndefined();
      const list = await owner.get('/dashboard/drafts?kind=cash-receipts');
      expect(list.statusCode).toBe(200);
      expect(list.body).toContain(`/dashboard/cash-receipts/new?draft=${draftId}`);
      expect(list.body).not.toContain('<script>alert(1)');
      const page = await owner.get(`/dashboard/cash-receipts/new?draft=${draftId}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('name="itemName" required maxlength="100" ' +
        'value="&lt;script>alert(1)');
      expect(page.body).toContain('formaction="/dashboard/cash-receipts/new/draft-issue"');
      const fields = draftFields(page.body);
      const filled = { ...receiptForm(page.body, issuerId, { itemName: '라떼' }), ...fields };
      const other = await memberOf(await createSupplierAccount(app, '남의 가게'), 'owner');
      expect((await other.get(`/dashboard/cash-receipts/new?draft=${draftId}`)).statusCode)
        .toBe(404);
      expect((await other.post('/dashboard/cash-receipts/new/draft-issue', filled)).statusCode)
        .toBe(404);
      const issued = await owner.post('/dashboard/cash-receipts/new/draft-issue', filled);
      expect(issued.statusCode, issued.body).toBe(303);
      expect(issued.headers.location).toMatch(/^\/dashboard\/cash-receipts\/csr_/);
      const again = await owner.post('/dashboard/cash-receipts/new/draft-issue', filled);
      expect(again.headers.location).toBe(issued.headers.location);
      const done = await app.drafts.cashReceiptDrafts.get({ caller: caller(account), draftId });
      expect(done).toMatchObject({ status: 'ISSUED' });
      expect(done.body.itemName).toBe('라떼');
    });
});
