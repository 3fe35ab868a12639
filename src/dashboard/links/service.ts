import type { Db, Executor, Tx } from '../../platform/db/connect.ts';
import { escapeHtml } from '../../platform/html-page.ts';
import type { QueueMail } from '../../platform/mail/outbox.ts';
import { hashPageToken, isPageToken, newPageToken } from '../../platform/page-links.ts';
import { newId } from '../../domain/ids.ts';
import type { Role } from '../roles.ts';
import { hashPassword } from '../users/password.ts';
import { checkPassword, normalizeEmail, UserInputError } from '../users/service.ts';
import * as users from '../users/store.ts';
import * as store from './store.ts';

// Invitations and password resets by mail (docs/dashboard.md § Invitations and password
// resets). A link carries 32 random bytes in its path, the only credential; the table keeps
// their SHA-256. Opening a link's page reads it and changes nothing (a mail scanner that follows
// links spends nothing); the form it shows uses it, in the transaction that creates the user or
// sets the password, so a link works once. The mail goes through the platform's outbox, in the
// transaction that made the link: sent by SMTP, or kept for `etax mail outbox`.

// An invitation waits a week for its invitee; a reset link is for someone at their desk now.
const INVITATION_TTL_SECONDS = 7 * 24 * 60 * 60;
const RESET_TTL_SECONDS = 30 * 60;

const INVITATION_MAIL_KIND = 'DASHBOARD_INVITATION';
const PASSWORD_RESET_MAIL_KIND = 'DASHBOARD_PASSWORD_RESET';

export const INVITATION_PATH = '/dashboard/invitation';
export const RESET_PATH = '/dashboard/reset-password';

// Why a link does not open: it names no link of its kind, was used, or expired.
export class LinkError extends Error {
  constructor(readonly reason: 'unknown' | 'used' | 'expired') {
    super(`the link is ${reason}`);
  }
}

export type OpenInvitation = { email: string; role: Role; createdAt: Date; expiresAt: Date };

type Deps = { db: Db; queueMail: QueueMail; publicBaseUrl: string; now: () => Date };

function invitationMail(input: { to: string; accountName: string; role: Role; url: string;
  invitedBy: string; expiresAt: Date }) {
  const days = Math.round(INVITATION_TTL_SECONDS / 86_400);
  const ko = [`${input.invitedBy} 님이 etax 계정 "${input.accountName}"에 초대했습니다 ` +
    `(역할: ${input.role}).`, 'Set your password at the link below to join.',
  `아래 링크에서 비밀번호를 정하면 가입됩니다. 링크는 ${days}일 동안 한 번만 쓸 수 있습니다.`];
  const en = `${input.invitedBy} invited you to the etax account "${input.accountName}" as ` +
    `${input.role}. The link works once, for ${days} days.`;
  return {
    kind: INVITATION_MAIL_KIND,
    to: input.to,
    subject: '[etax] 대시보드 초대 · Invitation to the etax dashboard',
    text: [ko[0], ko[2], '', input.url, '', en, '',
      '초대를 기대하지 않았다면 이 메일을 무시하세요. If you did not expect it, ignore this mail.']
      .join('\n'),
    html: [`<p>${escapeHtml(ko[0]!)}</p>`, `<p>${escapeHtml(ko[2]!)}</p>`,
      `<p><a href="${escapeHtml(input.url)}">${escapeHtml(input.url)}</a></p>`,
      `<p lang="en">${escapeHtml(en)}</p>`].join('\n'),
  };
}

function resetMail(input: { to: string; url: string }) {
  const minutes = Math.round(RESET_TTL_SECONDS / 60);
  const ko = `etax 대시보드 비밀번호 재설정을 요청하셨습니다. 아래 링크는 ${minutes}분 동안 한 번만 쓸 수 ` +
    '있습니다. 요청하지 않았다면 이 메일을 무시하세요. 비밀번호는 그대로입니다.';
  const en = 'Someone asked to reset your etax dashboard password. The link works once, for ' +
    `${minutes} minutes. If it was not you, ignore this mail: your password stays as it is.`;
  return {
    kind: PASSWORD_RESET_MAIL_KIND,
    to: input.to,
    subject: '[etax] 비밀번호 재설정 · Reset your password',
    text: [ko, '', input.url, '', en].join('\n'),
    html: [`<p>${escapeHtml(ko)}</p>`,
      `<p><a href="${escapeHtml(input.url)}">${escapeHtml(input.url)}</a></p>`,
      `<p lang="en">${escapeHtml(en)}</p>`].join('\n'),
  };
}

// What both kinds of link share: where links point, when they expire, reading and using one.
function linkKit(deps: Deps) {
  const { db } = deps;
  // The address in the mail is the configured public one, never the request's Host header: a
  // forged Host would otherwise send the invitee's token to another server.
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const expiry = (seconds: number) => new Date(deps.now().getTime() + seconds * 1000);

  // The link's row while it can still be used; LinkError otherwise.
  async function usable(token: string, purpose: store.LinkPurpose, executor: Executor = db):
    Promise<store.LinkRow> {
    const row = isPageToken(token) ? await store.findLink(executor, hashPageToken(token), purpose)
      : null;
    if (row === null) throw new LinkError('unknown');
    if (row.usedAt !== null) throw new LinkError('used');
    if (row.expiresAt.getTime() <= deps.now().getTime()) throw new LinkError('expired');
    return row;
  }

  // Uses the link in `tx`, or says why it cannot be.
  async function use(tx: Tx, token: string, purpose: store.LinkPurpose) {
    const tokenHash = isPageToken(token) ? hashPageToken(token) : null;
    const row = tokenHash === null ? null : await store.useLink(tx, tokenHash, purpose);
    if (row !== null) return row;
    // Read in the transaction: the embedded database serves one session, where a query beside
    // an open transaction waits for it forever.
    await usable(token, purpose, tx);
    // Used or expired between the check and now.
    throw new LinkError('used');
  }

  return { db, base, expiry, usable, use };
}

