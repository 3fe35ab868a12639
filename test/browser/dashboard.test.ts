// The dashboard in a real browser: the system Chromium, driven by playwright-core, against a
// listening etax. Journeys a person takes: sign in, create an API key and call /v1/points with
// it, filter the ledger (htmx), switch language and environment, sign out everywhere; a Viewer
// refused a mutation. Every page is checked at a phone's width (390 px) and a desktop's
// (1280 px): nothing scrolls sideways, no request breaks the CSP, axe-core finds no serious or
// critical accessibility violation, and a full-page screenshot is saved under screenshots/
// (git-ignored) for a person to look at.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  accessibilityViolations, HEIGHT, launchChromium, openPage, signIn as signInAs, WIDTHS,
} from '../helpers/chromium.ts';
import { basicAuth } from '../helpers/http.ts';
import { createUser, PASSWORD } from '../dashboard/helpers.ts';
import { expectLaidOut } from './layout-checks.ts';

// Debian's Chromium; CI installs it (.ci/run). CHROMIUM_PATH points elsewhere.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = path.join(ROOT, 'screenshots', 'dashboard');

let app: TestApp;
let browser: Browser;
let baseUrl: string;
let owner: { email: string; accountId: string };
let viewerEmail: string;

beforeAll(async () => {
  app = await createTestApp();
  baseUrl = await app.server.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  console.info(`dashboard screenshots: ${SCREENSHOTS}`);
  const account = await app.platform.accounts.createAccount({ name: '주식회사 이택스',
    plan: 'STANDARD' });
  const user = await createUser(app, account.accountId, 'owner', 'owner@etax.example');
  owner = { email: user.email, accountId: account.accountId };
  viewerEmail = (await createUser(app, account.accountId, 'viewer', 'viewer@etax.example')).email;
  const { points } = app.platform;
  const reservation = await points.reserve({ accountId: account.accountId, environment: 'test',
    operation: 'bank.holders.inquire', points: 150 });
  await points.capture({ reservation, chargePoints: 100 });
  await points.debit({ accountId: account.accountId, environment: 'test',
    operation: 'cashReceipts.issue', points: 10, requiredPoints: 10 });
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

type Session = { context: BrowserContext; page: Page; problems: string[] };

async function openSession(): Promise<Session> {
  const { page, problems } = await openPage(browser);
  const context = page.context();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  return { context, page, problems };
}

async function signIn(page: Page, email: string) {
  await page.goto(`${baseUrl}/dashboard`);
  expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
  await signInAs(page, baseUrl, email, PASSWORD);
}

// At each width: no sideways scrolling, the texts visible, no accessibility problem that
// matters, a screenshot.
async function checkPage(session: Session, name: string, texts: string[]) {
  const { page } = session;
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    await expectLaidOut(page, `${name} at ${width}px`, texts);
    expect(await accessibilityViolations(page), `${name} at ${width}px`).toEqual([]);
    writeFileSync(path.join(SCREENSHOTS, `${name}-${width}.png`),
      await page.screenshot({ fullPage: true }));
  }
  await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT });
  expect(session.problems, `${name}: console errors`).toEqual([]);
}

