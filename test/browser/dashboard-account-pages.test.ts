// The webhooks, owner business and operator pages of the dashboard in a real browser: the
// system Chromium, driven by playwright-core, against a listening etax whose workers run. Three
// journeys as a person makes them: add a webhook endpoint, send a test event and see its
// delivery succeed; set the owner business and register a sandbox certificate on the hosted
// page the dashboard links to; an operator grants live points. Every page is checked at a
// phone's width (390 px) and a desktop's (1280 px): nothing scrolls sideways, a full-page
// screenshot is saved under a temporary folder (printed), and axe-core finds no serious or
// critical violation.
import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage as checkPageIn, launchChromium, openPage, screenshotFolder, signIn,
  startDashboardServer,
} from '../helpers/chromium.ts';
import {
  corporateSubject,
  createTestCa,
  issueCertificate,
  signPriKey,
} from '../areas/issuers/certificate-fixtures.ts';
import { startReceiver, type Receiver } from '../api/webhooks/harness.ts';
import type { TestApp } from '../helpers/app.ts';
import { PASSWORD, usersOf } from '../dashboard/helpers.ts';

const BUSINESS_NUMBER = '1234567891';
const CERTIFICATE_PASSWORD = 'Browser-Dashboard-Cert-7';

let app: TestApp;
let receiver: Receiver;
let browser: Browser;
let baseUrl: string;
let screenshots: string;

