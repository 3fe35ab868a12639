import 'reflect-metadata';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  createSupplierAccount, today, type SupplierAccount,
} from '../api/tax-invoices/helpers.ts';
import { createUser, signIn, type Browser } from './helpers.ts';

// The invoice upload page for who may save drafts but not issue, through HTTP: a Developer
// opens the page, checks a file as anyone does and saves its valid rows as drafts, with no way
// to issue them as a bulk (the page offers none, the route refuses it); where the account
// requires approval, the drafts they import are submitted at once, as what they save from the
// form is, once however often the confirmation is sent, and one that issuance would refuse
// stays a draft and the drafts page says so. An Issuer's imported drafts are not submitted, as
// from the form. A Viewer does not reach the page.

let app: TestApp;
beforeAll(async () => {
  // A small limit on single issues, so that a bulk's rows reach it in a test; each dashboard
  // user counts in a window of their own.
  app = await createTestApp({ jobs: true, env: { RATE_LIMIT_OVERRIDES: JSON.stringify({
    'taxInvoices.issue': { limit: 3, windowSeconds: 600 } }) } });
});
afterAll(async () => {
  await app?.close();
});

async function memberOf(of: { accountId: string }, role: Role) {
  return signIn(app, (await createUser(app, of.accountId, role)).email);
}

const scopeOf = (of: { accountId: string }) =>
  ({ accountId: of.accountId, environment: 'test' as const });

async function draftsIn(of: { accountId: string }, status: 'DRAFT' | 'SUBMITTED') {
  return (await app.drafts.taxInvoiceDrafts.list({ scope: scopeOf(of), statuses: [status],
    limit: 100 })).drafts;
}

const HEADER = '작성일자,공급받는자 등록번호,상호,대표자,담당자 이메일,품목,공급가액';

// A file of one valid row per recipient name.
const csvOf = (names: readonly string[]) => [HEADER, ...names.map((name, index) =>
  `${today()},220-81-62517,${name},이영희,a@example.com,품목 ${index + 1},${10000 * (index + 1)}`)]
  .join('\n');

// A hidden field of the page, as the browser would send it back.
function hidden(page: string, name: string): string {
  const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '';
  return value.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>')
    .replaceAll('&#39;', '\'').replaceAll('&amp;', '&');
}

// The preview of a file of `names`, checked for the account's supplier.
async function preview(browser: Browser, account: SupplierAccount, names: readonly string[]) {
  expect((await browser.get('/dashboard/invoice-upload')).statusCode).toBe(200);
  const page = await browser.postMultipart('/dashboard/invoice-upload/preview', [
    { name: 'supplierKey', content: account.supplier.supplierKey },
    { name: 'supplierEmail', content: 'tax@example.co.kr' },
    { name: 'file', filename: 'invoices.csv', content: csvOf(names) }]);
  expect(page.statusCode, page.body).toBe(200);
  return page.body;
}

const confirmationOf = (page: string) =>
  ({ payload: hidden(page, 'payload'), signature: hidden(page, 'signature') });

