import type { Config } from '../config.ts';
import { readOutbox, type OutboxEntry } from '../platform/mail/outbox.ts';
import { MAIL_STATUSES, type MailStatus } from '../platform/mail/tables.ts';
import { withPlatform } from './admin.ts';
import { CliError, parseChoice, parsePositiveInteger, printResult } from './output.ts';

// `etax mail outbox`: the newest mails of the outbox with their text (docs/operations.md §
// Mail). Without SMTP_URL nothing is sent and this is how an operator reads a mail, such as the
// approval link of a reverse issuance request. Mails go to stdout only, never to the logs.

// Enough to find a recent mail; a bound so one command cannot print the whole table.
const OUTBOX_LIMIT_MAX = 1_000;

type OutboxOptions = { limit: string; status?: string; json?: boolean };

function describe(mail: OutboxEntry): string {
  const sent = mail.sentAt === null ? '' : `, sent ${mail.sentAt}`;
  const error = mail.lastError === null ? '' : `, last error: ${mail.lastError}`;
  return [
    `${mail.id} ${mail.status} ${mail.kind} (created ${mail.createdAt}${sent}, ` +
      `${mail.attemptCount} attempt(s)${error})`,
    `To: ${mail.to}`,
    ...(mail.cc.length === 0 ? [] : [`Cc: ${mail.cc.join(', ')}`]),
    ...(mail.reference === null ? [] : [`About: ${mail.reference}`]),
    `Subject: ${mail.subject}`,
    '',
    mail.text,
  ].join('\n');
}

export async function printOutbox(config: Config, options: OutboxOptions) {
  const limit = parsePositiveInteger('--limit', options.limit);
  if (limit > OUTBOX_LIMIT_MAX) throw new CliError(`--limit must be at most ${OUTBOX_LIMIT_MAX}`);
  const statuses: MailStatus[] = options.status === undefined ? []
    : [parseChoice('--status', options.status, MAIL_STATUSES)];
  const mails = await withPlatform(config, (platform) =>
    readOutbox(platform.database.db, { limit, statuses }));
  const human = mails.length === 0 ? 'the outbox is empty'
    : mails.map(describe).join('\n\n----\n\n');
  printResult(Boolean(options.json), { mails }, human);
}
