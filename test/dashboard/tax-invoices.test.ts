import 'reflect-metadata';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { basicAuth } from '../helpers/http.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  createSupplierAccount, invoiceBody, issue, issueTransmitted, postWithSupplier, RECIPIENT_NUMBER,
  today, type SupplierAccount,
} from '../api/tax-invoices/helpers.ts';
import { createUser, signIn, type Browser } from './helpers.ts';

// The tax-invoice pages through HTTP: the list and its filters kept in the address, the
// exports, a document's page, the issue form (preview, issue once per form), cancellation,
// amendments, reverse issuance decisions; each through the area's services, scoped by account
// and environment, refused to the roles that may not, CSRF-checked, every value inert.

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

let app: TestApp;
let account: SupplierAccount;
let owner: Browser;
beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' } });
  account = await createSupplierAccount(app);
  const user = await createUser(app, account.accountId, 'owner');
  owner = await signIn(app, user.email);
});
afterAll(async () => {
  await app?.close();
});

async function issued(body: unknown = invoiceBody()) {
  const response = await issue(app, account.key, account.supplier.supplierKey, body);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { issuanceKey: string }).issuanceKey;
}

// The form of the issue page as a person fills it, for the preview and the issuance.
function issueForm(page: string, overrides: Record<string, string> = {}) {
  const referenceId = /name="referenceId" value="([^"]+)"/.exec(page)?.[1] ?? '';
  return { referenceId, supplierKey: account.supplier.supplierKey,
    supplierEmail: 'tax@example.co.kr', date: today(), purpose: 'CLAIM', taxKind: 'TAXABLE',
    'recipient.number': RECIPIENT_NUMBER, 'recipient.name': '주식회사 받는곳',
    'recipient.representative': '이영희', 'recipient.email': 'account@example.com',
    'items.0.name': '클라우드 사용료', 'items.0.quantity': '3', 'items.0.unitPrice': '3333',
    'items.0.supplyCost': '9999', ...overrides };
}

