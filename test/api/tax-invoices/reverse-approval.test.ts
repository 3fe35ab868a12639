// Approving and refusing reverse issuance requests, end to end: GET …/issueRequest/grant → the
// approval page's HTML → the browser's form POST → APPROVED → ISSUED → TRANSMITTED by the jobs,
// or REFUSED with a refund; the mailed link opens the same page; and the simple approval API.
// A link works once, a grant link for ten minutes and a mailed one through the deadline day in
// Seoul; unknown, used and expired links are HTML 404/410 pages. The app's clock is moved, never
// waited for.
import { afterEach, describe, expect, it } from 'vitest';
import { endOfSeoulDay } from '../../../src/areas/tax-invoices/reverse-issuance/links.ts';
import { vatReturnDeadline } from '../../../src/domain/business-days.ts';
import { expectError } from '../../helpers/errors.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';
import {
  getInvoice,
  invoiceBody,
  issue,
  useSupplierAccount,
  registerSupplier,
  today,
  waitForStatus,
  type Supplier,
} from './helpers.ts';
import {
  actorsOf,
  cancel,
  createReverseTestApp,
  decide,
  grant,
  grantPath,
  linkIn,
  mailAbout,
  newRequest,
  postForm,
  type ReverseTestApp,
} from './reverse-helpers.ts';

// A grant link is valid this long (docs/reverse-issuance.md).
const TEN_MINUTES_MS = 10 * 60 * 1000;

let app: ReverseTestApp;
let key: string;
let liveKey: string;
let accountId: string;
let supplier: Supplier;

useSupplierAccount({ createApp: createReverseTestApp, name: 'Buyer' }, (made) => {
  ({ app, key, liveKey, accountId, supplier } = made);
});
afterEach(() => {
  app.clock.offsetMs = 0;
});

const balance = async () =>
  (await app.platform.points.getBalance({ accountId, environment: 'test' })).balance;
const newRequestOf = (body: unknown = invoiceBody()) =>
  newRequest(app, key, supplier.supplierKey, body);
const page = (path: string) => app.server.inject({ method: 'GET', url: path });

function expectHtml(response: { statusCode: number; headers: Record<string, unknown>;
  body: string }, status: number) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers['content-security-policy']).toContain("default-src 'none'");
  expect(response.headers['content-security-policy']).toContain("form-action 'self'");
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
  expect(response.headers['cache-control']).toBe('no-store');
}

