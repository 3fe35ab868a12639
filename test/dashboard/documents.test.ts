import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  CORPORATION_NUMBER,
  createOwnerAccount,
  newReferenceId,
  request as apiRequest,
} from '../api/documents/helpers.ts';
import { createUser, signIn, type Browser } from './helpers.ts';

// The documents pages: each type's form with the options that type takes and its price shown
// before the request, the list with status, the original PDF; through the documents area's
// service (the same reference ids, reservations and jobs as /v1/documents); roles, CSRF,
// test/live and other accounts.

const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

let app: TestApp;
beforeAll(async () => {
  // No workers: each test runs the document's job itself, when it wants it run.
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false',
    DOCUMENTS_SANDBOX_LATENCY_MS: '0' } });
});
afterAll(async () => {
  await app?.close();
});

async function ownerWith(role: Role) {
  const account = await createOwnerAccount(app, { points: 10_000 });
  const user = await createUser(app, account.accountId, role);
  return { ...account, browser: await signIn(app, user.email) };
}

const available = async (accountId: string) =>
  (await app.platform.points.getBalance({ accountId, environment: 'test' })).available;

async function formOf(browser: Browser, type: string) {
  const page = await browser.get(`/dashboard/documents/new?type=${type}`);
  expect(page.statusCode).toBe(200);
  return { page, referenceId: /name="referenceId" value="([^"]+)"/.exec(page.body)![1]! };
}

const keyOf = (location: unknown) =>
  /\/dashboard\/documents\/([\w-]+)\?/.exec(String(location))?.[1];