describe('the list', () => {
  it('shows the scope\'s documents newest first, filtered by what the address says', async () => {
    const first = await issued(invoiceBody({ description: 'first' }));
    const hostile = invoiceBody();
    (hostile.supplied as Record<string, unknown>).organizationName = HOSTILE;
    const second = await issued(hostile);
    const page = await owner.get('/dashboard/tax-invoices');
    expect(page.statusCode).toBe(200);
    expect(page.body.indexOf(second)).toBeGreaterThan(-1);
    expect(page.body.indexOf(second)).toBeLessThan(page.body.indexOf(first));
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).not.toContain('<img src=x');
    expect(page.body).toContain('&lt;script>alert(1)&lt;/script>');

    const filtered = await owner.get(`/dashboard/tax-invoices?recipient=${encodeURIComponent(
      '<script>')}&late=no`);
    expect(filtered.statusCode).toBe(200);
    expect(filtered.body).toContain(second);
    expect(filtered.body).not.toContain(`/dashboard/tax-invoices/${first}"`);
    // The filters stay in the form, so a reload keeps them.
    expect(filtered.body).toMatch(/<option value="no" selected/);
  });

  it('pages by cursor and refuses a filter or cursor it did not write', async () => {
    for (const query of ['status=NOPE', 'from=2026-13-01', 'min=abc', 'late=maybe',
      'cursor=not-a-cursor']) {
      expect((await owner.get(`/dashboard/tax-invoices?${query}`)).statusCode, query).toBe(400);
    }
    const htmx = await owner.get('/dashboard/tax-invoices?status=PENDING',
      { 'hx-request': 'true' });
    expect(htmx.body).toMatch(/^<div id="tax-invoice-results">/);
  });

  it('exports what the filters select as CSV and Excel', async () => {
    const key = await issued(invoiceBody({ description: '=HYPERLINK("x")' }));
    const csv = await owner.get(`/dashboard/tax-invoices.csv?q=${key}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(key);
    const xlsx = await owner.get(`/dashboard/tax-invoices.xlsx?q=${key}`);
    expect(xlsx.statusCode).toBe(200);
    expect(xlsx.rawPayload.subarray(0, 2).toString()).toBe('PK');
    const { default: ExcelJS } = await import('exceljs');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect(sheet.rowCount).toBe(2);
    expect(sheet.getRow(2).getCell(1).value).toBe(key);
  });
});

describe('a document', () => {
  it('shows the document, its timeline, PDF and XML; cancel before transmission', async () => {
    const key = await issued();
    const page = await owner.get(`/dashboard/tax-invoices/${key}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('주식회사 받는곳');
    expect(page.body).toContain('220-81-62517');
    const pdf = await owner.get(`/dashboard/tax-invoices/${key}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const transmitted = await issueTransmitted(app, account.key, account.supplier.supplierKey);
    const xml = await owner.get(`/dashboard/tax-invoices/${transmitted.issuanceKey}/xml`);
    expect(xml.statusCode).toBe(200);
    expect(xml.body).toContain('<?xml');
    const detail = await owner.get(`/dashboard/tax-invoices/${transmitted.issuanceKey}`);
    expect(detail.body).toContain('TAX_INVOICE_ISSUANCE_SUCCESS');
    expect(detail.body).toContain('국세청 전송 완료');
    // Cancel a transmitted one: refused by the service, shown on the page.
    const refused = await owner.post(`/dashboard/tax-invoices/${transmitted.issuanceKey}/cancel`,
      {});
    expect(refused.statusCode).toBe(409);
  });

  it('is not found in another account, in live, or by a made-up key', async () => {
    const key = await issued();
    const other = await createSupplierAccount(app, 'Other');
    const stranger = await signIn(app, (await createUser(app, other.accountId, 'owner')).email);
    for (const path of ['', '/pdf', '/xml', '/amend']) {
      expect((await stranger.get(`/dashboard/tax-invoices/${key}${path}`)).statusCode).toBe(404);
    }
    expect((await stranger.post(`/dashboard/tax-invoices/${key}/cancel`, {})).statusCode)
      .toBe(404);
    expect((await owner.get(`/dashboard/tax-invoices/${key}`)).statusCode).toBe(200);
    expect((await owner.get('/dashboard/tax-invoices/txi_NOPE')).statusCode).toBe(404);
    expect((await owner.get('/dashboard/tax-invoices/%3Cscript%3E')).statusCode).toBe(404);
    // The live environment has none of the test documents.
    const live = await signIn(app, (await createUser(app, account.accountId, 'owner')).email);
    await live.post('/dashboard/environment', { environment: 'live', return: '/dashboard' });
    expect((await live.get(`/dashboard/tax-invoices/${key}`)).statusCode).toBe(404);
    expect((await live.get('/dashboard/tax-invoices')).body).not.toContain(key);
  });

});

async function cancels(quiet: TestApp) {
  const still = await createSupplierAccount(quiet);
  const response = await issue(quiet, still.key, still.supplier.supplierKey);
  const key = (response.json() as { issuanceKey: string }).issuanceKey;
  const owner = await signIn(quiet, (await createUser(quiet, still.accountId, 'owner')).email);
  {
    const account = still;
    const app = quiet;
    await owner.get(`/dashboard/tax-invoices/${key}`);
    expect((await owner.post(`/dashboard/tax-invoices/${key}/cancel`, { _csrf: 'wrong' }))
      .statusCode).toBe(403);
    const viewer = await signIn(app, (await createUser(app, account.accountId, 'viewer')).email);
    expect((await viewer.post(`/dashboard/tax-invoices/${key}/cancel`, {})).statusCode).toBe(403);
    const developer = await signIn(app,
      (await createUser(app, account.accountId, 'developer')).email);
    expect((await developer.post(`/dashboard/tax-invoices/${key}/cancel`, {})).statusCode)
      .toBe(403);
    expect((await viewer.get(`/dashboard/tax-invoices/${key}`)).body).not.toContain('/cancel"');
    const canceled = await owner.post(`/dashboard/tax-invoices/${key}/cancel`, {});
    expect(canceled.statusCode, canceled.body).toBe(303);
    const page = await owner.get(canceled.headers.location as string);
    expect(page.body).toContain('<span class="badge neutral">취소</span>');
    expect(page.body).toContain('대시보드');
    const audit = await owner.get('/dashboard/audit');
    expect(audit.body).toContain(key);
  }
}

describe('the issue form', () => {
  it('previews, then issues once however often the form is sent', async () => {
    const form = await owner.get('/dashboard/tax-invoices/new');
    expect(form.statusCode).toBe(200);
    const fields = issueForm(form.body);
    expect(fields.referenceId).toMatch(/^dash-/);
    const preview = await owner.post('/dashboard/tax-invoices/new/preview', fields);
    expect(preview.statusCode, preview.body).toBe(200);
    // 3 × 3,333 = 9,999 and its tax 1,000, as the API computes them.
    expect(preview.body).toContain('9,999원');
    expect(preview.body).toContain('1,000원');
    expect(preview.body).toContain('10,999원');
    const balance = () => app.platform.points.getBalance({ accountId: account.accountId,
      environment: 'test' });
    const before = await balance();
    const [first, second] = await Promise.all([
      owner.post('/dashboard/tax-invoices/new', fields),
      owner.post('/dashboard/tax-invoices/new', fields)]);
    expect(first.statusCode).toBe(303);
    expect(second.statusCode).toBe(303);
    expect(first.headers.location).toBe(second.headers.location);
    const after = await balance();
    expect(before.balance - after.balance).toBe(app.platform.prices['taxInvoices.issue']);
    const key = /tax-invoices\/(txi_[A-Za-z0-9_-]+)/.exec(first.headers.location as string)![1]!;
    const done = await pollUntil(() => owner.get(`/dashboard/tax-invoices/${key}`),
      (page) => /badge (ok|bad)/.test(page.body));
    expect(/<span class="badge [a-z]+">([^<]+)</.exec(done.body)?.[1]).toBe('전송 완료');
    // The developer's system finds what the accountant issued by the reference id the page
    // shows, with any key of the account in the same environment; not with a live key or a key
    // of another account.
    expect(done.body).toContain(fields.referenceId);
    const status = (key: string) => app.server.inject({ method: 'GET',
      url: `/v1/taxInvoices/issue/status?clientReferenceId=${fields.referenceId}`,
      headers: { authorization: basicAuth(key) } });
    const found = await status(account.key);
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toMatchObject({ issuanceKey: key, issuanceKeys: [key],
      clientReferenceId: fields.referenceId, status: 'TRANSMITTED' });
    expect((await status(account.liveKey)).statusCode).toBe(404);
    const other = await createSupplierAccount(app, 'Other account');
    expect((await status(other.key)).statusCode).toBe(404);
  });

  it('looks the recipient up by number, at the price it shows', async () => {
    const form = await owner.get('/dashboard/tax-invoices/new');
    const price = app.platform.prices['businesses.profiles.retrieve'];
    expect(form.body).toContain(`${price.toLocaleString('ko-KR')} 포인트`);
    const balance = async () => (await app.platform.points.getBalance({
      accountId: account.accountId, environment: 'test' })).balance;
    const before = await balance();
    const refused = await owner.post('/dashboard/tax-invoices/new/lookup',
      issueForm(form.body, { 'recipient.number': '12', 'recipient.name': '' }));
    expect(refused.statusCode).toBe(400);
    expect(await balance()).toBe(before);
    // Not a sandbox number: refused by the service, nothing spent.
    expect((await owner.post('/dashboard/tax-invoices/new/lookup', issueForm(form.body)))
      .statusCode).toBe(400);
    expect(await balance()).toBe(before);
    const looked = await owner.post('/dashboard/tax-invoices/new/lookup',
      issueForm(form.body, { 'recipient.number': '999-99-00005', 'recipient.name': '',
        'recipient.representative': '' }));
    expect(looked.statusCode, looked.body).toBe(200);
    expect(/name="recipient.name" type="text" value="([^"]+)"/.exec(looked.body)?.[1])
      .toBeTruthy();
    expect(looked.body).toContain('name="recipient.number" type="text" value="9999900005"');
    expect(await balance()).toBe(before - price);
    const viewer = await signIn(app, (await createUser(app, account.accountId, 'viewer')).email);
    expect((await viewer.post('/dashboard/tax-invoices/new/lookup', issueForm(form.body)))
      .statusCode).toBe(403);
  });

  it('shows the service\'s refusal and keeps what was typed, escaped', async () => {
    const form = await owner.get('/dashboard/tax-invoices/new');
    const refused = await owner.post('/dashboard/tax-invoices/new/preview',
      issueForm(form.body, { 'items.0.tax': '5', 'recipient.name': HOSTILE }));
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('items[0].tax');
    expect(refused.body).not.toContain('<script>alert(1)');
    const noItems = await owner.post('/dashboard/tax-invoices/new/preview',
      issueForm(form.body, { 'items.0.name': '', 'items.0.quantity': '', 'items.0.unitPrice': '',
        'items.0.supplyCost': '' }));
    expect(noItems.statusCode).toBe(400);
    const viewer = await signIn(app, (await createUser(app, account.accountId, 'viewer')).email);
    expect((await viewer.get('/dashboard/tax-invoices/new')).statusCode).toBe(403);
    expect((await viewer.post('/dashboard/tax-invoices/new', issueForm(form.body))).statusCode)
      .toBe(403);
  });

  it('refuses a live mutation without the typed confirmation', async () => {
    const transmitted = await issueTransmitted(app, account.key, account.supplier.supplierKey);
    // The same document, as if made in live (no live gateway runs in tests).
    const liveKey = `${transmitted.issuanceKey}L`;
    await app.platform.database.db.transaction(async (tx) => {
      await tx.execute(sql`create temp table live_copy on commit drop as
        select * from tax_invoices where issuance_key = ${transmitted.issuanceKey}`);
      await tx.execute(sql`update live_copy set issuance_key = ${liveKey}, environment = 'live'`);
      await tx.execute(sql`insert into tax_invoices select * from live_copy`);
    });
    const live = await signIn(app, (await createUser(app, account.accountId, 'owner')).email);
    await live.post('/dashboard/environment', { environment: 'live', return: '/dashboard' });
    const page = await live.get(`/dashboard/tax-invoices/${liveKey}`);
    expect(page.statusCode).toBe(200);
    // The one rule of every live mutation: LIVE typed in the box the form shows.
    for (const action of ['cancel', 'approve', 'refuse', 'cancel-request']) {
      const unconfirmed = await live.post(`/dashboard/tax-invoices/${liveKey}/${action}`, {});
      expect(unconfirmed.statusCode, action).toBe(400);
      expect(unconfirmed.body).toContain('확인란에 LIVE를 정확히 입력하세요');
      expect((await live.post(`/dashboard/tax-invoices/${liveKey}/${action}`,
        { confirm: 'live' })).statusCode, action).toBe(400);
      // Confirmed, the service decides: a transmitted document is not canceled (409), and a
      // standard one is no reverse request (404).
      expect((await live.post(`/dashboard/tax-invoices/${liveKey}/${action}`,
        { confirm: 'LIVE' })).statusCode, action).toBe(action === 'cancel' ? 409 : 404);
    }
    const amend = await live.post(`/dashboard/tax-invoices/${liveKey}/amend`,
      { reason: 'TERMINATION', referenceId: 'dash-00000000-0000-4000-8000-000000000000',
        date: today() });
    expect(amend.statusCode).toBe(400);
    expect(amend.body).toContain('확인란에 LIVE를 정확히 입력하세요');
    expect((await live.get('/dashboard/tax-invoices')).body).not.toContain(
      `/dashboard/tax-invoices/${transmitted.issuanceKey}"`);
  });

  it('asks for the typed confirmation in live', async () => {
    const live = await signIn(app, (await createUser(app, account.accountId, 'owner')).email);
    await live.post('/dashboard/environment', { environment: 'live', return: '/dashboard' });
    const page = await live.get('/dashboard/tax-invoices/new');
    // No live issuer with a certificate in this account: the page says what is needed.
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('공동인증서');
  });
});

describe('amendments and reverse issuance', () => {
  it('previews and issues an amendment', async () => {
    const original = await issueTransmitted(app, account.key, account.supplier.supplierKey);
    const form = await owner.get(
      `/dashboard/tax-invoices/${original.issuanceKey}/amend?reason=TERMINATION`);
    expect(form.statusCode).toBe(200);
    const referenceId = /name="referenceId" value="([^"]+)"/.exec(form.body)![1]!;
    const fields = { reason: 'TERMINATION', referenceId, date: today() };
    const preview = await owner.post(
      `/dashboard/tax-invoices/${original.issuanceKey}/amend/preview`, fields);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.body).toContain(`-${original.totals.total.toLocaleString('ko-KR')}원`);
    const amended = await owner.post(`/dashboard/tax-invoices/${original.issuanceKey}/amend`,
      fields);
    expect(amended.statusCode, amended.body).toBe(303);
    const again = await owner.post(`/dashboard/tax-invoices/${original.issuanceKey}/amend`,
      fields);
    expect(again.headers.location).toBe(amended.headers.location);
  });

  it('approves and refuses requests waiting for the account', async () => {
    const request = async () => {
      const response = await postWithSupplier(app, account.key, '/v1/taxInvoices/issueRequest',
        { supplierKey: account.supplier.supplierKey, body: invoiceBody() });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { issuanceKey: string }).issuanceKey;
    };
    const [toApprove, toRefuse] = [await request(), await request()];
    const list = await owner.get('/dashboard/tax-invoices/requests');
    expect(list.body).toContain(toApprove);
    expect((await owner.post(`/dashboard/tax-invoices/${toApprove}/approve`, {})).statusCode)
      .toBe(303);
    const refused = await owner.post(`/dashboard/tax-invoices/${toRefuse}/refuse`,
      { reason: HOSTILE });
    expect(refused.statusCode).toBe(303);
    const page = await owner.get(`/dashboard/tax-invoices/${toRefuse}`);
    expect(page.body).toContain('&lt;script>alert(1)');
    expect(page.body).not.toContain('<script>alert(1)');
    expect((await owner.post(`/dashboard/tax-invoices/${toRefuse}/approve`, {})).statusCode)
      .toBe(409);
  });

  it('decides only as a supplier of the account, with the API\'s Supplier-Key check',
    async () => {
      const other = await createSupplierAccount(app, 'Other supplier');
      const decide = async (action: 'approve' | 'refuse') => {
        const response = await postWithSupplier(app, account.key,
          '/v1/taxInvoices/issueRequest',
          { supplierKey: account.supplier.supplierKey, body: invoiceBody() });
        expect(response.statusCode, response.body).toBe(200);
        const { issuanceKey } = response.json() as { issuanceKey: string };
        // As if the request named another account's supplier: the account may not decide it.
        await app.platform.database.db.execute(sql`update tax_invoices
          set supplier_key = ${other.supplier.supplierKey} where issuance_key = ${issuanceKey}`);
        const answer = await owner.post(`/dashboard/tax-invoices/${issuanceKey}/${action}`, {});
        expect(answer.statusCode, action).toBe(404);
        const page = await owner.get(`/dashboard/tax-invoices/${issuanceKey}`);
        expect(page.body).toContain('승인 대기');
      };
      await decide('approve');
      await decide('refuse');
    });
});

// Last: it runs an app of its own, whose workers wait an hour before transmitting.
describe('cancellation', () => {
  it('cancels with CSRF and role checks, through the service', async () => {
    // Transmitted an hour after issuance: the document waits as ISSUED, which can be canceled.
    const quiet = await createTestApp({ jobs: true,
      env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '3600' } });
    try {
      await cancels(quiet);
    } finally {
      await quiet.close();
    }
  });
});
