// The recipient's mail of a tax invoice end to end through a real SMTP server (smtp-server on a
// random local port), read back with mailparser and the PDF attachment with unpdf: an issued
// invoice is mailed once transmitted to the first recipient manager, the second copied, the
// supplier's manager copied when asked; an amendment is mailed the same way. The mail's
// delivery is TAX_INVOICE_EMAIL_SENT, its bounce TAX_INVOICE_EMAIL_FAILED. Then
// POST /v1/taxInvoices/{issuanceKey}:resendEmail and what it refuses, and the item limit of 99
// with a PDF that runs on to further pages.
import { eq } from 'drizzle-orm';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import pino from 'pino';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, issueDeadline } from '../../../src/domain/business-days.ts';
import { mailOutbox } from '../../../src/platform/mail/tables.ts';
import { MAIL_SEND_ATTEMPTS_MAX, sendMail } from '../../../src/platform/mail/send-job.ts';
import { createSmtpTransport } from '../../../src/platform/mail/transport.ts';
import { INVOICE_MAIL_KIND } from '../../../src/areas/tax-invoices/mail/invoice-mail.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.ts';
import {
  amend,
  createSupplierAccount,
  invoiceBody,
  issue,
  issueTransmitted,
  request,
  today,
  type SupplierAccount,
} from './helpers.ts';
import { newRequest } from './reverse-helpers.ts';

const MAIL_FROM = 'etax <no-reply@etax.example.com>';
const FIRST = 'first@recipient.example';
const SECOND = 'second@recipient.example';
const SUPPLIER_MANAGER = 'tax@example.co.kr';

let sink: SmtpSink;
let app: TestApp;
let account: SupplierAccount;
// Milliseconds the app's clock runs ahead of the real one: a late issuance is issued after its
// deadline.
const clock = { offsetMs: 0 };

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ jobs: true, env: { SMTP_URL: sink.url, MAIL_FROM,
    TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' },
  now: () => new Date(Date.now() + clock.offsetMs) });
  account = await createSupplierAccount(app, 'Invoice mail');
});
afterAll(async () => {
  await app?.close();
  await sink?.close();
});

const recipients = (second = true) => ({ ...invoiceBody().supplied, managers: [
  { email: FIRST, name: '박수신', telephone: '010-2222-3333' },
  ...(second ? [{ email: SECOND }] : [])] });

const formatted = (approval: string) =>
  `${approval.slice(0, 8)}-${approval.slice(8, 16)}-${approval.slice(16)}`;

// The mails the sink received whose text names the document, parsed.
async function mailsOf(issuanceKey: string, count = 1): Promise<Array<{ parsed: ParsedMail;
  envelope: string[] }>> {
  const received = await pollUntil(async () => sink.received.filter((mail) =>
    mail.raw.includes(issuanceKey)), (mails) => mails.length >= count);
  return Promise.all(received.map(async (mail) => ({ parsed: await simpleParser(mail.raw),
    envelope: mail.to })));
}