describe('the approval page', () => {
  it('returns a one-time URL valid ten minutes from GET …/issueRequest/grant', async () => {
    const issuanceKey = await newRequestOf();
    // The app's clock read before and after the request brackets the moment the link was made.
    const beforeMs = Date.now() + app.clock.offsetMs;
    const response = await grant(app, key, issuanceKey);
    const afterMs = Date.now() + app.clock.offsetMs;
    expect(response.statusCode).toBe(200);
    const { expiresAt } = response.json() as { url: string; expiresAt: string };
    expect(new Date(expiresAt).getTime()).toBeGreaterThanOrEqual(beforeMs + TEN_MINUTES_MS);
    expect(new Date(expiresAt).getTime()).toBeLessThanOrEqual(afterMs + TEN_MINUTES_MS);
  });

  it('shows the request as escaped HTML with the security headers', async () => {
    const body = invoiceBody({ description: '<script>alert("x")</script> & 비고' });
    body.supplied = { ...body.supplied, organizationName: '<b>받는곳</b>' };
    const issuanceKey = await newRequestOf(body);
    const path = await grantPath(app, key, issuanceKey);
    const response = await page(path);
    expectHtml(response, 200);
    expect(response.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp;');
    expect(response.body).toContain('&lt;b&gt;받는곳&lt;/b&gt;');
    expect(response.body).not.toContain('<script>');
    expect(response.body).toContain(issuanceKey);
    expect(response.body).toContain('220,000');
    expect(response.body).toContain(`action="${path}"`);
  });

  it('approves from the page: APPROVED by APPROVAL_PAGE, then issued and transmitted',
    async () => {
      const issuanceKey = await newRequestOf();
      const charged = await balance();
      const path = await grantPath(app, key, issuanceKey);
      const response = await postForm(app, path, { decision: 'approve' });
      expectHtml(response, 200);
      expect(response.body).toContain('Approved');
      const invoice = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
      expect(invoice.status).toBe('TRANSMITTED');
      expect(invoice.ntsTransactionId).toMatch(/^[0-9]{8}41000000[0-9a-z]{8}$/);
      expect(await actorsOf(app, issuanceKey)).toEqual(['REQUESTED:API',
        'APPROVED:APPROVAL_PAGE', 'ISSUED:JOB', 'TRANSMITTING:JOB', 'TRANSMITTED:JOB']);
      expect(await balance()).toBe(charged);
      await expectLedgerConsistent(app.platform, accountId, 'test');
    });

  it('refuses from the page with a reason: REFUSED, the reason readable, points refunded',
    async () => {
      const before = await balance();
      const issuanceKey = await newRequestOf();
      const path = await grantPath(app, key, issuanceKey);
      const response = await postForm(app, path, { decision: 'refuse',
        reason: '  금액이 다릅니다  ' });
      expectHtml(response, 200);
      expect(response.body).toContain('Refused');
      const invoice = await getInvoice(app, key, issuanceKey);
      expect(invoice.status).toBe('REFUSED');
      expect(invoice.failure).toEqual({ code: 'ISSUE_REQUEST_REFUSED',
        message: '금액이 다릅니다' });
      expect(await balance()).toBe(before);
      await expectLedgerConsistent(app.platform, accountId, 'test');
    });

  it('returns a 410 page for a link that was used, and changes nothing', async () => {
    const issuanceKey = await newRequestOf();
    const path = await grantPath(app, key, issuanceKey);
    expect((await postForm(app, path, { decision: 'refuse' })).statusCode).toBe(200);
    expectHtml(await postForm(app, path, { decision: 'approve' }), 410);
    expectHtml(await page(path), 410);
    expect((await getInvoice(app, key, issuanceKey)).status).toBe('REFUSED');
  });

  it('returns a 404 page for an unknown or malformed token', async () => {
    const unknown = `/taxInvoices/issueRequests/approval/${'A'.repeat(43)}`;
    expectHtml(await page(unknown), 404);
    expectHtml(await postForm(app, unknown, { decision: 'approve' }), 404);
    expectHtml(await page('/taxInvoices/issueRequests/approval/not-a-token'), 404);
  });

  it('returns a 410 page for a grant link older than ten minutes', async () => {
    const issuanceKey = await newRequestOf();
    const path = await grantPath(app, key, issuanceKey);
    app.clock.offsetMs = 10 * 60 * 1000 + 1_000;
    expectHtml(await page(path), 410);
    expectHtml(await postForm(app, path, { decision: 'approve' }), 410);
    expect((await getInvoice(app, key, issuanceKey)).status).toBe('REQUESTED');
  });

  it('returns a 409 page when the request was canceled after the link was made', async () => {
    const issuanceKey = await newRequestOf();
    const path = await grantPath(app, key, issuanceKey);
    expect((await cancel(app, key, issuanceKey)).statusCode).toBe(200);
    const shown = await page(path);
    expectHtml(shown, 409);
    expect(shown.body).toContain('REQUEST_CANCELED');
    expectHtml(await postForm(app, path, { decision: 'approve' }), 409);
    expect((await getInvoice(app, key, issuanceKey)).status).toBe('REQUEST_CANCELED');
  });

  it('returns a 400 page for a form without a decision or with another field, 415 for JSON',
    async () => {
      const issuanceKey = await newRequestOf();
      const path = await grantPath(app, key, issuanceKey);
      expectHtml(await postForm(app, path, {}), 400);
      expectHtml(await postForm(app, path, { decision: 'approve', extra: '1' }), 400);
      expectHtml(await postForm(app, path, { decision: 'refuse', reason: 'x'.repeat(201) }), 400);
      expectHtml(await app.server.inject({ method: 'POST', url: path,
        headers: { 'content-type': 'application/json' }, payload: '{"decision":"approve"}' }),
      415);
      expect((await getInvoice(app, key, issuanceKey)).status).toBe('REQUESTED');
      expect((await postForm(app, path, { decision: 'approve' })).statusCode).toBe(200);
    });

  it('returns a 409 page when the supplier has no certificate, and keeps the link', async () => {
    const other = await app.platform.accounts.createAccount({ name: 'No cert', plan: 'FREE' });
    const bare = await registerSupplier(app, other.keys.test, { certificate: false });
    const issuanceKey = await newRequest(app, other.keys.test, bare.supplierKey);
    const link = linkIn((await mailAbout(app, issuanceKey)).textBody);
    const path = new URL(link).pathname;
    expectHtml(await page(path), 200);
    const refused = await postForm(app, path, { decision: 'approve' });
    expectHtml(refused, 409);
    expect(refused.body).toContain('certificate');
    expect((await postForm(app, path, { decision: 'refuse' })).statusCode).toBe(200);
  });
});

describe('the mailed link', () => {
  it('lives until midnight at the end of the deadline day in Seoul (15:00 UTC)', () => {
    expect(endOfSeoulDay('2026-12-10').toISOString()).toBe('2026-12-10T15:00:00.000Z');
  });

  it('opens the same page and approves once, recorded as EMAIL', async () => {
    const issuanceKey = await newRequestOf();
    const path = new URL(linkIn((await mailAbout(app, issuanceKey)).textBody)).pathname;
    expectHtml(await page(path), 200);
    expect((await postForm(app, path, { decision: 'approve' })).statusCode).toBe(200);
    expectHtml(await postForm(app, path, { decision: 'approve' }), 410);
    const invoice = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
    expect(invoice.status).toBe('TRANSMITTED');
    expect((await actorsOf(app, issuanceKey))[1]).toBe('APPROVED:EMAIL');
  });

  it('works through the end of the deadline day in Seoul, and not a second later', async () => {
    const issuanceKey = await newRequestOf();
    const { issueDeadline } = await getInvoice(app, key, issuanceKey);
    const path = new URL(linkIn((await mailAbout(app, issuanceKey)).textBody)).pathname;
    const end = endOfSeoulDay(String(issueDeadline)).getTime();
    app.clock.offsetMs = end - 60_000 - Date.now();
    expectHtml(await page(path), 200);
    app.clock.offsetMs = end + 1_000 - Date.now();
    expectHtml(await page(path), 410);
  });
});

describe('after the issue deadline', () => {
  it('approves the day after it as a late issuance, marked with its penalty rates', async () => {
    const issuanceKey = await newRequestOf();
    const { issueDeadline, lateIssuance } = await getInvoice(app, key, issuanceKey);
    expect(lateIssuance).toBe(false);
    app.clock.offsetMs = endOfSeoulDay(String(issueDeadline)).getTime() + 1_000 - Date.now();
    const response = await decide(app, key, issuanceKey, 'approve',
      { supplierKey: supplier.supplierKey });
    expect(response.statusCode, response.body).toBe(200);
    expect(await getInvoice(app, key, issuanceKey)).toMatchObject({ lateIssuance: true,
      lateIssuancePenalty: { supplierRate: 0.01, recipientRate: 0.005 } });
  });

  it('returns 409 ISSUE_DEADLINE_PASSED after the late-issuance limit to grant and approve, ' +
    'saying why, and allows refusal and cancel',
  async () => {
    const first = await newRequestOf();
    const second = await newRequestOf();
    const limit = vatReturnDeadline(today())!;
    app.clock.offsetMs = endOfSeoulDay(limit).getTime() + 1_000 - Date.now();
    const granted = expectError(await grant(app, key, first), 409, 'ISSUE_DEADLINE_PASSED');
    expect(granted.message).toContain(`only until ${limit}, the final VAT return deadline`);
    expectError(await decide(app, key, first, 'approve',
      { supplierKey: supplier.supplierKey }), 409, 'ISSUE_DEADLINE_PASSED');
    expect((await getInvoice(app, key, first)).status).toBe('REQUESTED');
    expect((await decide(app, key, first, 'refuse', { supplierKey: supplier.supplierKey }))
      .statusCode).toBe(200);
    expect((await cancel(app, key, second)).statusCode).toBe(200);
  });

  it('approves on the deadline day itself, not as a late issuance', async () => {
    const issuanceKey = await newRequestOf();
    const { issueDeadline } = await getInvoice(app, key, issuanceKey);
    app.clock.offsetMs = endOfSeoulDay(String(issueDeadline)).getTime() - 60_000 - Date.now();
    const response = await decide(app, key, issuanceKey, 'approve',
      { supplierKey: supplier.supplierKey });
    expect(response.statusCode, response.body).toBe(200);
    expect((await getInvoice(app, key, issuanceKey)).lateIssuance).toBe(false);
  });
});

describe('grant errors', () => {
  it('returns 409 CERTIFICATE_NOT_REGISTERED when the supplier has no certificate', async () => {
    const other = await app.platform.accounts.createAccount({ name: 'No cert', plan: 'FREE' });
    const bare = await registerSupplier(app, other.keys.test, { certificate: false });
    const issuanceKey = await newRequest(app, other.keys.test, bare.supplierKey);
    expectError(await grant(app, other.keys.test, issuanceKey), 409,
      'CERTIFICATE_NOT_REGISTERED');
  });

  it('returns 404 NOT_FOUND for an unknown key, a STANDARD invoice, another account and the ' +
    'live key of the same account',
    async () => {
      expectError(await grant(app, key, 'txi_unknown'), 404, 'NOT_FOUND');
      const issued = (await issue(app, key, supplier.supplierKey)).json() as
        { issuanceKey: string };
      expectError(await grant(app, key, issued.issuanceKey), 404, 'NOT_FOUND');
      const other = await app.platform.accounts.createAccount({ name: 'Other', plan: 'FREE' });
      expectError(await grant(app, other.keys.test, await newRequestOf()), 404, 'NOT_FOUND');
      expectError(await grant(app, liveKey, await newRequestOf()), 404, 'NOT_FOUND');
    });

  it('returns 409 ISSUE_REQUEST_ALREADY_CANCELED and _APPROVED for decided requests',
    async () => {
      const canceled = await newRequestOf();
      await cancel(app, key, canceled);
      const error = expectError(await grant(app, key, canceled), 409,
        'ISSUE_REQUEST_ALREADY_CANCELED');
      expect(error.message).toContain('REQUEST_CANCELED');
      const approved = await newRequestOf();
      await decide(app, key, approved, 'approve', { supplierKey: supplier.supplierKey });
      expectError(await grant(app, key, approved), 409, 'ISSUE_REQUEST_ALREADY_APPROVED');
    });
});

describe('the approval API', () => {
  it('approves with the request\'s Supplier-Key: 200, APPROVED by API, then transmitted',
    async () => {
      const issuanceKey = await newRequestOf();
      const response = await decide(app, key, issuanceKey, 'approve',
        { supplierKey: supplier.supplierKey });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ issuanceKey, status: 'APPROVED' });
      const invoice = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
      expect(invoice.status).toBe('TRANSMITTED');
      expect((await actorsOf(app, issuanceKey))[1]).toBe('APPROVED:API');
    });

  it('returns 409 ISSUE_REQUEST_ALREADY_APPROVED to a second approval', async () => {
    const issuanceKey = await newRequestOf();
    await decide(app, key, issuanceKey, 'approve', { supplierKey: supplier.supplierKey });
    expectError(await decide(app, key, issuanceKey, 'approve',
      { supplierKey: supplier.supplierKey }), 409, 'ISSUE_REQUEST_ALREADY_APPROVED');
    expectError(await decide(app, key, issuanceKey, 'refuse',
      { supplierKey: supplier.supplierKey }), 409, 'ISSUE_REQUEST_ALREADY_APPROVED');
  });

  it('returns 404 NOT_FOUND for the Supplier-Key of another supplier, changing nothing',
    async () => {
      const issuanceKey = await newRequestOf();
      const otherSupplier = await registerSupplier(app, key, {
        identificationNumber: '2208162517', organizationName: '다른 공급자', certificate: false });
      for (const decision of ['approve', 'refuse'] as const) {
        const error = expectError(await decide(app, key, issuanceKey, decision,
          { supplierKey: otherSupplier.supplierKey }), 404, 'NOT_FOUND');
        expect(error.message).toMatch(/Supplier-Key/);
      }
      expect((await getInvoice(app, key, issuanceKey)).status).toBe('REQUESTED');
    });

  it('returns 409 CERTIFICATE_NOT_REGISTERED and stays REQUESTED without a certificate',
    async () => {
      const other = await app.platform.accounts.createAccount({ name: 'No cert', plan: 'FREE' });
      const bare = await registerSupplier(app, other.keys.test, { certificate: false });
      const issuanceKey = await newRequest(app, other.keys.test, bare.supplierKey);
      expectError(await decide(app, other.keys.test, issuanceKey, 'approve',
        { supplierKey: bare.supplierKey }), 409, 'CERTIFICATE_NOT_REGISTERED');
      expect((await getInvoice(app, other.keys.test, issuanceKey)).status).toBe('REQUESTED');
    });

  it('refuses with or without a body and refunds; a long reason is 400', async () => {
    const before = await balance();
    const withReason = await newRequestOf();
    const withoutBody = await newRequestOf();
    expectError(await decide(app, key, withReason, 'refuse', { supplierKey:
      supplier.supplierKey, body: { reason: 'x'.repeat(201) } }), 400, 'INVALID_REQUEST');
    const refused = await decide(app, key, withReason, 'refuse',
      { supplierKey: supplier.supplierKey, body: { reason: '수량 오류' } });
    expect(refused.json()).toEqual({ issuanceKey: withReason, status: 'REFUSED' });
    expect((await getInvoice(app, key, withReason)).failure?.message).toBe('수량 오류');
    const bare = await decide(app, key, withoutBody, 'refuse',
      { supplierKey: supplier.supplierKey });
    expect(bare.statusCode).toBe(200);
    expect(await balance()).toBe(before);
    expectError(await decide(app, key, withoutBody, 'refuse',
      { supplierKey: supplier.supplierKey }), 409, 'ISSUE_REQUEST_ALREADY_CANCELED');
  });

  it('returns 400 INVALID_REQUEST for an approval with a body, changing nothing', async () => {
    const issuanceKey = await newRequestOf();
    expectError(await decide(app, key, issuanceKey, 'approve',
      { supplierKey: supplier.supplierKey, body: { reason: 'ok' } }), 400, 'INVALID_REQUEST');
    expect((await getInvoice(app, key, issuanceKey)).status).toBe('REQUESTED');
  });
});
