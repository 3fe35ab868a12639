import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, pagingSequence, timestampTz, updatedAt } from '../db/columns.ts';

// The mail outbox (docs/operations.md § Mail). Every mail etax sends is first a row here,
// inserted in the transaction of the change it tells about, so a mail exists exactly when that
// change committed. A job sends it; without an SMTP server it is kept here to be read with
// `etax mail outbox`.

//   PENDING: waiting for its job (or for the next attempt after an SMTP failure); while one
//            attempt is under way its `lease_until` is in the future and no other may start
//   SENT:    the SMTP server accepted it
//   KEPT:    no SMTP server is configured; the mail stays readable here
//   FAILED:  every attempt failed; `last_error` says why
export const MAIL_STATUSES = ['PENDING', 'SENT', 'KEPT', 'FAILED'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

// Bounds of what one mail holds; our own templates stay far below them.
export const MAIL_RECIPIENT_LENGTH_MAX = 254; // RFC 5321 path limit
export const MAIL_SUBJECT_LENGTH_MAX = 300;
export const MAIL_TEXT_LENGTH_MAX = 20_000;
export const MAIL_HTML_LENGTH_MAX = 60_000;
export const MAIL_ERROR_LENGTH_MAX = 500;
export const MAIL_CC_COUNT_MAX = 5;

export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    // Reading order: the newest mail has the highest sequence.
    sequence: pagingSequence(),
    // The account and environment the mail is about, when it is about one.
    accountId: text('account_id'),
    environment: text('environment'),
    // What the mail is, e.g. TAX_INVOICE_APPROVAL_REQUEST.
    kind: text('kind').notNull(),
    recipient: text('recipient').notNull(),
    // Copies (Cc), in order; empty for a mail to one address.
    cc: text('cc').array().notNull().default(sql`'{}'::text[]`),
    // What the mail is about, for its kind's hooks (send-job.ts): a tax invoice's issuance key,
    // say. Null for a mail about nothing in particular.
    reference: text('reference'),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body'),
    status: text('status').$type<MailStatus>().notNull(),
    attemptCount: integer('attempt_count').notNull().default(0),
    // Set when an attempt claims the mail, cleared when it ends: until then no other attempt
    // sends it (send-job.ts). A lease that ran out was left by a process that died mid-attempt.
    leaseUntil: timestampTz('lease_until'),
    // Our summary of the last SMTP failure (an error code and the SMTP reply code), never a body.
    lastError: text('last_error'),
    // The Message-ID the SMTP server accepted.
    messageId: text('message_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    sentAt: timestampTz('sent_at'),
  },
  (table) => [
    index('mail_outbox_sequence_idx').on(table.sequence),
    check('mail_outbox_status_known',
      sql`${table.status} in ('PENDING', 'SENT', 'KEPT', 'FAILED')`),
    check('mail_outbox_environment_known', sql`${table.environment} in ('test', 'live')`),
    check('mail_outbox_lengths', sql`char_length(${table.kind}) between 1 and 100
      and char_length(${table.recipient}) between 3 and 254
      and char_length(${table.subject}) between 1 and 300
      and char_length(${table.textBody}) <= 20000
      and char_length(${table.htmlBody}) <= 60000
      and char_length(${table.lastError}) <= 500`),
    check('mail_outbox_cc_count', sql`cardinality(${table.cc}) <= 5`),
    check('mail_outbox_attempt_count', sql`${table.attemptCount} >= 0`),
    check('mail_outbox_sent_has_time',
      sql`(${table.status} = 'SENT') = (${table.sentAt} is not null)`),
  ],
);
