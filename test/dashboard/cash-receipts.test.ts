import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicAuth } from '../helpers/http.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  accepted,
  getReceipt,
  issueReceipt,
  receiptBody,
  today,
  waitForStatus,
} from '../api/cash-receipts/helpers.ts';
import { registerSupplier } from '../api/tax-invoices/helpers.ts';
import { createUser, signIn, type Browser } from './helpers.ts';

// The cash receipts pages: the list and its filters, one receipt and its PDF, the issue form and
// the (partial) cancel form, all through the cash-receipts area's service: the same validation,
// points and reference ids as /v1/cashReceipts; roles, CSRF, test/live and other accounts.

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { CASH_RECEIPT_SANDBOX_APPROVAL_DELAY_MS: '0' } });
});
afterAll(async () => {
  await app?.close();
});

async function merchantAccount(role: Role = 'owner') {
  const account = await app.createAccount();
  const supplier = await registerSupplier(app, account.keys.test, { certificate: false,
    organizationName: `가맹점 ${HOSTILE}` });
  const user = await createUser(app, account.accountId, role);
  const browser = await signIn(app, user.email);
  return { ...account, supplier, user, browser };
}

const balance = async (accountId: string) =>
  (await app.platform.points.getBalance({ accountId, environment: 'test' })).available;

function issueForm(issuerId: string, referenceId: string, overrides: Record<string, string> = {}) {
  return { issuerId, referenceId, tradeDate: today(), usage: 'INCOME_DEDUCTION',
    identityNumber: '010-1234-5678', taxation: 'TAXABLE', tradeOption: 'GENERAL',
    supplyCost: '10,000', tax: '1,000', serviceFee: '0', totalAmount: '11,000',
    itemName: '아메리카노', ...overrides };
}

// The reference id the form was shown with.
async function formReference(browser: Browser) {
  const page = await browser.get('/dashboard/cash-receipts/new');
  expect(page.statusCode).toBe(200);
  const id = /name="referenceId" value="([^"]+)"/.exec(page.body)?.[1];
  expect(id).toMatch(/^dash-/);
  return id!;
}

const keyOf = (location: string | undefined) =>
  /\/dashboard\/cash-receipts\/([\w-]+)\?/.exec(location ?? '')?.[1];

