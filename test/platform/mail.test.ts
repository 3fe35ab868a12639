// The mail outbox end to end through a real SMTP server (smtp-server on a random local port): a
// reverse issuance request's approval mail reaches the sink with our From, the supplier's To, a
// readable subject and the one-time link, which opens the approval page and approves. The
// outbox row is SENT with the server's Message-ID, a second run of its job sends nothing, a
// refused recipient is counted and retried, and the last attempt marks the mail FAILED. No log
// line, at trace level, holds the link. Against a slow server, overlapping attempts of one mail
// (pg-boss runs a batch again once it outlives its expiry) send it once; against a silent one,
// an attempt ends at its deadline with its connection closed, and a batch's mails are tried side
// by side.
import { Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createMailQueuer } from '../../src/platform/mail/outbox.ts';
import { mailOutbox } from '../../src/platform/mail/tables.ts';
import {
  MAIL_SEND_ATTEMPTS_MAX,
  mailJobDefinition,
  sendMail,
  type MailSenderDeps,
} from '../../src/platform/mail/send-job.ts';
import { createSmtpTransport } from '../../src/platform/mail/transport.ts';
import { pollUntil } from '../helpers/poll.ts';
import { startSilentSmtpServer, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { registerSupplier, waitForStatus, type Supplier } from '../api/tax-invoices/helpers.ts';
import {
  APPROVAL_URL_PATTERN,
  createReverseTestApp,
  mailAbout,
  newRequest,
  postForm,
  type ReverseTestApp,
} from '../api/tax-invoices/reverse-helpers.ts';

const MAIL_FROM = 'etax <no-reply@etax.example.com>';

let sink: SmtpSink;
let app: ReverseTestApp;
let key: string;
let supplier: Supplier;
const logLines: string[] = [];

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createReverseTestApp({ SMTP_URL: sink.url, MAIL_FROM, LOG_LEVEL: 'trace' },
    new Writable({ write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    } }));
  const account = await app.platform.accounts.createAccount({ name: 'Mail', plan: 'FREE' });
  key = account.keys.test;
  supplier = await registerSupplier(app, key);
});
afterAll(async () => {
  await app?.close();
  await sink?.close();
});

function senderDeps(overrides: Partial<MailSenderDeps> = {}): MailSenderDeps {
  return {
    db: app.platform.database.db,
    transport: createSmtpTransport({ url: sink.url, from: MAIL_FROM }),
    now: () => new Date(),
    log: pino({ level: 'silent' }),
    ...overrides,
  };
}

// A PENDING mail written straight into the outbox, without a job, for the sender to work.
async function pendingMail(to = 'someone@example.com') {
  const queueMail = createMailQueuer({ sendingEnabled: true, stage: async () => 'no-job' });
  const { id } = await queueMail(app.platform.database.db, { kind: 'TEST', to,
    subject: 'Hello', text: 'Body' });
  return id;
}

const rowOf = async (id: string) => (await app.platform.database.db.select().from(mailOutbox)
  .where(eq(mailOutbox.id, id)).limit(1))[0]!;

