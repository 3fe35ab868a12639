// The connections, issuers and lookups pages of the dashboard in a real browser: the system
// Chromium, driven by playwright-core, against a listening etax whose workers run. Journeys as a
// person makes them: register an issuer, connect its tax portal and a bank account on the hosted
// page (the bank picked by its name), collect and sync now and see the outcome on the
// connection; register the issuer's certificate on the hosted page and see the history; run
// lookups with hostile strings and download the results. Every page is checked at 390 and
// 1280 px: nothing scrolls sideways, a full-page screenshot is saved under a temporary folder
// (printed), axe-core finds no serious or critical violation, and nothing a user typed runs.
import 'reflect-metadata';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage as checkPageIn, expectFailedLoad, launchChromium, openPage, screenshotFolder, signIn,
  startDashboardServer,
} from '../helpers/chromium.ts';
import {
  corporateSubject,
  createTestCa,
  issueCertificate,
  signPriKey,
} from '../areas/issuers/certificate-fixtures.ts';
import type { TestApp } from '../helpers/app.ts';
import { PASSWORD, usersOf } from '../dashboard/helpers.ts';

const BUSINESS_NUMBER = '1234567891';
const CERTIFICATE_PASSWORD = 'Browser-Records-Cert-3';
const HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';

let app: TestApp;
let browser: Browser;
let baseUrl: string;
let screenshots: string;