const addresses = (field: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((object) =>
    object.value.map((address) => address.address));

async function pdfText(content: Buffer) {
  const proxy = await getDocumentProxy(new Uint8Array(content));
  return extractText(proxy, { mergePages: true });
}

async function events(key: string, type: string) {
  const response = await app.server.inject(request(key, 'GET',
    `/v1/webhookEvents?type=${type}&limit=100`));
  expect(response.statusCode).toBe(200);
  return (response.json() as { results: Array<{ data: Record<string, unknown> }> }).results;
}

function resend(key: string, issuanceKey: string, body?: unknown) {
  return app.server.inject(request(key, 'POST', `/v1/taxInvoices/${issuanceKey}:resendEmail`,
    body === undefined ? {} : { body }));
}

describe('the mail of an issued invoice', () => {
  it('goes to the first manager, copies the second and the supplier when asked, with the PDF',
    async () => {
      const invoice = await issueTransmitted(app, account.key, account.supplier.supplierKey,
        invoiceBody({ supplied: recipients(), emailSupplierCopy: true }));
      const approval = invoice.ntsTransactionId!;
      const [mail] = await mailsOf(invoice.issuanceKey);
      const { parsed, envelope } = mail!;
      expect(addresses(parsed.to)).toEqual([FIRST]);
      expect(addresses(parsed.cc)).toEqual([SECOND, SUPPLIER_MANAGER]);
      expect(envelope.sort()).toEqual([FIRST, SECOND, SUPPLIER_MANAGER].sort());
      expect(addresses(parsed.from)).toEqual(['no-reply@etax.example.com']);
      expect(parsed.subject).toBe(`[TEST] 전자세금계산서 Tax invoice: 주식회사 이택스, ` +
        `220,000원, 승인번호 ${formatted(approval)}`);
      expect(parsed.text).toContain(`승인번호 Approval number: ${formatted(approval)}`);
      expect(parsed.text).toContain('합계금액 Total: 220,000원');
      expect(parsed.text).toContain('[TEST]');
      expect(parsed.html).toContain(formatted(approval));
      expect(parsed.html).toContain('주식회사 받는곳');
      expect(parsed.attachments).toHaveLength(1);
      const [pdf] = parsed.attachments;
      expect(pdf!.contentType).toBe('application/pdf');
      expect(pdf!.filename).toBe(`${invoice.issuanceKey}.pdf`);
      const { text, totalPages } = await pdfText(pdf!.content);
      expect(totalPages).toBe(1);
      expect(text).toContain(formatted(approval));
      // The form's 이메일 rows: the supplier's manager's address, and the recipient's managers'.
      expect(text).toContain('이메일 tax@example.co.kr');
      expect(text).toContain('이메일 first@recipient.example\nsecond@recipient.example');
    });

  it('copies only the second manager by default, and no one without one', async () => {
    const copied = await issueTransmitted(app, account.key, account.supplier.supplierKey,
      invoiceBody({ supplied: recipients() }));
    const alone = await issueTransmitted(app, account.key, account.supplier.supplierKey,
      invoiceBody({ supplied: recipients(false) }));
    const [first] = await mailsOf(copied.issuanceKey);
    expect(addresses(first!.parsed.cc)).toEqual([SECOND]);
    const [second] = await mailsOf(alone.issuanceKey);
    expect(addresses(second!.parsed.to)).toEqual([FIRST]);
    expect(second!.parsed.cc).toBeUndefined();
    expect(second!.envelope).toEqual([FIRST]);
  });

  it('records the delivery as TAX_INVOICE_EMAIL_SENT, once', async () => {
    const invoice = await issueTransmitted(app, account.key, account.supplier.supplierKey,
      invoiceBody({ supplied: recipients() }));
    await mailsOf(invoice.issuanceKey);
    const sent = await pollUntil(async () => (await events(account.key,
      'TAX_INVOICE_EMAIL_SENT')).filter((event) => event.data.issuanceKey === invoice.issuanceKey),
    (found) => found.length > 0);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.data).toMatchObject({ to: FIRST, cc: [SECOND] });
    expect(sent[0]!.data.mailId).toMatch(/^mail_/);
    expect(Date.parse(sent[0]!.data.sentAt as string)).not.toBeNaN();
  });

  it('mails an amendment the same way, naming the original approval number', async () => {
    const original = await issueTransmitted(app, account.key, account.supplier.supplierKey,
      invoiceBody({ supplied: recipients(), emailSupplierCopy: true }));
    const response = await amend(app, account.key, account.supplier.supplierKey,
      { issuanceKey: original.issuanceKey, reason: 'termination', body: { date: today() } });
    expect(response.statusCode, response.body).toBe(200);
    const { issuanceKey } = response.json() as { issuanceKey: string };
    const [mail] = await mailsOf(issuanceKey);
    const { parsed } = mail!;
    expect(addresses(parsed.to)).toEqual([FIRST]);
    expect(addresses(parsed.cc)).toEqual([SECOND, SUPPLIER_MANAGER]);
    expect(parsed.subject).toContain('수정 전자세금계산서');
    expect(parsed.text).toContain('수정사유 Amendment: 계약의 해제');
    expect(parsed.text).toContain(formatted(original.ntsTransactionId!));
    const amended = (await app.server.inject(request(account.key, 'GET',
      `/v1/taxInvoices/${issuanceKey}`))).json() as { ntsTransactionId: string };
    const { text } = await pdfText(parsed.attachments[0]!.content);
    expect(text).toContain(formatted(amended.ntsTransactionId));
    expect(text).toContain(formatted(original.ntsTransactionId!));
  });
});