describe('the dashboard in Chromium', () => {
  it('signs in, creates a key that calls /v1/points, and shows every page', async () => {
    const session = await openSession();
    const { page } = session;
    await page.goto(`${baseUrl}/dashboard/sign-in`);
    await checkPage(session, 'sign-in', ['로그인', 'English']);
    await signIn(page, owner.email);
    await checkPage(session, 'home', ['포인트 잔액', '최근 30일 사용량', '테스트 환경입니다',
      'bank.holders.inquire', '다음 세금계산서 발급 기한']);

    await page.click('nav a[href="/dashboard/keys"]');
    await page.fill('input[name="label"]', '운영 서버');
    await page.click('form[action="/dashboard/keys"] button[type="submit"]');
    const key = (await page.textContent('#new-key'))!;
    expect(key).toMatch(/^test_[A-Za-z0-9_-]{43}$/);
    // The copy button exists only when the dashboard's script ran under the CSP.
    await page.click('button[data-copy="new-key"]');
    await expect.poll(() => page.textContent('button[data-copy="new-key"]')).toBe('복사했습니다');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await checkPage(session, 'key-created', ['새 키를 만들었습니다', key]);
    // Shown once: a reload shows the list, not the key, and makes no second key.
    await page.reload();
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('#new-key').count()).toBe(0);
    // That page answers 410, which Chromium logs as a failed load: expected here.
    session.problems.splice(0, session.problems.length,
      ...session.problems.filter((problem) => !problem.includes('410')));
    const response = await fetch(`${baseUrl}/v1/points`,
      { headers: { authorization: basicAuth(key) } });
    expect(response.status).toBe(200);
    await page.click('a[href="/dashboard/keys"]');
    await checkPage(session, 'keys', ['운영 서버', '폐기한 키는']);

    await page.click('nav a[href="/dashboard/points"]');
    await checkPage(session, 'points', ['원장', 'sign-up test points', 'bank.holders.inquire']);
    // The filter swaps the table through htmx and keeps the address.
    await page.selectOption('select[name="kind"]', 'grant');
    await Promise.all([page.waitForURL(/kind=grant/), page.click('form[hx-get] button')]);
    await expect.poll(async () => page.locator('#ledger code', { hasText: 'bank.holders' })
      .count()).toBe(0);
    expect(await page.getByText('sign-up test points').isVisible()).toBe(true);

    await page.click('nav a[href="/dashboard/plan"]');
    await checkPage(session, 'plan', ['현재 요금제: STANDARD', 'bank.holders.inquire']);
    await page.click('nav a[href="/dashboard/team"]');
    await checkPage(session, 'team', ['구성원', owner.email, viewerEmail]);
    await page.click('nav a[href="/dashboard/audit"]');
    await checkPage(session, 'audit', ['감사 로그', 'API 키 생성', owner.email]);
    await page.click('nav a[href="/dashboard/settings"]');
    await checkPage(session, 'settings', ['로그인된 세션', '모든 기기에서 로그아웃']);

    // The switches come back to the page they were pressed on.
    await Promise.all([page.waitForResponse((answer) => answer.status() === 303),
      page.click('header button[lang="en"]')]);
    await page.waitForLoadState('load');
    expect(new URL(page.url()).pathname).toBe('/dashboard/settings');
    await checkPage(session, 'settings-en', ['Sessions', 'Sign out everywhere']);
    await page.click('nav a[href="/dashboard"]');
    await checkPage(session, 'home-en', ['Point balances', 'Usage, last 30 days']);
    await Promise.all([page.waitForResponse((answer) => answer.status() === 303),
      page.click('.env-switch button')]);
    await page.waitForLoadState('load');
    await checkPage(session, 'home-live', ['Live environment.', 'No points were spent']);
    await session.context.close();
  });

  it('signs out everywhere', async () => {
    const first = await openSession();
    const second = await openSession();
    await signIn(first.page, owner.email);
    await signIn(second.page, owner.email);
    await first.page.goto(`${baseUrl}/dashboard/settings`);
    await Promise.all([first.page.waitForURL(/\/dashboard\/sign-in/),
      first.page.click('form[action="/dashboard/settings/sign-out-everywhere"] button')]);
    await second.page.goto(`${baseUrl}/dashboard/keys`);
    expect(new URL(second.page.url()).pathname).toBe('/dashboard/sign-in');
    await first.context.close();
    await second.context.close();
  });

  it('refuses a Viewer a mutation', async () => {
    const session = await openSession();
    const { page } = session;
    await signIn(page, viewerEmail);
    await page.goto(`${baseUrl}/dashboard/keys`);
    expect(await page.locator('form[action="/dashboard/keys"]').count()).toBe(0);
    // The form the page does not offer, posted anyway with the page's own token.
    const [response] = await Promise.all([
      page.waitForResponse((answer) => answer.request().method() === 'POST'),
      page.evaluate(() => {
        const token = document.querySelector<HTMLInputElement>('input[name="_csrf"]')!.value;
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/dashboard/keys';
        for (const [name, value] of [['_csrf', token], ['label', 'not allowed']]) {
          const input = document.createElement('input');
          input.name = name!;
          input.value = value!;
          form.append(input);
        }
        document.body.append(form);
        // After evaluate has returned: the navigation would otherwise end it.
        setTimeout(() => form.submit(), 0);
      }),
    ]);
    expect(response.status()).toBe(403);
    // The refusal's page replaces the form's: wait until it is the one shown, so nothing reads
    // a document that is being navigated away from.
    await page.getByText('권한이 없습니다').first().waitFor();
    await page.waitForLoadState('load');
    await checkPage({ ...session, problems: [] }, 'viewer-refused', ['권한이 없습니다',
      'Viewer']);
    expect(await app.platform.accounts.listKeys({ accountId: owner.accountId,
      environment: 'test' })).not.toContainEqual(expect.objectContaining({ label: 'not allowed' }));
    await session.context.close();
  });
});
