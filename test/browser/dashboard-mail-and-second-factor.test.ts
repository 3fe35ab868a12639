// The dashboard's mailed links and second factor in a real browser: an Owner invites a member,
// the invitation arrives at a real SMTP server (the test sink) through the outbox's job, the
// invitee opens its link, chooses a password and signs in; the member sets up TOTP from the QR
// page (the code computed as an authenticator app would) and signs in again with a code; the
// forgotten-password page. Each page is checked at 390 and 1280 px: no sideways scrolling, no
// console error, no serious or critical axe-core violation, and a screenshot under
// screenshots/dashboard/.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  accessibilityViolations, HEIGHT, launchChromium, openPage as openPageIn, WIDTHS,
} from '../helpers/chromium.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { createUser, PASSWORD } from '../dashboard/helpers.ts';
import { expectLaidOut } from './layout-checks.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = path.join(ROOT, 'screenshots', 'dashboard');
const MEMBER_PASSWORD = 'member chose this password';

let app: TestApp;
let sink: SmtpSink;
let browser: Browser;
let baseUrl: string;
let ownerEmail: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ jobs: true,
    env: { SMTP_URL: sink.url, MAIL_FROM: 'etax <no-reply@etax.example>' } });
  baseUrl = await app.server.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const account = await app.platform.accounts.createAccount({ name: '주식회사 이택스',
    plan: 'STANDARD' });
  ownerEmail = (await createUser(app, account.accountId, 'owner', 'owner@invite.example')).email;
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await sink?.close();
});

async function checkPage(page: Page, problems: string[], name: string, texts: string[]) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    await expectLaidOut(page, `${name} at ${width}px`, texts);
    expect(await accessibilityViolations(page), `${name} at ${width}px`).toEqual([]);
    writeFileSync(path.join(SCREENSHOTS, `${name}-${width}.png`),
      await page.screenshot({ fullPage: true }));
  }
  await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT });
  expect(problems, `${name}: console errors`).toEqual([]);
}

async function openPage() {
  const { page, problems } = await openPageIn(browser);
  return { context: page.context(), page, problems };
}

async function signInWithPassword(page: Page, email: string, password: string) {
  await page.goto(`${baseUrl}/dashboard/sign-in`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
  await page.waitForURL((url) => url.pathname !== '/dashboard/sign-in');
}

describe('mailed links and the second factor in Chromium', () => {
  it('invites a member by mail, who joins, sets up TOTP and signs in with a code', async () => {
    const owner = await openPage();
    await signInWithPassword(owner.page, ownerEmail, PASSWORD);
    await owner.page.goto(`${baseUrl}/dashboard/team`);
    const memberEmail = 'member@invite.example';
    await owner.page.fill('form[action="/dashboard/team/invite"] input[name="email"]',
      memberEmail);
    await owner.page.selectOption('form[action="/dashboard/team/invite"] select[name="role"]',
      'developer');
    await Promise.all([owner.page.waitForURL(/notice=team\.invited/),
      owner.page.click('form[action="/dashboard/team/invite"] button[type="submit"]')]);
    await checkPage(owner.page, owner.problems, 'team-invited',
      ['초대 메일을 보냈습니다', memberEmail]);

    // The mail job delivers it to the SMTP server.
    await expect.poll(() => sink.received.filter((mail) => mail.to.includes(memberEmail)).length,
      { timeout: 30_000 }).toBe(1);
    const mail = sink.received.find((received) => received.to.includes(memberEmail))!;
    const link = /(http:\/\/localhost:\d+\/dashboard\/invitation\/[A-Za-z0-9_-]{43})/
      .exec(mail.parts.join('\n'))?.[1];
    expect(link).toBeDefined();
    const invitee = await openPage();
    await invitee.page.goto(`${baseUrl}${new URL(link!).pathname}`);
    await checkPage(invitee.page, invitee.problems, 'invitation', ['초대 수락', memberEmail]);
    await invitee.page.fill('input[name="password"]', MEMBER_PASSWORD);
    await Promise.all([invitee.page.waitForURL(/notice=invitationAccepted/),
      invitee.page.click('button[type="submit"]')]);
    await signInWithPassword(invitee.page, memberEmail, MEMBER_PASSWORD);
    expect(new URL(invitee.page.url()).pathname).toBe('/dashboard');

    await invitee.page.goto(`${baseUrl}/dashboard/settings`);
    await Promise.all([invitee.page.waitForLoadState('load'),
      invitee.page.click('form[action="/dashboard/settings/two-factor/start"] button')]);
    const secret = (await invitee.page.textContent('code.secret'))!;
    await checkPage(invitee.page, invitee.problems, 'two-factor-setup', ['2단계 인증 설정']);
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    await invitee.page.fill('input[name="code"]', totp.generate());
    await Promise.all([invitee.page.waitForLoadState('load'),
      invitee.page.click('form[action="/dashboard/settings/two-factor/confirm"] button')]);
    await checkPage(invitee.page, invitee.problems, 'two-factor-recovery-codes',
      ['2단계 인증을 켰습니다', '복구 코드']);
    await invitee.context.close();

    const again = await openPage();
    await signInWithPassword(again.page, memberEmail, MEMBER_PASSWORD);
    expect(new URL(again.page.url()).pathname).toBe('/dashboard/sign-in/code');
    await checkPage(again.page, again.problems, 'sign-in-code', ['2단계 인증']);
    // The next step's code: the one that confirmed the set-up is spent.
    await again.page.fill('input[name="code"]',
      totp.generate({ timestamp: Date.now() + 30_000 }));
    await Promise.all([again.page.waitForURL(`${baseUrl}/dashboard`),
      again.page.click('button[type="submit"]')]);
    await again.context.close();
    await owner.context.close();
  });

  it('asks for a reset link with the same answer for any email', async () => {
    const { page, problems, context } = await openPage();
    await page.goto(`${baseUrl}/dashboard/sign-in`);
    await Promise.all([page.waitForURL(/forgot-password/), page.click('a[href*="forgot"]')]);
    await checkPage(page, problems, 'forgot-password', ['비밀번호 재설정']);
    await page.fill('input[name="email"]', 'nobody@invite.example');
    await Promise.all([page.waitForLoadState('load'), page.click('button[type="submit"]')]);
    await checkPage(page, problems, 'forgot-password-sent', ['재설정 링크를 보냈습니다']);
    await context.close();
  });
});