beforeAll(async () => {
  ({ app, baseUrl } = await startDashboardServer({
    env: { WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true' } }));
  receiver = await startReceiver();
  browser = await launchChromium();
  screenshots = screenshotFolder('dashboard-pages');
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await app?.close();
});

let users = 0;
// A signed-in page for a new user of `accountId`; axe is injected past the CSP, which allows
// scripts from this server only.
async function signedInPage(accountId: string, options: { operator?: boolean } = {}) {
  const email = `browser${++users}-${Date.now()}@example.com`;
  await usersOf(app).createUser({ accountId, email, role: 'owner', password: PASSWORD,
    operator: options.operator ?? false });
  const { page } = await openPage(browser, { bypassCSP: true });
  await signIn(page, baseUrl, email, PASSWORD);
  return page;
}

// At each width: no sideways scrolling, a screenshot, and axe's serious and critical findings.
const checkPage = (page: Page, name: string) => checkPageIn(page, screenshots, name);

describe('dashboard pages in Chromium', () => {
  it('adds a webhook endpoint, sends a test event and sees it delivered', async () => {
    const { accountId } = await app.createAccount({ name: '브라우저 상회' });
    const page = await signedInPage(accountId);
    await page.goto(`${baseUrl}/dashboard/webhooks`);
    await checkPage(page, 'webhooks-empty');
    await page.fill('input[name="url"]', receiver.url);
    await page.fill('input[name="description"]', '주문 시스템');
    await page.check('input[value="TAX_INVOICE_ISSUANCE_SUCCESS"]');
    await page.click('section[aria-labelledby="add-title"] button[type="submit"]');
    expect(await page.locator('#new-secret').textContent()).toMatch(/^whsec_/);
    await checkPage(page, 'webhooks-secret');
    await page.click('text=엔드포인트로 돌아가기');
    await page.click('text=테스트 이벤트 보내기');
    await page.getByText('테스트 이벤트를 보냈습니다').waitFor();
    // The worker delivers it; the page shows the outcome once it is recorded.
    for (let tries = 0; tries < 50; tries += 1) {
      if (await page.locator('li.delivery', { hasText: '성공' }).count() > 0) break;
      await page.waitForTimeout(200);
      await page.reload();
    }
    expect(receiver.received.map((request) => JSON.parse(request.body).type))
      .toContain('WEBHOOK_TEST');
    await page.locator('li.delivery summary').first().click();
    await page.locator('li.delivery details').nth(1).locator('summary').click();
    await expect.poll(() => page.locator('li.delivery', { hasText: '성공' }).count())
      .toBeGreaterThan(0);
    await checkPage(page, 'webhook-endpoint');
    await page.goto(`${baseUrl}/dashboard/webhooks`);
    await checkPage(page, 'webhooks');
  });

  it('registers a sandbox certificate for the owner business on the hosted page', async () => {
    const { accountId } = await app.createAccount({ name: '인증서 상회' });
    const page = await signedInPage(accountId);
    await page.goto(`${baseUrl}/dashboard/business`);
    await checkPage(page, 'business-empty');
    await page.fill('input[name="businessNumber"]', BUSINESS_NUMBER);
    await page.fill('input[name="name"]', '주식회사 이택스');
    await page.fill('input[name="representativeName"]', '홍길동');
    await page.click('section[aria-labelledby="business-title"] button[type="submit"]');
    await page.getByText('계정 사업자를 저장했습니다').waitFor();
    await page.click('text=공동인증서 등록');
    await checkPage(page, 'business-link');
    await page.click('#registration-link');
    const ca = await createTestCa();
    const certificate = await issueCertificate(ca,
      { subject: corporateSubject('이택스', BUSINESS_NUMBER) });
    const files = mkdtempSync(path.join(os.tmpdir(), 'etax-dashboard-cert-'));
    writeFileSync(path.join(files, 'signCert.der'), certificate.certificateDer);
    writeFileSync(path.join(files, 'signPri.key'),
      signPriKey(certificate.pkcs8, CERTIFICATE_PASSWORD, 'pbes2'));
    await page.setInputFiles('input[name="signCert"]', path.join(files, 'signCert.der'));
    await page.setInputFiles('input[name="signPri"]', path.join(files, 'signPri.key'));
    await page.fill('input[name="password"]', CERTIFICATE_PASSWORD);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    await page.getByText('Certificate registered', { exact: false }).first().waitFor();
    await page.goto(`${baseUrl}/dashboard/business`);
    expect(await page.getByText(`이택스(${BUSINESS_NUMBER})`).first().isVisible()).toBe(true);
    expect(await page.locator('#history-title ~ * code', { hasText: 'REGISTERED' }).count())
      .toBeGreaterThan(0);
    await checkPage(page, 'business');
  });

  it('lets an operator grant live points', async () => {
    const operator = await app.createAccount({ name: 'Operations' });
    const customer = await app.createAccount({ name: '고객 주식회사' });
    const page = await signedInPage(operator.accountId, { operator: true });
    await page.goto(`${baseUrl}/dashboard/operator`);
    await checkPage(page, 'operator');
    await page.click(`a[href="/dashboard/operator/accounts/${customer.accountId}"]`);
    await page.fill('input[name="points"]', '2,000,000');
    await page.click('section[aria-labelledby="grant-title"] button[type="submit"]');
    await page.getByText('라이브 포인트를 지급했습니다').waitFor();
    expect(await page.getByText('사용 가능 2,000,000 P').isVisible()).toBe(true);
    expect((await app.platform.points.getBalance({ accountId: customer.accountId,
      environment: 'live' })).available).toBe(2_000_000);
    await checkPage(page, 'operator-account');
    // The account's own dashboard, read-only: the banner on every page, a Viewer's pages, every
    // change refused by the server, and the way back.
    await Promise.all([page.waitForURL(`${baseUrl}/dashboard`),
      page.click('section[aria-labelledby="open-title"] button[type="submit"]')]);
    expect(await page.locator('#viewing-banner').textContent()).toContain('고객 주식회사');
    await checkPage(page, 'operator-viewing-home');
    await page.goto(`${baseUrl}/dashboard/keys`);
    expect(await page.locator('#viewing-banner').isVisible()).toBe(true);
    expect(await page.locator('form[action="/dashboard/keys"]').count()).toBe(0);
    const refused = await page.evaluate(async () => {
      const token = document.querySelector<HTMLInputElement>('input[name="_csrf"]')!.value;
      const answer = await fetch('/dashboard/keys', { method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, label: 'x' }) });
      return answer.status;
    });
    expect(refused).toBe(403);
    expect(await app.platform.accounts.listKeys({ accountId: customer.accountId,
      environment: 'test' })).toHaveLength(1);
    await checkPage(page, 'operator-viewing-keys');
    await Promise.all([page.waitForURL(/\/dashboard\/operator\/accounts\//),
      page.click('#viewing-banner button[type="submit"]')]);
    expect(await page.locator('#viewing-banner').count()).toBe(0);
    await page.goto(`${baseUrl}/dashboard/operator/holidays`);
    await page.fill('input[name="date"]', '2031-05-06');
    await page.fill('input[name="name"]', '대체공휴일');
    await page.click('section[aria-labelledby="add-holiday-title"] button[type="submit"]');
    await page.getByText('공휴일을 추가했습니다').waitFor();
    await checkPage(page, 'operator-holidays');
    await page.goto(`${baseUrl}/dashboard/operator/outbox`);
    await checkPage(page, 'operator-outbox');
  });
});