beforeAll(async () => {
  ({ app, baseUrl } = await startDashboardServer());
  browser = await launchChromium();
  screenshots = screenshotFolder('dashboard-connections');
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

let users = 0;

// A signed-in page for a new owner of `accountId`; axe is injected past the CSP. Every dialog is
// recorded (a confirmation the page asks for is accepted): an alert would be a script a user
// typed running.
async function signedInPage(accountId: string) {
  const email = `records${++users}-${Date.now()}@example.com`;
  await usersOf(app).createUser({ accountId, email, role: 'owner', password: PASSWORD });
  const session = await openPage(browser, { bypassCSP: true, acceptDownloads: true });
  await signIn(session.page, baseUrl, email, PASSWORD);
  return session;
}

const checkPage = (page: Page, name: string) => checkPageIn(page, screenshots, name);

// Reloads until `text` shows: the page shows a collection's or sync's outcome once the worker
// recorded it.
async function reloadUntil(page: Page, text: string) {
  for (let tries = 0; tries < 100; tries += 1) {
    if (await page.getByText(text, { exact: false }).count() > 0) return;
    await page.waitForTimeout(200);
    await page.reload();
  }
  expect(await page.getByText(text, { exact: false }).count(), text).toBeGreaterThan(0);
}

async function registerIssuer(page: Page, name: string) {
  await page.goto(`${baseUrl}/dashboard/issuers`);
  await page.fill('input[name="identificationNumber"]', BUSINESS_NUMBER);
  await page.fill('input[name="organizationName"]', name);
  await page.fill('input[name="representativeName"]', '홍길동');
  await Promise.all([page.waitForURL(/\/dashboard\/issuers\/iss_/),
    page.click('section[aria-labelledby="add-title"] button[type="submit"]')]);
  await page.getByText('발행자를 등록했습니다').waitFor();
}

describe('records pages in Chromium', () => {
  it('connects the tax portal and a bank account and sees their last sync', async () => {
    const { accountId } = await app.createAccount({ name: '연결 상회' });
    const { page, problems } = await signedInPage(accountId);
    await page.goto(`${baseUrl}/dashboard/connections`);
    await checkPage(page, 'connections-empty');
    // Sandbox connections are made to a business the account has as an issuer.
    await registerIssuer(page, '주식회사 이택스');
    await page.goto(`${baseUrl}/dashboard/connections`);
    await page.getByRole('button', { name: '홈택스 연결' }).click();
    await checkPage(page, 'connection-link');
    await page.click('#connection-link');
    await page.fill('input[name="businessRegistrationNumber"]', BUSINESS_NUMBER);
    await page.fill('input[name="userId"]', 'portal-user');
    await page.fill('input[name="password"]', 'portal-password');
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    await page.getByText('연결 완료', { exact: false }).first().waitFor();
    await page.goto(`${baseUrl}/dashboard/connections`);
    await page.getByText('샌드박스 사업자 7891').waitFor();
    await page.click('text=지금 수집');
    await reloadUntil(page, '수집 요청: 완료');
    expect(await page.locator('#hometax-title ~ ul dd', { hasText: '성공' }).count()).toBe(1);

    await page.getByRole('button', { name: '은행 계좌 연결' }).click();
    await page.click('#connection-link');
    await page.selectOption('select[name="bankCode"]', { label: 'KB국민은행 · Kookmin Bank' });
    await page.fill('input[name="accountNumber"]', '123-456-789012');
    await page.fill('input[name="userId"]', 'bank-user');
    await page.fill('input[name="password"]', 'bank-password');
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    await page.getByText('KB국민은행 ********9012').waitFor();
    await page.goto(`${baseUrl}/dashboard/connections`);
    await page.click('text=지금 동기화');
    await reloadUntil(page, '동기화 요청: 완료');
    const bank = page.locator('#bank-accounts-title ~ ul');
    expect(await bank.getByText('KB국민은행').count()).toBe(1);
    expect(await bank.locator('dd', { hasText: '성공' }).count()).toBe(1);
    expect(await bank.locator('dd', { hasText: /^[0-9,]+원$/ }).count()).toBe(1);
    await checkPage(page, 'connections');
    expect(problems).toEqual([]);
  });

  it('registers an issuer\'s certificate on the hosted page and sees its history', async () => {
    const { accountId } = await app.createAccount({ name: '인증서 상회' });
    const { page, problems } = await signedInPage(accountId);
    await page.goto(`${baseUrl}/dashboard/issuers`);
    await checkPage(page, 'issuers-empty');
    await registerIssuer(page, '주식회사 이택스');
    await page.click('text=공동인증서 등록');
    await page.click('#registration-link');
    const ca = await createTestCa();
    const certificate = await issueCertificate(ca,
      { subject: corporateSubject('이택스', BUSINESS_NUMBER) });
    const files = mkdtempSync(path.join(os.tmpdir(), 'etax-records-cert-'));
    writeFileSync(path.join(files, 'signCert.der'), certificate.certificateDer);
    writeFileSync(path.join(files, 'signPri.key'),
      signPriKey(certificate.pkcs8, CERTIFICATE_PASSWORD, 'pbes2'));
    await page.setInputFiles('input[name="signCert"]', path.join(files, 'signCert.der'));
    await page.setInputFiles('input[name="signPri"]', path.join(files, 'signPri.key'));
    await page.fill('input[name="password"]', CERTIFICATE_PASSWORD);
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    await page.getByText('Certificate registered', { exact: false }).first().waitFor();
    await page.goto(`${baseUrl}/dashboard/issuers`);
    await Promise.all([page.waitForURL(/\/dashboard\/issuers\/iss_/),
      page.locator('table a', { hasText: '주식회사 이택스' }).click()]);
    expect(await page.getByText(`이택스(${BUSINESS_NUMBER})`).first().isVisible()).toBe(true);
    expect(await page.locator('#history-title ~ * code', { hasText: 'REGISTERED' }).count())
      .toBe(1);
    expect(await page.getByText('(최근)').count()).toBe(1);
    await checkPage(page, 'issuer');
    await page.goto(`${baseUrl}/dashboard/issuers`);
    await checkPage(page, 'issuers');
    expect(problems).toEqual([]);
  });

  it('runs lookups with hostile strings and downloads the results', async () => {
    const { accountId } = await app.createAccount({ name: HOSTILE });
    const { page, problems, dialogs } = await signedInPage(accountId);
    await page.goto(`${baseUrl}/dashboard/lookups`);
    await checkPage(page, 'lookups');
    await page.selectOption('select[name="bankCode"]', { label: '신한은행' });
    await page.fill('section[aria-labelledby="holders-title"] textarea', ['110-123-456789',
      'KB국민은행, 9990000002', `Kookmin Bank, ${HOSTILE.slice(0, 40)}`].join('\n'));
    await page.click('section[aria-labelledby="holders-title"] button[type="submit"]');
    await page.getByText('최대 150 P 차감', { exact: false }).waitFor();
    await checkPage(page, 'lookup-preview');
    await page.click('text=조회 실행');
    await page.getByText('ACCOUNT_NOT_FOUND').waitFor();
    expect(await page.getByText('INVALID_ACCOUNT_NUMBER').count(),
      await page.locator('table').innerText()).toBe(1);
    // Shown as text, in the table and in the header (the account's own name).
    expect(await page.locator('table').getByText(HOSTILE.slice(0, 40)).count()).toBe(1);
    expect(await page.locator('header .account').textContent()).toBe(HOSTILE);
    await checkPage(page, 'lookup-results');
    const [download] = await Promise.all([page.waitForEvent('download'),
      page.click('text=CSV 내려받기')]);
    const csv = readFileSync(await download.path(), 'utf8');
    expect(download.suggestedFilename()).toBe('etax-holders-test.csv');
    expect(csv).toContain('004,KB국민은행,9990000002,,ACCOUNT_NOT_FOUND');
    await page.goto(`${baseUrl}/dashboard/lookups`);
    await page.fill('section[aria-labelledby="status-title"] textarea',
      `999-99-01004\n${HOSTILE}`);
    await page.click('section[aria-labelledby="status-title"] button[type="submit"]');
    await page.getByText('입력이 올바르지 않습니다', { exact: false }).first().waitFor();
    expect(await page.locator('section[aria-labelledby="status-title"] textarea').inputValue())
      .toContain(HOSTILE);
    // The refused numbers come back on the page with its status, 400.
    expectFailedLoad(problems, 400);
    expect(dialogs).toEqual([]);
    expect(problems).toEqual([]);
  });
});
