import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Db, Executor } from '../db/connect.ts';
import type { JobDefinition } from '../jobs.ts';
import { MAIL_QUEUE, type MailJobData } from './outbox.ts';
import { MAIL_ERROR_LENGTH_MAX } from './tables.ts';
import * as store from './store.ts';
import type { MailAttachment, MailTransport } from './transport.ts';

// The job that sends one mail of the outbox. A PENDING mail is sent and marked SENT; a mail that
// is no longer PENDING was settled by an earlier run and is left alone. Without a transport the
// mail is KEPT. An SMTP failure is counted and the job throws, so pg-boss tries again with
// backoff; the last attempt marks the mail FAILED instead. A crash between the server's answer
// and the SENT mark sends the mail again: delivery is at least once.

// Attempts of one mail: with pg-boss's backoff from 30 s they span about half an hour, which
// rides out an SMTP server restart without leaving a request's mail unsent for long.
export const MAIL_SEND_ATTEMPTS_MAX = 6;
const MAIL_RETRY_DELAY_SECONDS = 30;
// Longer than the SMTP timeouts of one attempt together (transport.ts).
const MAIL_JOB_EXPIRY_SECONDS = 120;
const MAIL_BATCH_SIZE = 10;

// What an area adds to the mails of one kind: files made when the mail is sent (a PDF of what
// the mail is about, as it is then), and what to do, in the transaction that settles the mail,
// when the SMTP server accepted it or every attempt failed (a webhook event, say).
export type MailSettlement =
  | { status: 'SENT'; messageId: string; sentAt: Date }
  | { status: 'FAILED'; lastError: string };

export type MailKindHooks = {
  attachments?(mail: store.MailRow): Promise<MailAttachment[]>;
  settled?(tx: Executor, mail: store.MailRow, settlement: MailSettlement): Promise<void>;
};

// The hooks of each kind, registered by the areas when they are built.
export type MailKinds = Map<string, MailKindHooks>;

export type MailSenderDeps = {
  db: Db;
  // Null when no SMTP_URL is configured.
  transport: MailTransport | null;
  now: () => Date;
  log: Logger;
  kinds?: MailKinds;
};

// PENDING → SENT or FAILED with the kind's settlement hook in the same transaction, so the hook
// runs exactly when the mail was settled, once.
async function settle(deps: MailSenderDeps, mail: store.MailRow, settlement: MailSettlement,
  change: Parameters<typeof store.settleMail>[2]) {
  const hook = deps.kinds?.get(mail.kind)?.settled;
  await deps.db.transaction(async (tx) => {
    if (await store.settleMail(tx, mail.id, change) && hook) await hook(tx, mail, settlement);
  });
}

// What we record of a failure: nodemailer's error code and the SMTP reply code, never the
// server's text, which may echo the message.
function describeSendFailure(error: unknown): string {
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  const parts = [typeof code === 'string' ? code : 'SEND_FAILED'];
  if (typeof responseCode === 'number') parts.push(`SMTP ${responseCode}`);
  return parts.join(', ').slice(0, MAIL_ERROR_LENGTH_MAX);
}

type SendOutcome = 'skipped' | 'kept' | 'sent' | 'retrying' | 'failed';

export async function sendMail(deps: MailSenderDeps, mailId: string): Promise<SendOutcome> {
  const mail = await store.findMail(deps.db, mailId);
  if (mail === null || mail.status !== 'PENDING') return 'skipped';
  if (deps.transport === null) {
    await store.settleMail(deps.db, mailId, { status: 'KEPT' });
    return 'kept';
  }
  const attemptCount = mail.attemptCount + 1;
  try {
    const attachments = await deps.kinds?.get(mail.kind)?.attachments?.(mail) ?? [];
    const { messageId } = await deps.transport.send({ to: mail.recipient, cc: mail.cc,
      subject: mail.subject, text: mail.textBody, html: mail.htmlBody, attachments });
    const sentAt = deps.now();
    await settle(deps, mail, { status: 'SENT', messageId, sentAt },
      { status: 'SENT', messageId, sentAt, attemptCount });
    deps.log.info({ mailId, kind: mail.kind, attemptCount }, 'mail sent');
    return 'sent';
  } catch (error) {
    const lastError = describeSendFailure(error);
    deps.log.warn({ mailId, kind: mail.kind, attemptCount, lastError }, 'mail not sent');
    if (attemptCount >= MAIL_SEND_ATTEMPTS_MAX) {
      await settle(deps, mail, { status: 'FAILED', lastError },
        { status: 'FAILED', attemptCount, lastError });
      return 'failed';
    }
    await store.recordAttemptFailure(deps.db, mailId, { attemptCount, lastError });
    return 'retrying';
  }
}

class MailRetryError extends Error {}

export function mailJobDefinition(deps: MailSenderDeps): JobDefinition<MailJobData> {
  return {
    queue: MAIL_QUEUE,
    options: {
      retryLimit: MAIL_SEND_ATTEMPTS_MAX,
      retryDelay: MAIL_RETRY_DELAY_SECONDS,
      retryBackoff: true,
      expireInSeconds: MAIL_JOB_EXPIRY_SECONDS,
    },
    batchSize: MAIL_BATCH_SIZE,
    pollingIntervalSeconds: 1,
    async work(jobs: PgBoss.Job<MailJobData>[]) {
      // One failed mail must not hold back the others of the batch: every mail is tried, then
      // the batch fails (and is retried) if any of them is to be tried again.
      let retrying = 0;
      for (const job of jobs) {
        if (await sendMail(deps, job.data.mailId) === 'retrying') retrying += 1;
      }
      if (retrying > 0) throw new MailRetryError(`${retrying} mail(s) will be tried again`);
    },
  };
}