describe('the invoice upload for who may save drafts but not issue', () => {
  it('lets a Developer save a file\'s rows as drafts and never issue them', async () => {
    const team = await createSupplierAccount(app, '개발자 업로드 상회');
    const developer = await memberOf(team, 'developer');
    expect((await developer.get('/dashboard')).body).toContain('href="/dashboard/invoice-upload"');
    const page = await preview(developer, team, ['주식회사 하나', '주식회사 둘']);
    expect(page).toContain('action="/dashboard/invoice-upload/drafts"');
    expect(page).toContain('올바른 행 2개 임시저장');
    expect(page).not.toContain('올바른 행 2개 발행');
    const confirmation = confirmationOf(page);
    const issued = await developer.post('/dashboard/invoice-upload/issue', confirmation);
    expect(issued.statusCode).toBe(403);
    const imported = await developer.post('/dashboard/invoice-upload/drafts', confirmation);
    expect(imported.statusCode, imported.body).toBe(303);
    expect(imported.headers.location).toBe('/dashboard/drafts?notice=drafts.imported');
    expect(await draftsIn(team, 'DRAFT')).toHaveLength(2);
    expect(await draftsIn(team, 'SUBMITTED')).toHaveLength(0);
    const { taxInvoices } = await app.taxInvoices.service.list({ scope: scopeOf(team),
      limit: 10, filters: {} });
    expect(taxInvoices).toHaveLength(0);
    const viewer = await memberOf(team, 'viewer');
    expect((await viewer.get('/dashboard/invoice-upload')).statusCode).toBe(403);
  });

  it('submits what a Developer imports while the account requires approval, once, and not ' +
    'what an Issuer imports', async () => {
    const team = await createSupplierAccount(app, '승인 업로드 상회');
    await app.drafts.approval.setApprovalRequired({ accountId: team.accountId,
      approvalRequired: true, actor: 'test' });
    const developer = await memberOf(team, 'developer');
    const page = await preview(developer, team, ['주식회사 하나', '주식회사 둘']);
    expect(page).toContain('올바른 행 2개 임시저장하고 승인 요청');
    const confirmation = confirmationOf(page);
    const imported = await developer.post('/dashboard/invoice-upload/drafts', confirmation);
    expect(imported.statusCode, imported.body).toBe(303);
    expect(imported.headers.location).toBe('/dashboard/drafts?notice=drafts.importedSubmitted');
    expect((await developer.get(String(imported.headers.location))).body)
      .toContain('승인을 요청했습니다');
    expect(await draftsIn(team, 'SUBMITTED')).toHaveLength(2);
    expect(await draftsIn(team, 'DRAFT')).toHaveLength(0);
    const again = await developer.post('/dashboard/invoice-upload/drafts', confirmation);
    expect(again.headers.location).toBe(imported.headers.location);
    expect(await draftsIn(team, 'SUBMITTED')).toHaveLength(2);

    const issuer = await memberOf(team, 'issuer');
    const issuerPage = await preview(issuer, team, ['주식회사 셋']);
    expect(issuerPage).toContain('올바른 행 1개 발행');
    const issuerImport = await issuer.post('/dashboard/invoice-upload/drafts',
      confirmationOf(issuerPage));
    expect(issuerImport.headers.location).toBe('/dashboard/drafts?notice=drafts.imported');
    expect(await draftsIn(team, 'DRAFT')).toHaveLength(1);
    expect(await draftsIn(team, 'SUBMITTED')).toHaveLength(2);
  });

  it('leaves an imported draft that issuance would refuse unsubmitted, and says so',
    async () => {
      const team = await createSupplierAccount(app, '일부 승인 상회');
      await app.drafts.approval.setApprovalRequired({ accountId: team.accountId,
        approvalRequired: true, actor: 'test' });
      const developer = await memberOf(team, 'developer');
      const checked = JSON.parse(confirmationOf(await preview(developer, team,
        ['주식회사 하나'])).payload) as { rows: Array<{ row: number; body: unknown }> };
      // A row the preview would not have passed, signed for the session as the page signs its
      // confirmation: the draft is saved, and its submission refused.
      const payload = JSON.stringify({ ...checked, rows: [...checked.rows,
        { row: 3, body: { description: '공급가액 없음' } }] });
      const signature = createHmac('sha256', developer.cookies.get('etax_session')!)
        .update(`invoice-upload\u0000${payload}`).digest('base64url');
      const imported = await developer.post('/dashboard/invoice-upload/drafts',
        { payload, signature });
      expect(imported.statusCode, imported.body).toBe(303);
      expect(imported.headers.location)
        .toBe('/dashboard/drafts?notice=drafts.importedNotAllSubmitted');
      expect(await draftsIn(team, 'SUBMITTED')).toHaveLength(1);
      const [unsubmitted] = await draftsIn(team, 'DRAFT');
      expect(unsubmitted?.body).toEqual({ description: '공급가액 없음' });
    });
});

describe('the invoice upload issued as a bulk, and the rate limit', () => {
  const issuedIn = async (of: { accountId: string }) => (await app.taxInvoices.service.list({
    scope: scopeOf(of), limit: 100, filters: {} })).taxInvoices;

  it('counts each row as a single issue, all or none, as the bulk API does, and a ' +
    'confirmation sent again not again', async () => {
    const team = await createSupplierAccount(app, '업로드 한도 상회');
    const issuer = await memberOf(team, 'issuer');
    const tooMany = await preview(issuer, team, ['가', '나', '다', '라']);
    const refused = await issuer.post('/dashboard/invoice-upload/issue',
      confirmationOf(tooMany));
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toContain('요청이 너무 많습니다');
    expect(await issuedIn(team)).toHaveLength(0);

    const three = confirmationOf(await preview(issuer, team, ['가', '나', '다']));
    const issued = await issuer.post('/dashboard/invoice-upload/issue', three);
    expect(issued.statusCode, issued.body).toBe(200);
    expect(await issuedIn(team)).toHaveLength(3);
    const again = await issuer.post('/dashboard/invoice-upload/issue', three);
    expect(again.statusCode, again.body).toBe(200);
    expect(await issuedIn(team)).toHaveLength(3);

    const one = await preview(issuer, team, ['마']);
    const spent = await issuer.post('/dashboard/invoice-upload/issue', confirmationOf(one));
    expect(spent.statusCode).toBe(429);
    expect(await issuedIn(team)).toHaveLength(3);
  });
});