describe('documents pages', () => {
  it('shows each type with its price and only the options that type takes', async () => {
    const { browser } = await ownerWith('owner');
    const list = await browser.get('/dashboard/documents');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('1,500 P');
    const vat = await formOf(browser, 'VAT_TAX_BASE_CERTIFICATE');
    expect(vat.page.body).toContain('name="startYearMonth"');
    expect(vat.page.body).toContain('name="language"');
    expect(vat.page.body).not.toContain('name="corporationNumber"');
    expect(vat.page.body).toContain('가격: 500 P');
    const registry = await formOf(browser, 'CORPORATE_REGISTRY_SUBMISSION');
    expect(registry.page.body).toContain('name="corporationNumber"');
    expect(registry.page.body).not.toContain('name="purpose"');
    expect(registry.page.body).toContain('가격: 1,500 P');
  });

  it('requests a document, replays a second send, and downloads the original PDF',
    async () => {
      const { browser, accountId, key } = await ownerWith('issuer');
      const before = await available(accountId);
      const { referenceId } = await formOf(browser, 'BUSINESS_REGISTRATION_CERTIFICATE');
      const form = { type: 'BUSINESS_REGISTRATION_CERTIFICATE', referenceId,
        showAddress: 'true', showResidentNumber: 'false', language: 'KO', purpose: HOSTILE };
      const first = await browser.post('/dashboard/documents', form);
      expect(first.statusCode, first.body).toBe(303);
      const issuanceKey = keyOf(first.headers.location);
      expect(issuanceKey).toMatch(/^doc_/);
      const again = await browser.post('/dashboard/documents', form);
      expect(keyOf(again.headers.location)).toBe(issuanceKey);
      expect(await available(accountId)).toBe(before - 500);
      const waiting = await browser.get(`/dashboard/documents/${issuanceKey}`);
      expect(waiting.statusCode).toBe(200);
      expect(waiting.body).not.toContain('<script>alert(1)');
      expect(waiting.body).not.toContain('<img src=x');
      expect((await browser.get(`/dashboard/documents/${issuanceKey}/pdf`)).statusCode)
        .toBe(409);
      await app.documents.process(issuanceKey!);
      const issued = await browser.get(`/dashboard/documents/${issuanceKey}`);
      expect(issued.body).toContain('발급됨');
      const pdf = await browser.get(`/dashboard/documents/${issuanceKey}/pdf`);
      expect(pdf.statusCode).toBe(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      // The same bytes as the API's download.
      const api = await app.server.inject(apiRequest(key, 'GET',
        `/v1/documents/${issuanceKey}/pdf`));
      expect(pdf.rawPayload.equals(api.rawPayload)).toBe(true);
      const list = await browser.get('/dashboard/documents?status=ISSUED');
      expect(list.body).toContain(issuanceKey);
    });

  it('refuses a request without confirmation, with options of another type, or missing ' +
    'what the type needs, reserving nothing', async () => {
    const { browser, accountId } = await ownerWith('admin');
    const before = await available(accountId);
    const { referenceId } = await formOf(browser, 'VAT_TAX_BASE_CERTIFICATE');
    const base = { type: 'VAT_TAX_BASE_CERTIFICATE', referenceId,
      startYearMonth: '2025-01', endYearMonth: '2025-06' };
    // In live, a charged document is requested only with LIVE typed in the form's box.
    await browser.post('/dashboard/environment', { environment: 'live', return: '/dashboard' });
    const unconfirmed = await browser.post('/dashboard/documents', { ...base, confirm: 'yes' });
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.body).toContain('확인란에 LIVE를 정확히 입력하세요');
    await browser.post('/dashboard/environment', { environment: 'test', return: '/dashboard' });
    expect((await browser.post('/dashboard/documents', { ...base, endYearMonth: '' }))
      .statusCode).toBe(400);
    expect((await browser.post('/dashboard/documents', { ...base, startYearMonth: '2025-13' }))
      .statusCode).toBe(400);
    // The service's rule: the end is not before the start.
    const backwards = await browser.post('/dashboard/documents',
      { ...base, startYearMonth: '2025-06', endYearMonth: '2025-01' });
    expect(backwards.statusCode).toBe(400);
    expect(backwards.body).toContain('INVALID_REQUEST');
    expect((await browser.post('/dashboard/documents', { ...base, type: 'NOPE' })).statusCode)
      .toBe(400);
    const badCorporation = await browser.post('/dashboard/documents', {
      type: 'CORPORATE_REGISTRY_VIEW', referenceId: newDashReference(),
      corporationNumber: '1101110062431' });
    expect(badCorporation.statusCode).toBe(400);
    expect(badCorporation.body).toContain('INVALID_CORPORATE_REGISTRATION_NUMBER');
    expect(await available(accountId)).toBe(before);
    const { documents } = await app.documents.service.list({
      scope: { accountId, environment: 'test' }, limit: 10 });
    expect(documents).toHaveLength(0);
  });

  it('offers the 납세증명서 purposes the law names, and asks for the payer of 대금수령',
    async () => {
      const { browser, accountId } = await ownerWith('issuer');
      const { page, referenceId } = await formOf(browser, 'TAX_PAYMENT_CERTIFICATE');
      expect(page.body).toContain('name="submissionPurpose"');
      expect(page.body).toContain('value="PAYMENT_RECEIPT"');
      expect(page.body).toContain('name="payer.name"');
      const base = { type: 'TAX_PAYMENT_CERTIFICATE', referenceId,
        submissionPurpose: 'PAYMENT_RECEIPT' };
      const missing = await browser.post('/dashboard/documents', base);
      expect(missing.statusCode).toBe(400);
      expect(missing.body).toContain('INVALID_REQUEST');
      const requested = await browser.post('/dashboard/documents', { ...base,
        'payer.name': HOSTILE.slice(0, 100), 'payer.businessRegistrationNumber': '138-83-00007' });
      expect(requested.statusCode, requested.body).toBe(303);
      const issuanceKey = keyOf(requested.headers.location)!;
      const { documents } = await app.documents.service.list({
        scope: { accountId, environment: 'test' }, limit: 10 });
      expect(documents.find((document) => document.issuanceKey === issuanceKey)?.options)
        .toMatchObject({ submissionPurpose: 'PAYMENT_RECEIPT',
          payer: { name: HOSTILE.slice(0, 100), businessRegistrationNumber: '1388300007' } });
      const detail = await browser.get(`/dashboard/documents/${issuanceKey}`);
      expect(detail.body).toContain('대금수령');
      expect(detail.body).toContain('1388300007');
      expect(detail.body).not.toContain('<script>alert(1)');
    });

  it('says what a tax-authority document still needs, and the service refuses it the same',
    async () => {
      const account = await app.createFundedAccount(10_000);
      const user = await createUser(app, account.accountId, 'owner');
      const browser = await signIn(app, user.email);
      const { page, referenceId } = await formOf(browser, 'TAX_PAYMENT_CERTIFICATE');
      expect(page.body).toContain('계정 사업자가 아직 없습니다');
      expect(page.body).toContain('href="/dashboard/business"');
      const registry = await formOf(browser, 'CORPORATE_REGISTRY_VIEW');
      expect(registry.page.body).not.toContain('계정 사업자가 아직 없습니다');
      const refused = await browser.post('/dashboard/documents', { type: 'TAX_PAYMENT_CERTIFICATE',
        referenceId });
      expect(refused.body).toContain('OWNER_BUSINESS_NOT_REGISTERED');
      expect(refused.statusCode).toBe(409);
    });

  it('lets only Owner, Admin and Issuer request; every role reads', async () => {
    for (const role of ['developer', 'viewer'] as const) {
      const { browser } = await ownerWith(role);
      const list = await browser.get('/dashboard/documents');
      expect(list.statusCode).toBe(200);
      expect(list.body).not.toContain('/dashboard/documents/new');
      expect((await browser.get('/dashboard/documents/new?type=CORPORATE_REGISTRY_VIEW'))
        .statusCode).toBe(403);
      const refused = await browser.post('/dashboard/documents', {
        type: 'CORPORATE_REGISTRY_VIEW', referenceId: newDashReference(),
        corporationNumber: CORPORATION_NUMBER });
      expect(refused.statusCode).toBe(403);
    }
  });

  it('refuses without the CSRF token, and hides other accounts\' and live documents',
    async () => {
      const owner = await ownerWith('owner');
      const other = await ownerWith('owner');
      const created = await app.server.inject(apiRequest(owner.key, 'POST',
        '/v1/documents/issue', { body: { type: 'CORPORATE_REGISTRY_VIEW',
          corporationNumber: CORPORATION_NUMBER },
        headers: { 'service-client-reference-id': newReferenceId() } }));
      expect(created.statusCode).toBe(202);
      const issuanceKey = created.json().issuanceKey as string;
      const csrf = await owner.browser.post('/dashboard/documents', {
        _csrf: 'forged', type: 'CORPORATE_REGISTRY_VIEW', referenceId: newDashReference(),
        corporationNumber: CORPORATION_NUMBER });
      expect(csrf.statusCode).toBe(403);
      expect((await owner.browser.get(`/dashboard/documents/${issuanceKey}`)).statusCode)
        .toBe(200);
      for (const path of [`/dashboard/documents/${issuanceKey}`,
        `/dashboard/documents/${issuanceKey}/pdf`, '/dashboard/documents/%3Cscript%3E']) {
        expect((await other.browser.get(path)).statusCode, path).toBe(404);
      }
      expect((await other.browser.get('/dashboard/documents')).body).not.toContain(issuanceKey);
      await owner.browser.post('/dashboard/environment', { environment: 'live',
        return: '/dashboard/documents' });
      expect((await owner.browser.get(`/dashboard/documents/${issuanceKey}`)).statusCode)
        .toBe(404);
    });
});

let dashReferences = 0;
function newDashReference() {
  dashReferences += 1;
  return `dash-00000000-0000-0000-0000-${String(dashReferences).padStart(12, '0')}`;
}