describe('sending through SMTP', () => {
  it('delivers the approval mail whose link opens the page and approves', async () => {
    const issuanceKey = await newRequest(app, key, supplier.supplierKey);
    const received = await pollUntil(async () => sink.received.filter((mail) =>
      mail.parts.some((part) => part.includes(issuanceKey))), (mails) => mails.length > 0);
    expect(received).toHaveLength(1);
    const mail = received[0]!;
    expect(mail.from).toBe('no-reply@etax.example.com');
    expect(mail.to).toEqual(['supplier@example.co.kr']);
    expect(mail.user).toBe('etax');
    expect(mail.raw).toMatch(/^From: etax <no-reply@etax\.example\.com>$/m);
    expect(mail.subject).toBe('[TEST] 세금계산서 역발행 요청 Reverse issuance request: ' +
      '주식회사 받는곳, 220,000원');
    const [text, html] = mail.parts;
    const link = /https:\/\/\S+\/approval\/[\w-]{43}/.exec(text!)![0];
    expect(link).toMatch(APPROVAL_URL_PATTERN);
    expect(text).toContain('주식회사 받는곳');
    expect(html).toContain(`href="${link}"`);
    const row = await mailAbout(app, issuanceKey);
    const sent = await pollUntil(() => rowOf(row.id), (value) => value.status === 'SENT');
    expect(sent).toMatchObject({ status: 'SENT', attemptCount: 1, lastError: null });
    expect(sent.messageId).toMatch(/^<.+>$/);
    const approved = await postForm(app, new URL(link).pathname, { decision: 'approve' });
    expect(approved.statusCode).toBe(200);
    const invoice = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
    expect(invoice.status).toBe('TRANSMITTED');
    const token = link.split('/').at(-1)!;
    expect(logLines.join('')).not.toContain(token);
    expect(logLines.join('')).not.toContain('smtp-secret');
    expect(logLines.join('')).toContain('mail sent');
  });

  it('sends nothing on a second run of a sent mail\'s job', async () => {
    const id = await pendingMail();
    const deps = senderDeps();
    expect(await sendMail(deps, id)).toBe('sent');
    const count = sink.received.length;
    expect(await sendMail(deps, id)).toBe('skipped');
    expect(sink.received.length).toBe(count);
    deps.transport!.close();
  });

  it('counts a refused recipient and tries again, then marks the mail FAILED', async () => {
    const id = await pendingMail('refused@example.com');
    const deps = senderDeps();
    sink.refuseRecipients = true;
    try {
      expect(await sendMail(deps, id)).toBe('retrying');
      expect(await rowOf(id)).toMatchObject({ status: 'PENDING', attemptCount: 1,
        lastError: 'EENVELOPE, SMTP 550' });
      await app.platform.database.db.update(mailOutbox)
        .set({ attemptCount: MAIL_SEND_ATTEMPTS_MAX - 1 }).where(eq(mailOutbox.id, id));
      expect(await sendMail(deps, id)).toBe('failed');
      expect(await rowOf(id)).toMatchObject({ status: 'FAILED',
        attemptCount: MAIL_SEND_ATTEMPTS_MAX, sentAt: null });
      expect(await sendMail(deps, id)).toBe('skipped');
    } finally {
      sink.refuseRecipients = false;
      deps.transport!.close();
    }
  });

  it('records a connection failure by its code', async () => {
    const id = await pendingMail();
    const closed = createSmtpTransport({ url: 'smtp://127.0.0.1:9', from: MAIL_FROM });
    expect(await sendMail(senderDeps({ transport: closed }), id)).toBe('retrying');
    expect((await rowOf(id)).lastError).toBe('ESOCKET');
    closed.close();
  });
});

// A job of the mail queue as pg-boss hands it to the work function.
const jobOf = (id: string, mailId: string) =>
  ({ id, name: 'mail-outbox', data: { mailId }, expireInSeconds: 180 });

describe('one mail per row, whatever the server does', () => {
  const sentTo = (address: string) => sink.received.filter((mail) => mail.to.includes(address));

  it('sends a mail once when two attempts overlap against a slow server', async () => {
    const id = await pendingMail('slow-once@example.com');
    const deps = senderDeps();
    sink.replyDelayMs = 1_000;
    try {
      const outcomes = await Promise.all([sendMail(deps, id), sendMail(deps, id)]);
      expect(outcomes.sort()).toEqual(['leased', 'sent']);
      expect(await sendMail(deps, id)).toBe('skipped');
    } finally {
      sink.replyDelayMs = 0;
    }
    expect(sentTo('slow-once@example.com')).toHaveLength(1);
    expect(await rowOf(id)).toMatchObject({ status: 'SENT', attemptCount: 1, leaseUntil: null });
  });

  it('sends each row of a batch once when the batch runs again while the first run sends',
    async () => {
      const addresses = Array.from({ length: 5 }, (_, index) => `batch-${index}@example.com`);
      const ids = await Promise.all(addresses.map((address) => pendingMail(address)));
      const definition = mailJobDefinition(senderDeps());
      const jobsOf = (run: string) => ids.map((mailId) => jobOf(`${run}-${mailId}`, mailId));
      sink.replyDelayMs = 500;
      try {
        // The second run stands for pg-boss's retry of the batch that outlived its expiry.
        const runs = await Promise.allSettled([definition.work(jobsOf('first')),
          definition.work(jobsOf('again'))]);
        // The runs overlap by the server's reply delay, so at least one meets mails the other
        // leased and throws to be tried again; which mails each run claims, and so whether
        // both throw, depends on how their claims interleave.
        expect(runs.filter((run) => run.status === 'rejected').length).toBeGreaterThanOrEqual(1);
        await definition.work(jobsOf('later'));
      } finally {
        sink.replyDelayMs = 0;
      }
      for (const address of addresses) expect(sentTo(address)).toHaveLength(1);
      for (const id of ids) expect((await rowOf(id)).status).toBe('SENT');
    });

  it('ends an attempt at its deadline against a silent server, closing its connection',
    async () => {
      const silent = await startSilentSmtpServer();
      const id = await pendingMail();
      try {
        const deps = senderDeps({ attemptDeadlineMs: 300,
          transport: createSmtpTransport({ url: silent.url, from: MAIL_FROM }) });
        expect(await sendMail(deps, id)).toBe('retrying');
        expect(await rowOf(id)).toMatchObject({ status: 'PENDING', attemptCount: 1,
          lastError: 'EDEADLINE', leaseUntil: null });
        expect(await pollUntil(async () => silent.closedByClient, (closed) => closed === 1))
          .toBe(1);
      } finally {
        await silent.close();
      }
    });

  it('tries the mails of a batch side by side against a silent server', async () => {
    const silent = await startSilentSmtpServer();
    const ids = await Promise.all(Array.from({ length: 4 }, () => pendingMail()));
    try {
      const definition = mailJobDefinition(senderDeps({ attemptDeadlineMs: 500,
        transport: createSmtpTransport({ url: silent.url, from: MAIL_FROM }) }));
      await expect(definition.work(ids.map((mailId) => jobOf(mailId, mailId))))
        .rejects.toThrow('4 mail(s) will be tried again');
      expect(silent.openMax).toBe(4);
      for (const id of ids) expect((await rowOf(id)).lastError).toBe('EDEADLINE');
    } finally {
      await silent.close();
    }
  });
});

