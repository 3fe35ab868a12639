import type { Executor } from '../../../platform/db/connect.ts';
import {
  hashPageToken, isPageToken, newPageToken, pageLinkUrl, PageLinkError,
} from '../../../platform/page-links.ts';
import type { ApprovalChannel } from './tables.ts';
import * as store from './store.ts';

// One-time links to the approval page of a reverse issuance request (docs/reverse-issuance.md §
// Approval links), made like the hosted certificate page's links (platform/page-links.ts):
// a random token in the path is the only credential and only its SHA-256 is stored. Opening the
// page does not use a link, so a mail scanner that fetches it spends nothing; posting a decision
// uses it, in the transaction that changes the request.

// The approval URL lives ten minutes.
export const GRANT_LINK_TTL_MS = 10 * 60 * 1000;
export const APPROVAL_PAGE_PATH = '/taxInvoices/issueRequests/approval';

const SEOUL_OFFSET = '+09:00';
const DAY_MS = 24 * 60 * 60 * 1000;

// The end of the deadline day in Seoul, which has no daylight saving time: an email link works
// for as long as the request can be approved.
export function endOfSeoulDay(date: string): Date {
  return new Date(new Date(`${date}T00:00:00${SEOUL_OFFSET}`).getTime() + DAY_MS);
}

type LinkDeps = { publicBaseUrl: string; now: () => Date };

type ApprovalLink = { url: string; expiresAt: Date };

export function createApprovalLinks(deps: LinkDeps) {
  async function createLink(
    tx: Executor,
    input: { issuanceKey: string; channel: ApprovalChannel; expiresAt: Date },
  ): Promise<ApprovalLink> {
    const token = newPageToken();
    await store.insertApprovalToken(tx, { tokenHash: hashPageToken(token), ...input });
    return { url: pageLinkUrl(deps.publicBaseUrl, APPROVAL_PAGE_PATH, token),
      expiresAt: input.expiresAt };
  }

  // The link's row if it can still be used; PageLinkError otherwise.
  async function usableLink(executor: Executor, token: string) {
    const row = isPageToken(token)
      ? await store.findApprovalToken(executor, hashPageToken(token)) : null;
    if (row === null) throw new PageLinkError(404, 'This approval link does not exist.');
    if (row.usedAt !== null) {
      throw new PageLinkError(410, 'This approval link was already used.');
    }
    if (row.expiresAt.getTime() <= deps.now().getTime()) {
      throw new PageLinkError(410, 'This approval link has expired. Ask for a new one.');
    }
    return row;
  }

  // Uses the link inside the transaction of the decision; a link another decision used first,
  // or one that expired meanwhile, is refused.
  async function useLink(tx: Executor, tokenHash: string): Promise<void> {
    if (!(await store.useApprovalToken(tx, tokenHash, deps.now()))) {
      throw new PageLinkError(410, 'This approval link was already used or has expired.');
    }
  }

  return { createLink, usableLink, useLink };
}

export type ApprovalLinks = ReturnType<typeof createApprovalLinks>;
