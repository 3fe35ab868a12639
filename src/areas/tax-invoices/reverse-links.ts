import { createHash, randomBytes } from 'node:crypto';
import type { Executor } from '../../platform/db/connect.ts';
import type { ApprovalChannel } from './reverse-schema.ts';
import * as store from './reverse-store.ts';

// One-time links to the approval page of a reverse issuance request (docs/reverse-issuance.md §
// Approval links), made like the hosted certificate page's links (issuers/registration-links.ts):
// a random token in the path is the only credential and only its SHA-256 is stored. Opening the
// page does not use a link, so a mail scanner that fetches it spends nothing; posting a decision
// uses it, in the transaction that changes the request.

// Prior art (§5.3): the approval URL lives ten minutes.
export const GRANT_LINK_TTL_MS = 10 * 60 * 1000;
// 32 random bytes, like an API key: the token is the only credential of the page.
const TOKEN_RANDOM_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const APPROVAL_PAGE_PATH = '/taxInvoices/issueRequests/approval';

const SEOUL_OFFSET = '+09:00';
const DAY_MS = 24 * 60 * 60 * 1000;

// Why a link does not open: unknown (404), or used or expired (410).
export class ApprovalLinkError extends Error {
  readonly status: 404 | 410;
  constructor(status: 404 | 410, message: string) {
    super(message);
    this.status = status;
  }
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

// The end of the deadline day in Seoul, which has no daylight saving time: an email link works
// for as long as the request can be approved.
export function endOfSeoulDay(date: string): Date {
  return new Date(new Date(`${date}T00:00:00${SEOUL_OFFSET}`).getTime() + DAY_MS);
}

type LinkDeps = { publicBaseUrl: string; now: () => Date };

export type ApprovalLink = { url: string; expiresAt: Date };

export function createApprovalLinks(deps: LinkDeps) {
  const base = deps.publicBaseUrl.replace(/\/+$/, '');

  async function createLink(
    tx: Executor,
    input: { issuanceKey: string; channel: ApprovalChannel; expiresAt: Date },
  ): Promise<ApprovalLink> {
    const token = randomBytes(TOKEN_RANDOM_BYTES).toString('base64url');
    await store.insertApprovalToken(tx, { tokenHash: hashToken(token), ...input });
    return { url: `${base}${APPROVAL_PAGE_PATH}/${token}`, expiresAt: input.expiresAt };
  }

  // The link's row if it can still be used; ApprovalLinkError otherwise.
  async function usableLink(executor: Executor, token: string) {
    const row = TOKEN_PATTERN.test(token)
      ? await store.findApprovalToken(executor, hashToken(token)) : null;
    if (row === null) throw new ApprovalLinkError(404, 'This approval link does not exist.');
    if (row.usedAt !== null) {
      throw new ApprovalLinkError(410, 'This approval link was already used.');
    }
    if (row.expiresAt.getTime() <= deps.now().getTime()) {
      throw new ApprovalLinkError(410, 'This approval link has expired. Ask for a new one.');
    }
    return row;
  }

  // Uses the link inside the transaction of the decision; a link another decision used first,
  // or one that expired meanwhile, is refused.
  async function useLink(tx: Executor, tokenHash: string): Promise<void> {
    if (!(await store.useApprovalToken(tx, tokenHash, deps.now()))) {
      throw new ApprovalLinkError(410, 'This approval link was already used or has expired.');
    }
  }

  return { createLink, usableLink, useLink };
}

export type ApprovalLinks = ReturnType<typeof createApprovalLinks>;
