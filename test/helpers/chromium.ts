import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Role } from '../../src/dashboard/roles.ts';
import { createUser, PASSWORD } from '../dashboard/helpers.ts';
import { createTestApp, type TestApp, type TestAppOptions } from './app.ts';

// The browser the browser tests drive: Debian's Chromium, which CI installs (.ci/run);
// CHROMIUM_PATH points elsewhere. Pages are checked at a phone's width and a desktop's. What
// every dashboard browser test sets up is here: a listening app, a page that records what went
// wrong in it, the sign-in (of a new member, too), and the check of a page at both widths.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync'];
export const WIDTHS = [390, 1280] as const;
export const HEIGHT = 844;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}

// A free port, known before the app starts, so PUBLIC_BASE_URL (the links a page or a mail
// makes) names the address the browser reaches.
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// An app with its workers, listening on 127.0.0.1, its PUBLIC_BASE_URL its own address.
export async function startDashboardServer(options: TestAppOptions = {}):
  Promise<{ app: TestApp; baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const app = await createTestApp({ jobs: true, ...options,
    env: { PUBLIC_BASE_URL: baseUrl, ...options.env } });
  await app.server.listen({ host: '127.0.0.1', port });
  return { app, baseUrl };
}

// A folder for a test's screenshots, printed so a person can look at them.
export function screenshotFolder(name: string): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), `etax-${name}-`));
  console.info(`${name} screenshots: ${folder}`);
  return folder;
}

// A page and what went wrong in it: console errors and uncaught exceptions (`problems`), and
// every dialog (a confirmation the page asks for is accepted; an alert would be a script a
// user typed running).
export type OpenedPage = { page: Page; problems: string[]; dialogs: string[] };

export async function openPage(browser: Browser, options: BrowserContextOptions = {}):
  Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width: WIDTHS[0], height: HEIGHT },
    locale: 'ko-KR', timezoneId: 'Asia/Seoul', ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  const dialogs: string[] = [];
  // A failed load's console message does not name what failed; its location does.
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const { url } = message.location();
    problems.push(url ? `${message.text()} (${url})` : message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.accept();
  });
  return { page, problems, dialogs };
}

// Signs in on the sign-in page as a person does, and waits for the home page.
export async function signIn(page: Page, baseUrl: string, email: string, password: string) {
  await page.goto(`${baseUrl}/dashboard/sign-in`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await Promise.all([page.waitForURL(`${baseUrl}/dashboard`), page.click('button[type="submit"]')]);
}

// A page signed in as a new member of the account with `role`, and what goes wrong in it.
export async function signedInMember(browser: Browser, server: { app: TestApp; baseUrl: string },
  member: { accountId: string; role: Role }, options: BrowserContextOptions = {}):
  Promise<OpenedPage> {
  const { email } = await createUser(server.app, member.accountId, member.role);
  const opened = await openPage(browser, options);
  await signIn(opened.page, server.baseUrl, email, PASSWORD);
  return opened;
}

// axe-core's serious and critical findings on the page. Its source is evaluated in the page (as
// a devtools script, which the CSP does not govern, so the page's own policy stays as strict).
export async function accessibilityViolations(page: Page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{
      id: string; impact: string | null; nodes: Array<{ target: unknown }> }> }> } }).axe.run();
    return result.violations.filter((violation) =>
      violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({ id: violation.id, targets: violation.nodes.map((n) => n.target) }));
  });
}

// At each width: nothing scrolls sideways and a full-page screenshot is saved; then no serious
// or critical accessibility finding, and no script a hostile value could have run
// (`window.__xss`, which the tests' hostile strings set).
export async function checkPage(page: Page, folder: string, name: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    const overflow = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(overflow.scrollWidth, `${name} at ${width}px scrolls sideways`)
      .toBeLessThanOrEqual(overflow.clientWidth);
    writeFileSync(path.join(folder, `${name}-${width}.png`),
      await page.screenshot({ fullPage: true }));
  }
  await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT });
  expect(await accessibilityViolations(page), name).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), name)
    .toBeUndefined();
}

// Takes out of `problems` the failed loads a test caused on purpose (a refusal answered with
// that status, which Chromium logs as a console error).
export function expectFailedLoad(problems: string[], status: number) {
  const index = problems.findIndex((problem) => problem.includes(String(status)));
  if (index >= 0) problems.splice(index, 1);
}