describe('the outbox without SMTP', () => {
  it('keeps a mail KEPT when the job finds no transport', async () => {
    const id = await pendingMail();
    expect(await sendMail(senderDeps({ transport: null }), id)).toBe('kept');
    expect(await rowOf(id)).toMatchObject({ status: 'KEPT', attemptCount: 0 });
  });

  it('queues KEPT and stages no job when sending is not enabled', async () => {
    const staged: string[] = [];
    const queueMail = createMailQueuer({ sendingEnabled: false,
      stage: async (_executor, queue) => { staged.push(queue); return 'job'; } });
    const { id, status } = await queueMail(app.platform.database.db, { kind: 'TEST',
      to: 'kept@example.com', subject: 'Kept', text: 'Body' });
    expect(status).toBe('KEPT');
    expect(staged).toEqual([]);
    expect((await rowOf(id)).status).toBe('KEPT');
  });

  it('writes neither mail nor job when the caller\'s transaction rolls back', async () => {
    const queueMail = createMailQueuer({ sendingEnabled: true, stage: app.jobs.stage });
    const countRows = async () => (await app.platform.database.db.execute<{ count: number }>(
      sql`select (select count(*) from mail_outbox)::int
        + (select count(*) from pgboss.job where name = 'mail-outbox')::int as count`))
      .rows[0]!.count;
    const before = await countRows();
    await expect(app.platform.database.db.transaction(async (tx) => {
      await queueMail(tx, { kind: 'TEST', to: 'gone@example.com', subject: 'Gone', text: 'x' });
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await countRows()).toBe(before);
  });
});

describe('settings', () => {
  const secretUrl = 'smtp://etax:pw-secret-1@mail.example.com:587';

  it('refuses SMTP_URL without MAIL_FROM at start, without repeating the URL', () => {
    const load = () => loadConfig({ SMTP_URL: secretUrl });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/MAIL_FROM: required when SMTP_URL is set/);
    expect(load).not.toThrow(/pw-secret-1/);
  });

  it('refuses an SMTP_URL that is not smtp:// or smtps://, without repeating it', () => {
    const load = () => loadConfig({ SMTP_URL: 'http://etax:pw-secret-1@mail.example.com',
      MAIL_FROM });
    expect(load).toThrow(/SMTP_URL/);
    expect(load).not.toThrow(/pw-secret-1/);
  });

  it('accepts SMTP_URL with MAIL_FROM, and neither', () => {
    expect(loadConfig({ SMTP_URL: secretUrl, MAIL_FROM })).toMatchObject({ SMTP_URL: secretUrl,
      MAIL_FROM });
    expect(loadConfig({}).SMTP_URL).toBeUndefined();
  });
});