describe('POST /v1/taxInvoices/{issuanceKey}:resendEmail', () => {
  let transmitted: { issuanceKey: string; ntsTransactionId: string | null };

  beforeAll(async () => {
    transmitted = await issueTransmitted(app, account.key, account.supplier.supplierKey,
      invoiceBody({ supplied: recipients() }));
    await mailsOf(transmitted.issuanceKey);
  });

  it('sends the mail again to the same people without a body, free', async () => {
    const scope = { accountId: account.accountId, environment: 'test' as const };
    const before = await app.platform.points.getBalance(scope);
    const response = await resend(account.key, transmitted.issuanceKey);
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toMatchObject({ issuanceKey: transmitted.issuanceKey, to: FIRST,
      cc: [SECOND] });
    const mails = await mailsOf(transmitted.issuanceKey, 2);
    expect(mails).toHaveLength(2);
    const again = mails[1]!.parsed;
    expect(addresses(again.to)).toEqual([FIRST]);
    expect(addresses(again.cc)).toEqual([SECOND]);
    const { text } = await pdfText(again.attachments[0]!.content);
    expect(text).toContain(formatted(transmitted.ntsTransactionId!));
    expect(await app.platform.points.getBalance(scope)).toEqual(before);
  });

  it('sends to another address alone when one is given', async () => {
    const response = await resend(account.key, transmitted.issuanceKey,
      { email: 'accounting@other.example' });
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toMatchObject({ to: 'accounting@other.example', cc: [] });
    const received = await pollUntil(async () => sink.received.filter((mail) =>
      mail.to.includes('accounting@other.example')), (mails) => mails.length > 0);
    expect(received[0]!.to).toEqual(['accounting@other.example']);
    const parsed = await simpleParser(received[0]!.raw);
    expect(parsed.cc).toBeUndefined();
    expect(parsed.attachments[0]!.contentType).toBe('application/pdf');
  });

  it('refuses an address that is not one, and other fields', async () => {
    for (const body of [{ email: 'not-an-address' }, { email: 'a@b.example\r\nBcc: x@y.z' },
      { email: 42 }, { email: `${'a'.repeat(95)}@b.example` }, { other: 1 }]) {
      expectError(await resend(account.key, transmitted.issuanceKey, body), 400,
        'INVALID_REQUEST');
    }
    const malformed = await app.server.inject({ ...request(account.key, 'POST',
      `/v1/taxInvoices/${transmitted.issuanceKey}:resendEmail`, { body: '{"email":' }) });
    expectError(malformed, 400, 'INVALID_REQUEST');
  });

  it('is 404 for an unknown key, another account\'s invoice and the live environment', async () => {
    expectError(await resend(account.key, 'txi_UNKNOWN0000000000000000'), 404, 'NOT_FOUND');
    const other = await createSupplierAccount(app, 'Other account');
    expectError(await resend(other.key, transmitted.issuanceKey), 404, 'NOT_FOUND');
    expectError(await resend(account.liveKey, transmitted.issuanceKey), 404, 'NOT_FOUND');
  });

  it('is 409 before the invoice is transmitted, and mails nothing', async () => {
    const issuanceKey = await newRequest(app, account.key, account.supplier.supplierKey);
    const before = sink.received.length;
    expectError(await resend(account.key, issuanceKey), 409, 'TAX_INVOICE_NOT_TRANSMITTED');
    const rows = await app.platform.database.db.select().from(mailOutbox)
      .where(eq(mailOutbox.reference, issuanceKey));
    expect(rows).toEqual([]);
    expect(sink.received.length).toBe(before);
  });
});

