import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Db, Executor } from '../db/connect.ts';
import type { JobDefinition } from '../jobs.ts';
import { MAIL_QUEUE, type MailJobData } from './outbox.ts';
import { MAIL_ERROR_LENGTH_MAX } from './tables.ts';
import * as store from './store.ts';
import { MailAttemptAborted, type MailAttachment, type MailTransport } from './transport.ts';

// The job that sends mails of the outbox. A PENDING mail is claimed (a lease on its row), sent
// and marked SENT; a mail that is no longer PENDING was settled by an earlier run and is left
// alone, and one whose lease another attempt holds is tried again later. Without a transport the
// mail is KEPT. An SMTP failure is counted, the lease ends and the job throws, so pg-boss tries
// again with backoff; the last attempt marks the mail FAILED instead.
//
// At most one attempt sends a mail at a time: the claim is one conditional UPDATE, and an attempt
// (the attachments and the whole SMTP exchange) ends by its deadline, its connection destroyed,
// well before its lease runs out. pg-boss gives up waiting for a batch at the job's expiry and
// runs its jobs again while the first run goes on, which is how a slow server once got the same
// mail twice from one process; now the second run finds the lease. Only a process that dies
// between the server's acceptance and the SENT mark, or a server that accepts a mail and never
// says so before the deadline, leaves a mail that is sent again once the lease runs out: SMTP
// itself cannot tell that case apart from a mail that was never taken (RFC 1047).

// Attempts of one mail: with pg-boss's backoff from 30 s they span about half an hour, which
// rides out an SMTP server restart without leaving a request's mail unsent for long.
export const MAIL_SEND_ATTEMPTS_MAX = 6;
const MAIL_RETRY_DELAY_SECONDS = 30;
// One attempt, attachments and SMTP exchange, ends within this.
const MAIL_ATTEMPT_DEADLINE_SECONDS = 60;
// A claimed mail is nobody else's for this long: the deadline with room for the statements that
// settle the attempt.
const MAIL_LEASE_SECONDS = 300;
// The mails of a batch are sent side by side, so a batch takes one attempt's deadline, and the
// job's expiry is longer than that.
const MAIL_JOB_EXPIRY_SECONDS = 180;
const MAIL_BATCH_SIZE = 10;

// What an area adds to the mails of one kind: files made when the mail is sent (a PDF of what
// the mail is about, as it is then), and what to do, in the transaction that settles the mail,
// when the SMTP server accepted it or every attempt failed (a webhook event, say).
type MailSettlement =
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
  // The bound of one attempt; MAIL_ATTEMPT_DEADLINE_SECONDS unless a test shortens it.
  attemptDeadlineMs?: number;
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

// What we record of a failure: nodemailer's error code (EDEADLINE for an attempt cut at its
// deadline) and the SMTP reply code, never the server's text, which may echo the message.
function describeSendFailure(error: unknown): string {
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  const parts = [typeof code === 'string' ? code : 'SEND_FAILED'];
  if (typeof responseCode === 'number') parts.push(`SMTP ${responseCode}`);
  return parts.join(', ').slice(0, MAIL_ERROR_LENGTH_MAX);
}

// 'leased': another attempt holds the mail; the job tries again later.
type SendOutcome = 'skipped' | 'kept' | 'sent' | 'leased' | 'retrying' | 'failed';

// Resolves with the work, or rejects once the signal aborts, whichever comes first.
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new MailAttemptAborted('the mail attempt passed its deadline'));
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

export async function sendMail(deps: MailSenderDeps, mailId: string): Promise<SendOutcome> {
  const mail = await store.claimMail(deps.db, mailId, MAIL_LEASE_SECONDS);
  if (mail === null) {
    const current = await store.findMail(deps.db, mailId);
    return current?.status === 'PENDING' ? 'leased' : 'skipped';
  }
  if (deps.transport === null) {
    await store.settleMail(deps.db, mailId, { status: 'KEPT' });
    return 'kept';
  }
  const { transport } = deps;
  const attemptCount = mail.attemptCount + 1;
  const signal = AbortSignal.timeout(
    deps.attemptDeadlineMs ?? MAIL_ATTEMPT_DEADLINE_SECONDS * 1_000);
  try {
    const attachments = await beforeDeadline(Promise.resolve(
      deps.kinds?.get(mail.kind)?.attachments?.(mail) ?? []), signal);
    const { messageId } = await transport.send({ to: mail.recipient, cc: mail.cc,
      subject: mail.subject, text: mail.textBody, html: mail.htmlBody, attachments }, signal);
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
      // The mails of a batch are sent side by side, so a slow or silent server costs the batch
      // one attempt's deadline, not one per mail. One failed mail must not hold back the
      // others: every mail is tried, then the batch fails (and is retried) if any of them is
      // to be tried again.
      const outcomes = await Promise.all(jobs.map((job) => sendMail(deps, job.data.mailId)));
      const retrying = outcomes.filter((outcome) =>
        outcome === 'retrying' || outcome === 'leased').length;
      if (retrying > 0) throw new MailRetryError(`${retrying} mail(s) will be tried again`);
    },
  };
}
