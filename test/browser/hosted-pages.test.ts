// The two hosted pages in a real browser: the system Chromium, driven by playwright-core,
// loads the certificate registration page (the form, every kind of outcome, a used link) and the
// reverse issuance approval page (the review, the confirmation) from a listening etax, at a
// phone's width (390 px) and a desktop's (1280 px). At each width nothing may scroll sideways,
// the texts that matter must be visible, and a full-page screenshot is saved under a temporary
// folder (printed) for a person to look at. The forms are filled and posted by the browser,
// so the multipart upload and the CSP of the real pages are exercised too.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEIGHT, launchChromium, WIDTHS } from '../helpers/chromium.ts';
import { expectLaidOut } from './layout-checks.ts';
import { issueSandboxCertificate } from '../../src/domain/sandbox-certificate.ts';
import {
  corporateSubject,
  createTestCa,
  issueCertificate,
  signPriKey,
  type TestCa,
  type TestCertificate,
} from '../areas/issuers/certificate-fixtures.ts';
import { createIssuer, request } from '../api/issuers/helpers.ts';
import { createSupplierAccount, invoiceBody } from '../api/tax-invoices/helpers.ts';
import {
  createReverseTestApp,
  grantPath,
  newRequest,
  type ReverseTestApp,
} from '../api/tax-invoices/reverse-helpers.ts';

const BUSINESS_NUMBER = '1234567891';
const PASSWORD = 'Browser-Cert-Pass-41';
const DAY_MS = 86_400_000;

let app: ReverseTestApp;
let browser: Browser;
let page: Page;
let baseUrl: string;
let screenshots: string;
let ca: TestCa;
let good: TestCertificate;

beforeAll(async () => {
  app = await createReverseTestApp();
  baseUrl = await app.server.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: WIDTHS[0], height: HEIGHT } });
  screenshots = mkdtempSync(path.join(os.tmpdir(), 'etax-hosted-pages-'));
  console.info(`hosted page screenshots: ${screenshots}`);
  ca = await createTestCa();
  good = await issueCertificate(ca, { subject: corporateSubject('이택스', BUSINESS_NUMBER) });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

// At each width: no sideways scrolling, every text visible, a screenshot. The page is laid out
// again at each width; nothing is reloaded, so a page that answered a POST is checked as is.
async function checkPage(name: string, texts: string[]) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    await expectLaidOut(page, `${name} at ${width}px`, texts);
    writeFileSync(path.join(screenshots, `${name}-${width}.png`),
      await page.screenshot({ fullPage: true }));
  }
  await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT });
}

async function registrationUrl(environment: 'test' | 'live') {
  const { keys } = await app.platform.accounts.createAccount({ name: 'Browser', plan: 'FREE' });
  const key = keys[environment];
  const { issuerId } = await createIssuer(app, key, { identificationNumber: BUSINESS_NUMBER,
    organizationName: '주식회사 이택스' });
  const response = await app.server.inject(request(key, 'GET',
    `/v1/issuers/${issuerId}/certificates/url`));
  return `${baseUrl}${new URL((response.json() as { url: string }).url).pathname}`;
}

type Files = { signCert: Buffer; signPri: Buffer; password: string };

const filesOf = (certificate: TestCertificate, password = PASSWORD): Files => ({
  signCert: certificate.certificateDer,
  signPri: signPriKey(certificate.pkcs8, PASSWORD, 'pbes2'),
  password,
});

// Fills the form as a person does and returns the status of the page it posted to.
async function upload(files: Files): Promise<number> {
  await page.setInputFiles('input[name="signCert"]', { name: 'signCert.der',
    mimeType: 'application/octet-stream', buffer: files.signCert });
  await page.setInputFiles('input[name="signPri"]', { name: 'signPri.key',
    mimeType: 'application/octet-stream', buffer: files.signPri });
  await page.fill('input[name="password"]', files.password);
  const [response] = await Promise.all([
    page.waitForResponse((answer) => answer.request().method() === 'POST'),
    page.click('button[type="submit"]'),
  ]);
  await page.waitForLoadState('load');
  return response.status();
}