describe('a bounce', () => {
  it('is TAX_INVOICE_EMAIL_FAILED with the SMTP reply once every attempt failed', async () => {
    const invoice = await issueTransmitted(app, account.key, account.supplier.supplierKey,
      invoiceBody({ supplied: recipients(false) }));
    await mailsOf(invoice.issuanceKey);
    sink.refuseRecipients = true;
    const transport = createSmtpTransport({ url: sink.url, from: MAIL_FROM });
    try {
      const response = await resend(account.key, invoice.issuanceKey,
        { email: 'bounce@recipient.example' });
      expect(response.statusCode).toBe(202);
      const { mailId } = response.json() as { mailId: string };
      const db = app.platform.database.db;
      // The job's first attempt is refused; the last attempt is run here rather than waited for.
      await pollUntil(async () => (await db.select().from(mailOutbox)
        .where(eq(mailOutbox.id, mailId)))[0]!, (row) => row.attemptCount >= 1);
      await db.update(mailOutbox).set({ attemptCount: MAIL_SEND_ATTEMPTS_MAX - 1 })
        .where(eq(mailOutbox.id, mailId));
      const kinds = new Map([[INVOICE_MAIL_KIND, app.taxInvoices.invoiceMail.hooks]]);
      expect(await sendMail({ db, transport, now: () => new Date(), log: pino({ level: 'silent' }),
        kinds }, mailId)).toBe('failed');
      const failed = (await events(account.key, 'TAX_INVOICE_EMAIL_FAILED'))
        .filter((event) => event.data.mailId === mailId);
      expect(failed).toHaveLength(1);
      expect(failed[0]!.data).toEqual({ issuanceKey: invoice.issuanceKey, mailId,
        to: 'bounce@recipient.example', cc: [], reason: 'EENVELOPE, SMTP 550' });
      expect((await events(account.key, 'TAX_INVOICE_EMAIL_SENT'))
        .filter((event) => event.data.mailId === mailId)).toEqual([]);
    } finally {
      sink.refuseRecipients = false;
      transport.close();
    }
  });
});

describe('99 items', () => {
  const items = (count: number) => Array.from({ length: count }, (_, index) => ({
    date: today(), name: `품목 ${index + 1}호`, supplyCost: 1_000, tax: 100 }));

  it('are accepted and printed on numbered pages, the total on the last', async () => {
    const invoice = await issueTransmitted(app, account.key, account.supplier.supplierKey,
      invoiceBody({ items: items(99) }));
    const response = await app.server.inject(request(account.key, 'GET',
      `/v1/taxInvoices/${invoice.issuanceKey}/pdf`));
    expect(response.statusCode).toBe(200);
    const proxy = await getDocumentProxy(new Uint8Array(response.rawPayload));
    const { text: pages, totalPages } = await extractText(proxy, { mergePages: false });
    expect(totalPages).toBe(5);
    expect(pages[0]).toContain('쪽 1/5');
    expect(pages[4]).toContain('쪽 5/5');
    expect(pages[4]).toContain('품목 99호');
    expect(pages[4]).toContain('108,900');
    expect(pages[0]).not.toContain('합계금액');
  });

  it('but not 100', async () => {
    const response = await issue(app, account.key, account.supplier.supplierKey,
      invoiceBody({ items: items(100) }));
    expectError(response, 400, 'INVALID_REQUEST');
    expect(response.json().message).toMatch(/items/);
  });
});

// Last in the file: the clock moves past the deadline of today's write date, and only forward.
describe('the mail of a late issuance', () => {
  it('attaches the same PDF as the API answers, with its 지연발급 mark', async () => {
    clock.offsetMs = Date.parse(`${addDays(issueDeadline(today()), 1)}T12:00:00+09:00`) -
      Date.now();
    const invoice = await issueTransmitted(app, account.key, account.supplier.supplierKey,
      invoiceBody({ supplied: recipients(false) }));
    const [mail] = await mailsOf(invoice.issuanceKey);
    const { text } = await pdfText(mail!.parsed.attachments[0]!.content);
    expect(text).toContain('지연발급');
    const retrieved = await app.server.inject(request(account.key, 'GET',
      `/v1/taxInvoices/${invoice.issuanceKey}/pdf`));
    expect(retrieved.statusCode).toBe(200);
    expect((await pdfText(retrieved.rawPayload)).text).toBe(text);
  });
});