function invitations(deps: Deps, kit: ReturnType<typeof linkKit>) {
  const { db, base, expiry, usable, use } = kit;
  // Mails an invitation to join the account with a role. An email that already has a user
  // cannot be invited (an email has one user); an earlier open invitation to it is replaced.
  async function invite(input: { accountId: string; accountName: string; email: string;
    role: Role; invitedBy: string }): Promise<{ email: string; expiresAt: Date }> {
    const email = normalizeEmail(input.email);
    if (email === null) throw new UserInputError('emailInvalid', 'not an email address');
    if (await users.findUserByEmail(db, email) !== null) {
      throw new UserInputError('emailTaken', `${email} already has a user`);
    }
    const token = newPageToken();
    const expiresAt = expiry(INVITATION_TTL_SECONDS);
    await db.transaction(async (tx) => {
      await store.deleteStaleLinks(tx);
      await store.deleteOpenInvitations(tx, input.accountId, email);
      await store.insertLink(tx, { tokenHash: hashPageToken(token), purpose: 'invitation',
        accountId: input.accountId, email, role: input.role, expiresAt });
      await deps.queueMail(tx, invitationMail({ to: email, accountName: input.accountName,
        role: input.role, invitedBy: input.invitedBy, expiresAt,
        url: `${base}${INVITATION_PATH}/${token}` }));
    });
    return { email, expiresAt };
  }

  const openInvitations = async (accountId: string): Promise<OpenInvitation[]> =>
    (await store.listOpenInvitations(db, accountId)).map((row) => ({ email: row.email,
      role: row.role as Role, createdAt: row.createdAt, expiresAt: row.expiresAt }));

  const cancelInvitations = (accountId: string, email: string) =>
    store.deleteOpenInvitations(db, accountId, email);

  // What the invitation page shows before its form is posted.
  async function readInvitation(token: string) {
    const row = await usable(token, 'invitation');
    return { email: row.email, role: row.role as Role, accountId: row.accountId };
  }

  // Uses the invitation and creates its user with the chosen password, together: a link whose
  // user could not be created (the email got a user meanwhile) stays unused.
  async function acceptInvitation(token: string, password: string) {
    checkPassword(password);
    const passwordHash = await hashPassword(password);
    return db.transaction(async (tx) => {
      const link = await use(tx, token, 'invitation');
      const user = await users.insertUser(tx, { id: newId('dashboardUser'),
        accountId: link.accountId, email: link.email, passwordHash, role: link.role ?? 'viewer' });
      if (user === null) throw new UserInputError('emailTaken', `${link.email} already has a user`);
      return { userId: user.id, accountId: user.accountId, email: user.email,
        role: user.role as Role };
    });
  }

  return { invite, openInvitations, cancelInvitations, readInvitation, acceptInvitation };
}

function resets(deps: Deps, kit: ReturnType<typeof linkKit>) {
  const { db, base, expiry, usable, use } = kit;
  // Mails a reset link to the user of the email, if there is one; the caller answers the same
  // either way. A new link makes the user's earlier ones worthless.
  async function requestReset(rawEmail: string): Promise<{ userId: string;
    accountId: string; email: string } | null> {
    const email = normalizeEmail(rawEmail);
    const user = email === null ? null : await users.findUserByEmail(db, email);
    if (user === null) return null;
    const token = newPageToken();
    await db.transaction(async (tx) => {
      await store.deleteStaleLinks(tx);
      await store.deleteOpenResets(tx, user.id);
      await store.insertLink(tx, { tokenHash: hashPageToken(token), purpose: 'password_reset',
        accountId: user.accountId, userId: user.id, email: user.email,
        expiresAt: expiry(RESET_TTL_SECONDS) });
      await deps.queueMail(tx, resetMail({ to: user.email, url: `${base}${RESET_PATH}/${token}` }));
    });
    return { userId: user.id, accountId: user.accountId, email: user.email };
  }

  async function readReset(token: string) {
    const row = await usable(token, 'password_reset');
    return { email: row.email };
  }

  // Uses the reset link and sets the password, together. The caller ends the user's sessions.
  async function resetPassword(token: string, password: string) {
    checkPassword(password);
    const passwordHash = await hashPassword(password);
    return db.transaction(async (tx) => {
      const link = await use(tx, token, 'password_reset');
      if (link.userId === null || await users.updatePasswordHash(tx, link.userId,
        passwordHash) === null) {
        throw new LinkError('unknown');
      }
      await store.deleteOpenResets(tx, link.userId);
      return { userId: link.userId, accountId: link.accountId, email: link.email };
    });
  }

  return { requestReset, readReset, resetPassword };
}

export function createLinksService(deps: Deps) {
  const kit = linkKit(deps);
  return { ...invitations(deps, kit), ...resets(deps, kit) };
}

export type LinksService = ReturnType<typeof createLinksService>;