describe('the certificate registration page', () => {
  it('shows the form, each failure with the form again, the registration, then 410',
    async () => {
      const url = await registrationUrl('test');
      expect((await page.goto(url))?.status()).toBe(200);
      await checkPage('certificate-form', ['공동인증서 등록', 'Joint certificate registration',
        '주식회사 이택스', '123-45-67891', 'Certificate password', 'Sandbox']);

      expect(await upload(filesOf(good, 'not-the-password'))).toBe(422);
      await checkPage('certificate-wrong-password', ['Wrong password', 'WRONG_PASSWORD',
        '비밀번호가 맞지 않습니다', 'You can try again with this link']);

      const another = await issueCertificate(ca, { keys: good.keys,
        subject: corporateSubject('남의회사', '1048123454') });
      expect(await upload(filesOf(another))).toBe(422);
      await checkPage('certificate-wrong-business', ['Another business', 'VID_MISMATCH',
        'identity data (VID)']);

      const expired = await issueCertificate(ca, { keys: good.keys,
        subject: corporateSubject('이택스', BUSINESS_NUMBER),
        notBefore: new Date(Date.now() - 400 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
      expect(await upload(filesOf(expired))).toBe(422);
      await checkPage('certificate-expired', ['The certificate has expired',
        'CERTIFICATE_EXPIRED']);

      expect(await upload({ ...filesOf(good), signPri: good.certificateDer })).toBe(422);
      await checkPage('certificate-unsupported-key', ['Unsupported key file',
        'PBES2 with PBKDF2-HMAC-SHA1 and SEED-CBC']);

      expect(await upload(filesOf(good))).toBe(200);
      await checkPage('certificate-registered', ['등록 완료', 'Certificate registered',
        `이택스(${BUSINESS_NUMBER})`, 'yessignCA-Test Class 2', 'You can close this page']);

      expect((await page.goto(url))?.status()).toBe(410);
      await checkPage('certificate-link-used', ['이 링크는 더 이상 사용할 수 없습니다',
        'already used']);
    });

  it('refuses a sandbox certificate on a live link, and says so', async () => {
    const sandbox = await issueSandboxCertificate({ businessRegistrationNumber: BUSINESS_NUMBER,
      organizationName: '이택스', password: PASSWORD, now: new Date() });
    expect((await page.goto(await registrationUrl('live')))?.status()).toBe(200);
    expect(await upload({ signCert: sandbox.signCert, signPri: sandbox.signPri,
      password: PASSWORD })).toBe(422);
    await checkPage('certificate-sandbox-on-live', ['A sandbox certificate',
      'SANDBOX_CERTIFICATE']);
  });
});

describe('the reverse issuance approval page', () => {
  it('shows the request to review, then the approval', async () => {
    const { key, supplier } = await createSupplierAccount(app, 'Browser buyer');
    const body = invoiceBody({ description: '11월 클라우드 이용료 및 기술 지원 (계약번호 ' +
      'ETX-2026-0042), 세부 내역은 첨부한 사용량 보고서를 참고해 주십시오.' });
    const issuanceKey = await newRequest(app, key, supplier.supplierKey, body);
    const url = `${baseUrl}${await grantPath(app, key, issuanceKey)}`;
    expect((await page.goto(url))?.status()).toBe(200);
    await checkPage('approval-review', ['세금계산서 역발행 승인', 'Reverse issuance approval',
      '주식회사 받는곳', '클라우드 사용료', '220,000원', issuanceKey, 'Sandbox request',
      'Approve and issue', 'Refuse']);
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.request().method() === 'POST'),
      page.click('button.primary'),
    ]);
    await page.waitForLoadState('load');
    expect(response.status()).toBe(200);
    await checkPage('approval-approved', ['승인 완료', 'Approved',
      'The tax invoice is being issued']);
  });
});
