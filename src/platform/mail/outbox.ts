import assert from 'node:assert/strict';
import { newId } from '../../domain/ids.ts';
import type { Environment } from '../accounts/keys.ts';
import type { Executor } from '../db/connect.ts';
import type { StageJob } from '../jobs.ts';
import type { StageJobs } from '../jobs.ts';
import {
  MAIL_CC_COUNT_MAX,
  MAIL_HTML_LENGTH_MAX,
  MAIL_RECIPIENT_LENGTH_MAX,
  MAIL_SUBJECT_LENGTH_MAX,
  MAIL_TEXT_LENGTH_MAX,
  type MailStatus,
} from './tables.ts';
import * as store from './store.ts';

// Queuing a mail is an outbox insert: the row, and with an SMTP server
// the job that sends it, are written in the caller's transaction. If it commits the mail is
// sent, or kept readable, even when the process dies right after; if it rolls back, no mail
// ever existed. Without an SMTP server (no SMTP_URL) the mail is KEPT at once and no job is
// staged: nothing could send it.

export const MAIL_QUEUE = 'mail-outbox';
export type MailJobData = { mailId: string };

export type OutgoingMail = {
  kind: string;
  to: string;
  // Copies (Cc); none by default.
  cc?: readonly string[];
  subject: string;
  text: string;
  html?: string | null;
  scope?: { accountId: string; environment: Environment } | null;
  // What the mail is about (an issuance key, say), for its kind's hooks (send-job.ts).
  reference?: string | null;
};

type QueuedMail = { id: string; status: Extract<MailStatus, 'PENDING' | 'KEPT'> };

export type QueueMail = (executor: Executor, mail: OutgoingMail) => Promise<QueuedMail>;

// Many mails in one statement and their jobs in one more, for work that mails a batch.
export type QueueMails = (executor: Executor, mails: readonly OutgoingMail[]) =>
  Promise<QueuedMail[]>;

type QueuerDeps = { stage: StageJob; sendingEnabled: boolean };

// Our templates build every mail, so a value out of bounds is a bug, not a client mistake.
function assertBounded(mail: OutgoingMail) {
  for (const address of [mail.to, ...(mail.cc ?? [])]) {
    assert(address.length >= 3 && address.length <= MAIL_RECIPIENT_LENGTH_MAX);
    assert(!/[\r\n,;<>]/.test(address));
  }
  assert((mail.cc ?? []).length <= MAIL_CC_COUNT_MAX);
  assert(mail.subject.length >= 1 && mail.subject.length <= MAIL_SUBJECT_LENGTH_MAX);
  assert(mail.text.length <= MAIL_TEXT_LENGTH_MAX);
  assert((mail.html ?? '').length <= MAIL_HTML_LENGTH_MAX);
  // A line break in a header would let a value add headers of its own.
  assert(!/[\r\n]/.test(mail.subject));
}

function rowOf(mail: OutgoingMail, status: QueuedMail['status']) {
  return {
    id: newId('mail'),
    accountId: mail.scope?.accountId ?? null,
    environment: mail.scope?.environment ?? null,
    kind: mail.kind,
    recipient: mail.to,
    cc: [...(mail.cc ?? [])],
    reference: mail.reference ?? null,
    subject: mail.subject,
    textBody: mail.text,
    htmlBody: mail.html ?? null,
    status,
  };
}

export function createMailQueuer(deps: QueuerDeps): QueueMail {
  return async (executor, mail) => {
    assertBounded(mail);
    const status = deps.sendingEnabled ? 'PENDING' : 'KEPT';
    const row = await store.insertMail(executor, rowOf(mail, status));
    if (status === 'PENDING') {
      const data: MailJobData = { mailId: row.id };
      await deps.stage(executor, MAIL_QUEUE, data);
    }
    return { id: row.id, status };
  };
}

export function createMailsQueuer(deps: { stageMany: StageJobs; sendingEnabled: boolean }):
  QueueMails {
  return async (executor, mails) => {
    if (mails.length === 0) return [];
    mails.forEach(assertBounded);
    const status = deps.sendingEnabled ? 'PENDING' : 'KEPT';
    const rows = mails.map((mail) => rowOf(mail, status));
    assert.equal(await store.insertMails(executor, rows), rows.length);
    if (status === 'PENDING') {
      await deps.stageMany(executor, MAIL_QUEUE, rows.map((row) => ({
        data: { mailId: row.id } satisfies MailJobData })));
    }
    return rows.map((row) => ({ id: row.id, status }));
  };
}

// What `etax mail outbox` prints: the newest mails, with their text.
export type OutboxEntry = {
  id: string;
  status: MailStatus;
  kind: string;
  to: string;
  cc: string[];
  // What the mail is about (an issuance key, say), or null.
  reference: string | null;
  subject: string;
  text: string;
  attemptCount: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
};

export async function readOutbox(
  executor: Executor,
  options: { limit: number; statuses?: readonly MailStatus[] },
): Promise<OutboxEntry[]> {
  const rows = await store.listMails(executor, options);
  return rows.map((row) => ({
    id: row.id,
    status: row.status,
    kind: row.kind,
    to: row.recipient,
    cc: row.cc,
    reference: row.reference,
    subject: row.subject,
    text: row.textBody,
    attemptCount: row.attemptCount,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    sentAt: row.sentAt?.toISOString() ?? null,
  }));
}