describe('cash receipts pages', () => {
  it('issues from the form through the service: charged once, a second send replays', async () => {
    const { browser, accountId, supplier, keys } = await merchantAccount();
    const before = await balance(accountId);
    const referenceId = await formReference(browser);
    const form = issueForm(supplier.issuerId, referenceId, { itemName: HOSTILE });
    const first = await browser.post('/dashboard/cash-receipts', form);
    expect(first.statusCode, first.body).toBe(303);
    const issuanceKey = keyOf(first.headers.location as string);
    expect(issuanceKey).toMatch(/^csr_/);
    const again = await browser.post('/dashboard/cash-receipts', form);
    expect(again.statusCode).toBe(303);
    expect(keyOf(again.headers.location as string)).toBe(issuanceKey);
    expect(await balance(accountId)).toBe(before - app.platform.prices['cashReceipts.issue']);
    // The API sees the same receipt, also by the reference id of the dashboard's form, with
    // any key of the account in the environment (not a live key, not another account's).
    const receipt = await getReceipt(app, keys.test, issuanceKey!);
    expect(receipt).toMatchObject({ itemName: HOSTILE, totalAmount: 11_000 });
    const status = (key: string) => app.server.inject({ method: 'GET',
      url: `/v1/cashReceipts/issue/status?clientReferenceId=${referenceId}`,
      headers: { authorization: basicAuth(key) } });
    const found = await status(keys.test);
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toMatchObject({ issuanceKey, clientReferenceId: referenceId });
    expect((await status(keys.live)).statusCode).toBe(404);
    expect((await status((await app.createAccount()).keys.test)).statusCode).toBe(404);
    const detail = await browser.get(`/dashboard/cash-receipts/${issuanceKey}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).not.toContain('<script>alert(1)');
    expect(detail.body).not.toContain('<img src=x');
    expect(detail.body).toContain('&lt;script>alert(1)&lt;/script>');
    const list = await browser.get('/dashboard/cash-receipts');
    expect(list.body).toContain(issuanceKey);
    expect(list.body).not.toContain('<img src=x');
    const audit = await browser.get('/dashboard/audit');
    expect(audit.body).toContain(issuanceKey);
  });

  it('refuses without the typed confirmation, with bad input, and as the service refuses, ' +
    'spending nothing', async () => {
    const { browser, accountId, supplier } = await merchantAccount();
    const before = await balance(accountId);
    const referenceId = await formReference(browser);
    // In live, nothing is issued or spent without LIVE typed in the form's box.
    await browser.post('/dashboard/environment', { environment: 'live', return: '/dashboard' });
    const unconfirmed = await browser.post('/dashboard/cash-receipts',
      issueForm(supplier.issuerId, referenceId, { confirm: 'yes' }));
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.body).toContain('확인란에 LIVE를 정확히 입력하세요');
    await browser.post('/dashboard/environment', { environment: 'test', return: '/dashboard' });
    expect((await browser.get('/dashboard/cash-receipts/new')).body)
      .not.toContain('name="confirm"');
    const bads: Array<Record<string, string>> = [{ totalAmount: 'abc' }, { supplyCost: '-5' },
      { itemName: '' }, { usage: 'BRIBE' }, { referenceId: 'mine' }];
    for (const bad of bads) {
      const response = await browser.post('/dashboard/cash-receipts',
        issueForm(supplier.issuerId, referenceId, bad));
      expect(response.statusCode, JSON.stringify(bad)).toBe(400);
    }
    // The service's own rule: the total is the sum of its parts.
    const wrongSum = await browser.post('/dashboard/cash-receipts',
      issueForm(supplier.issuerId, referenceId, { totalAmount: '12,000' }));
    expect(wrongSum.statusCode).toBe(400);
    expect(wrongSum.body).toContain('INVALID_REQUEST');
    const otherIssuer = await browser.post('/dashboard/cash-receipts',
      issueForm('iss_nope', referenceId));
    expect(otherIssuer.statusCode).toBe(400);
    expect(await balance(accountId)).toBe(before);
    const { cashReceipts } = await app.cashReceipts.service.list({
      scope: { accountId, environment: 'test' }, filters: {}, limit: 10 });
    expect(cashReceipts).toHaveLength(0);
  });

  it('lets only Owner, Admin and Issuer issue and cancel; every role reads', async () => {
    for (const role of ['developer', 'viewer'] as const) {
      const { browser, supplier, keys } = await merchantAccount(role);
      expect((await browser.get('/dashboard/cash-receipts')).statusCode).toBe(200);
      // A Developer opens the form to save drafts (drafts.submit), without its issue button.
      const form = await browser.get('/dashboard/cash-receipts/new');
      expect(form.statusCode).toBe(role === 'developer' ? 200 : 403);
      expect(form.body).not.toContain('발행하기</button>');
      const refusedIssue = await browser.post('/dashboard/cash-receipts',
        issueForm(supplier.issuerId, 'dash-00000000-0000-0000-0000-000000000000'));
      expect(refusedIssue.statusCode).toBe(403);
      const key = await accepted(await issueReceipt(app, keys.test, supplier.supplierKey,
        receiptBody()));
      const page = await browser.get(`/dashboard/cash-receipts/${key}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('cancel');
      const refusedCancel = await browser.post(`/dashboard/cash-receipts/${key}/cancel`,
        { reason: 'OTHER' });
      expect(refusedCancel.statusCode).toBe(403);
    }
    const issuer = await merchantAccount('issuer');
    expect((await issuer.browser.get('/dashboard/cash-receipts/new')).statusCode).toBe(200);
  });

  it('refuses a form without the CSRF token or from another origin', async () => {
    const { browser, supplier } = await merchantAccount();
    const referenceId = await formReference(browser);
    const withoutToken = await browser.post('/dashboard/cash-receipts',
      { ...issueForm(supplier.issuerId, referenceId), _csrf: '' });
    expect(withoutToken.statusCode).toBe(403);
    const crossSite = await browser.post('/dashboard/cash-receipts',
      issueForm(supplier.issuerId, referenceId), { origin: 'https://evil.example' });
    expect(crossSite.statusCode).toBe(403);
  });

  it('partly cancels an approved receipt, then the rest, and serves its PDF', async () => {
    const { browser, supplier, keys } = await merchantAccount();
    const key = await accepted(await issueReceipt(app, keys.test, supplier.supplierKey,
      receiptBody()));
    await waitForStatus(app, keys.test, key, ['ISSUED', 'TRANSMITTED']);
    const page = await browser.get(`/dashboard/cash-receipts/${key}`);
    const referenceId = /name="referenceId" value="([^"]+)"/.exec(page.body)?.[1];
    expect(referenceId).toBeDefined();
    const part = { referenceId: referenceId!, reason: 'TRANSACTION_CANCELED',
      supplyCost: '5000', tax: '500', serviceFee: '0', totalAmount: '5500' };
    // Three of the four amounts is neither a part nor the whole.
    const incomplete = await browser.post(`/dashboard/cash-receipts/${key}/cancel`,
      { ...part, totalAmount: '' });
    expect(incomplete.statusCode).toBe(400);
    const tooMuch = await browser.post(`/dashboard/cash-receipts/${key}/cancel`,
      { ...part, supplyCost: '50000', tax: '5000', totalAmount: '55000' });
    expect(tooMuch.statusCode).toBe(409);
    expect(tooMuch.body).toContain('CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING');
    const canceled = await browser.post(`/dashboard/cash-receipts/${key}/cancel`, part);
    expect(canceled.statusCode, canceled.body).toBe(303);
    const cancellation = keyOf(canceled.headers.location as string);
    expect(cancellation).toMatch(/^csr_/);
    expect(await getReceipt(app, keys.test, key)).toMatchObject({ canceledAmount: 5_500,
      remainingAmount: 5_500 });
    const rest = await browser.get(`/dashboard/cash-receipts/${key}`);
    expect(rest.body).toContain('5,500원');
    const pdf = await browser.get(`/dashboard/cash-receipts/${key}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const list = await browser.get('/dashboard/cash-receipts?kind=CANCELLATION');
    expect(list.body).toContain(cancellation);
    expect(list.body).not.toContain(`/cash-receipts/${key}"`);
  });

  it('answers 404 for another account\'s receipt and for a test receipt in live', async () => {
    const owner = await merchantAccount();
    const other = await merchantAccount();
    const key = await accepted(await issueReceipt(app, owner.keys.test,
      owner.supplier.supplierKey, receiptBody()));
    expect((await owner.browser.get(`/dashboard/cash-receipts/${key}`)).statusCode).toBe(200);
    for (const path of [`/dashboard/cash-receipts/${key}`, `/dashboard/cash-receipts/${key}/pdf`]) {
      expect((await other.browser.get(path)).statusCode).toBe(404);
    }
    const cancel = await other.browser.post(`/dashboard/cash-receipts/${key}/cancel`,
      { reason: 'OTHER',
        referenceId: 'dash-00000000-0000-0000-0000-000000000001' });
    expect(cancel.statusCode).toBe(404);
    expect((await other.browser.get('/dashboard/cash-receipts')).body).not.toContain(key);
    const switched = await owner.browser.post('/dashboard/environment',
      { environment: 'live', return: '/dashboard/cash-receipts' });
    expect(switched.statusCode).toBe(303);
    expect((await owner.browser.get(`/dashboard/cash-receipts/${key}`)).statusCode).toBe(404);
    expect((await owner.browser.get('/dashboard/cash-receipts')).body).not.toContain(key);
  });

  it('warns that live spends real points, and answers the service\'s 503 without a live ' +
    'gateway, charging nothing', async () => {
    const { browser, accountId } = await merchantAccount();
    await app.platform.points.grant({ accountId, environment: 'live', points: 1_000 });
    await browser.post('/dashboard/environment', { environment: 'live',
      return: '/dashboard/cash-receipts' });
    // The merchant registered is the test environment's: live has its own issuers.
    const empty = await browser.get('/dashboard/cash-receipts/new');
    expect(empty.body).toContain('발행자가 없습니다');
    const liveIssuer = await app.issuers.createIssuer({ scope: { accountId, environment: 'live' },
      issuer: { identificationNumber: '1234567891', organizationName: '라이브 가맹점',
        representativeName: '홍길동' } });
    const form = await browser.get('/dashboard/cash-receipts/new');
    expect(form.body).toContain('이 요청에 실제 10 P가 차감됩니다');
    expect(form.body).toContain('name="confirm"');
    const referenceId = /name="referenceId" value="([^"]+)"/.exec(form.body)![1]!;
    const refused = await browser.post('/dashboard/cash-receipts',
      issueForm(liveIssuer.issuerId, referenceId, { confirm: 'LIVE' }));
    expect(refused.statusCode).toBe(503);
    expect(refused.body).toContain('SERVICE_UNAVAILABLE');
    const live = await app.platform.points.getBalance({ accountId, environment: 'live' });
    expect(live.available).toBe(1_000);
  });

  it('filters by the API\'s filters and refuses what the form does not offer', async () => {
    const { browser, supplier, keys } = await merchantAccount();
    const key = await accepted(await issueReceipt(app, keys.test, supplier.supplierKey,
      receiptBody()));
    await pollUntil(() => getReceipt(app, keys.test, key), (r) => r.status !== 'ACCEPTED');
    expect((await browser.get('/dashboard/cash-receipts?status=FAILED')).body).not.toContain(key);
    expect((await browser.get(`/dashboard/cash-receipts?tradeDateFrom=${today()}`)).body)
      .toContain(key);
    const fragment = await browser.get(`/dashboard/cash-receipts?tradeDateTo=${today()}`,
      { 'hx-request': 'true' });
    expect(fragment.body).toContain(key);
    expect(fragment.body).not.toContain('<html');
    for (const query of ['status=DONE', 'tradeDateFrom=yesterday', 'cursor=%3Cscript%3E',
      'cursor=AAAA', 'kind=<x>', 'other=1']) {
      expect((await browser.get(`/dashboard/cash-receipts?${query}`)).statusCode, query).toBe(400);
    }
  });
});
