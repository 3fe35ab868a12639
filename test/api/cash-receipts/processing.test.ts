// What happens to an accepted cash receipt on the workers: ACCEPTED → ISSUED with a 9-digit
// approval number → TRANSMITTED, or FAILED with a cause and the points refunded; each outcome once,
// with its webhook event and the customer's mail. Cancellations: full and partial, never more
// than the original (two concurrent partial cancellations that together exceed it: exactly one
// wins), and only of an issued receipt. The PDF reads back what the receipt says, and the
// customer's mail, through a real SMTP server read back with mailparser, carries the same PDF.
import { simpleParser } from 'mailparser';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_IDENTITY_NUMBERS } from '../../../src/upstream/cash-receipts/sandbox.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.ts';
import {
  accepted,
  cancelReceipt,
  createMerchantAccount,
  getReceipt,
  issueReceipt,
  receiptBody,
  referenceId,
  request,
  waitForStatus,
  type MerchantAccount,
} from './helpers.ts';

let sink: SmtpSink;
let app: TestApp;
let merchant: MerchantAccount;

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ jobs: true, env: { SMTP_URL: sink.url,
    MAIL_FROM: 'etax <no-reply@etax.example.com>',
    CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS: '0' } });
  merchant = await createMerchantAccount(app);
});
afterAll(async () => {
  await app?.close();
  await sink?.close();
});

async function pdfText(content: Buffer | Uint8Array) {
  const { text } = await extractText(await getDocumentProxy(new Uint8Array(content)),
    { mergePages: true });
  return text;
}

const balance = () => app.platform.points.getBalance({ accountId: merchant.accountId,
  environment: 'test' });

type Event = { type: string; data: Record<string, unknown> };

async function eventsOf(issuanceKey: string): Promise<Event[]> {
  const response = await app.server.inject(request(merchant.key, 'GET',
    '/v1/webhookEvents?limit=100'));
  return (response.json() as { results: Event[] }).results
    .filter((event) => event.data.issuanceKey === issuanceKey)
    .map(({ type, data }) => ({ type, data }));
}

async function issued(overrides: Record<string, unknown> = {}): Promise<string> {
  const issuanceKey = await accepted(await issueReceipt(app, merchant.key, merchant.supplierKey,
    receiptBody(overrides)));
  const receipt = await waitForStatus(app, merchant.key, issuanceKey, ['TRANSMITTED', 'FAILED']);
  expect(receipt.status).toBe('TRANSMITTED');
  return issuanceKey;
}

async function mailsTo(recipient: string) {
  const result = await app.platform.database.pool.query(
    'select kind, subject, text_body, html_body from mail_outbox where recipient = $1',
    [recipient]);
  return result.rows as Array<{ kind: string; subject: string; text_body: string;
    html_body: string }>;
}

describe('an approved receipt', () => {
  it('gets a 9-digit approval number, is transmitted and announced once, charged once',
    async () => {
      const before = await balance();
      const reference = referenceId();
      const issuanceKey = await accepted(await issueReceipt(app, merchant.key,
        merchant.supplierKey, receiptBody(), reference));
      const receipt = await waitForStatus(app, merchant.key, issuanceKey, ['TRANSMITTED']);
      expect(receipt.approvalNumber).toMatch(/^[0-9]{9}$/);
      expect(receipt.issuedAt).not.toBeNull();
      expect(receipt.transmittedAt).not.toBeNull();
      const events = await pollUntil(() => eventsOf(issuanceKey), (found) => found.length >= 2);
      expect(events.map((event) => event.type).sort())
        .toEqual(['CASH_RECEIPT_ISSUED', 'CASH_RECEIPT_TRANSMITTED']);
      expect(events.find((event) => event.type === 'CASH_RECEIPT_ISSUED')!.data).toEqual({
        issuanceKey, clientReferenceId: reference, approvalNumber: receipt.approvalNumber,
        tradeDate: receipt.tradeDate, totalAmount: 11_000 });
      expect((await balance()).balance).toBe(before.balance - 10);
      const status = await app.server.inject(request(merchant.key, 'GET',
        `/v1/cashReceipts/issue/status?clientReferenceId=${reference}`));
      expect(status.json()).toMatchObject({ status: 'TRANSMITTED',
        approvalNumber: receipt.approvalNumber });
    });

  it('mails the customer a copy with the PDF attached, the same PDF the API renders',
    async () => {
      const email = `customer-${Date.now()}@example.com`;
      const issuanceKey = await issued({ customer: { name: '김고객', email } });
      const receipt = await getReceipt(app, merchant.key, issuanceKey);
      const mails = await pollUntil(() => mailsTo(email), (found) => found.length > 0);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.kind).toBe('CASH_RECEIPT_CUSTOMER_COPY');
      expect(mails[0]!.subject).toContain(receipt.approvalNumber!);
      expect(mails[0]!.text_body).toContain('010****5678');
      expect(mails[0]!.text_body).toContain('11,000원');
      expect(mails[0]!.html_body).toContain('SANDBOX');
      const pdf = await app.server.inject(request(merchant.key, 'GET',
        `/v1/cashReceipts/${issuanceKey}/pdf`));
      expect(pdf.statusCode).toBe(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      const text = await pdfText(pdf.rawPayload);
      for (const expected of ['현금영수증', receipt.approvalNumber!, '010****5678', '11,000원',
        '소득공제', '123-45-67891', 'SANDBOX']) {
        expect(text).toContain(expected);
      }
      expect(text).not.toContain('01012345678');

      const [received] = await pollUntil(async () => sink.received.filter((mail) =>
        mail.to.includes(email)), (found) => found.length > 0);
      const parsed = await simpleParser(received!.raw);
      expect(parsed.subject).toContain(receipt.approvalNumber!);
      expect(parsed.text).toContain('11,000원');
      expect(parsed.text).toContain('PDF');
      expect(parsed.attachments).toHaveLength(1);
      const [attachment] = parsed.attachments;
      expect(attachment!.contentType).toBe('application/pdf');
      expect(attachment!.filename).toBe(`${issuanceKey}.pdf`);
      const attachedText = await pdfText(attachment!.content);
      for (const expected of ['현금영수증', receipt.approvalNumber!, '010****5678', '11,000원',
        'SANDBOX']) {
        expect(attachedText).toContain(expected);
      }
      expect(attachedText).not.toContain('01012345678');
    });

  it('sends no mail without customer.email', async () => {
    const issuanceKey = await issued();
    const result = await app.platform.database.pool.query(
      'select count(*)::int as count from mail_outbox where text_body like $1',
      [`%${(await getReceipt(app, merchant.key, issuanceKey)).approvalNumber}%`]);
    expect(result.rows[0].count).toBe(0);
  });
});

describe('a receipt the authority rejects', () => {
  it('fails with its cause, is refunded and announced once', async () => {
    const before = await balance();
    const reference = referenceId();
    const issuanceKey = await accepted(await issueReceipt(app, merchant.key,
      merchant.supplierKey, receiptBody({ identityNumber: SANDBOX_IDENTITY_NUMBERS.rejected }),
      reference));
    const receipt = await waitForStatus(app, merchant.key, issuanceKey, ['FAILED']);
    expect(receipt).toMatchObject({ approvalNumber: null,
      failure: { code: 'APPROVAL_REJECTED' } });
    const events = await pollUntil(() => eventsOf(issuanceKey), (found) => found.length > 0);
    expect(events).toEqual([{ type: 'CASH_RECEIPT_FAILED', data: { issuanceKey,
      clientReferenceId: reference, kind: 'ISSUANCE', cause: receipt.failure } }]);
    expect(await pollUntil(balance, (now) => now.balance === before.balance))
      .toMatchObject({ balance: before.balance });
    expectError(await cancelReceipt(app, merchant.key, issuanceKey,
      { reason: 'TRANSACTION_CANCELED' }), 409, 'CASH_RECEIPT_NOT_CANCELABLE');
  });
});

describe('cancellation', () => {
  it('cancels what remains without amounts: a cancellation receipt naming the original',
    async () => {
      const original = await issued();
      const originalReceipt = await getReceipt(app, merchant.key, original);
      const reference = referenceId('cancel');
      const cancellation = await accepted(await cancelReceipt(app, merchant.key, original,
        { reason: 'TRANSACTION_CANCELED' }, reference));
      expect(cancellation).not.toBe(original);
      const receipt = await waitForStatus(app, merchant.key, cancellation, ['TRANSMITTED']);
      expect(receipt).toMatchObject({ kind: 'CANCELLATION', totalAmount: 11_000,
        supplyCost: 10_000, tax: 1_000, serviceFee: 0, cancelReason: 'TRANSACTION_CANCELED',
        originalIssuanceKey: original, originalApprovalNumber: originalReceipt.approvalNumber,
        originalTradeDate: originalReceipt.tradeDate, canceledAmount: null,
        remainingAmount: null });
      expect(receipt.approvalNumber).toMatch(/^[0-9]{9}$/);
      expect(await getReceipt(app, merchant.key, original))
        .toMatchObject({ canceledAmount: 11_000, remainingAmount: 11_000 - 11_000 });
      const events = await pollUntil(() => eventsOf(cancellation), (found) =>
        found.some((event) => event.type === 'CASH_RECEIPT_CANCELED'));
      expect(events.find((event) => event.type === 'CASH_RECEIPT_CANCELED')!.data).toEqual({
        issuanceKey: cancellation, clientReferenceId: reference, originalIssuanceKey: original,
        approvalNumber: receipt.approvalNumber, canceledAmount: 11_000, remainingAmount: 0 });
      // Replay of the cancellation: the same key; a second full cancellation: nothing remains.
      expect(await accepted(await cancelReceipt(app, merchant.key, original,
        { reason: 'TRANSACTION_CANCELED' }, reference))).toBe(cancellation);
      expectError(await cancelReceipt(app, merchant.key, original,
        { reason: 'TRANSACTION_CANCELED' }), 409, 'CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING');
      // A cancellation cannot itself be canceled.
      expectError(await cancelReceipt(app, merchant.key, cancellation, { reason: 'OTHER' }), 409,
        'CASH_RECEIPT_NOT_CANCELABLE');
      const pdf = await app.server.inject(request(merchant.key, 'GET',
        `/v1/cashReceipts/${cancellation}/pdf`));
      const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf.rawPayload)),
        { mergePages: true });
      expect(text).toContain('현금영수증 취소');
      expect(text).toContain(originalReceipt.approvalNumber!);
    });

  it('cancels part, then the rest, never more than the original', async () => {
    const original = await issued({ serviceFee: 1_000, totalAmount: 12_000 });
    const part = { reason: 'TRANSACTION_CANCELED', supplyCost: 5_000, tax: 500, serviceFee: 0,
      totalAmount: 5_500 };
    const first = await accepted(await cancelReceipt(app, merchant.key, original, part));
    expect(await getReceipt(app, merchant.key, original))
      .toMatchObject({ canceledAmount: 5_500, remainingAmount: 6_500 });
    expectError(await cancelReceipt(app, merchant.key, original, { ...part, supplyCost: 5_001,
      totalAmount: 5_501 }), 409, 'CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING');
    expectError(await cancelReceipt(app, merchant.key, original, { ...part, tax: 600,
      totalAmount: 5_600 }), 409, 'CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING');
    await waitForStatus(app, merchant.key, first, ['TRANSMITTED']);
    const rest = await accepted(await cancelReceipt(app, merchant.key, original,
      { reason: 'OTHER' }));
    expect(await waitForStatus(app, merchant.key, rest, ['TRANSMITTED'])).toMatchObject({
      supplyCost: 5_000, tax: 500, serviceFee: 1_000, totalAmount: 6_500 });
    expect(await getReceipt(app, merchant.key, original))
      .toMatchObject({ canceledAmount: 12_000, remainingAmount: 0 });
  });

  it('keeps the VAT in proportion in every partial cancellation and in what it leaves',
    async () => {
      const original = await issued();
      const balance = await getReceipt(app, merchant.key, original);
      // Tax without its supply, or a part that would leave the rest out of proportion.
      expectError(await cancelReceipt(app, merchant.key, original, { reason: 'OTHER',
        supplyCost: 0, tax: 500, serviceFee: 0, totalAmount: 500 }), 400, 'INVALID_REQUEST',
      /^body\.tax must be the VAT of body\.supplyCost for a partial cancellation/);
      expectError(await cancelReceipt(app, merchant.key, original, { reason: 'OTHER',
        supplyCost: 4_000, tax: 1_000, serviceFee: 0, totalAmount: 5_000 }), 400,
      'INVALID_REQUEST', /must be the VAT/);
      const first = await accepted(await cancelReceipt(app, merchant.key, original,
        { reason: 'OTHER', supplyCost: 3_005, tax: 301, serviceFee: 0, totalAmount: 3_306 }));
      // In proportion itself (699 on 6,980), but it would leave 15 won of supply without tax.
      expectError(await cancelReceipt(app, merchant.key, original, { reason: 'OTHER',
        supplyCost: 6_980, tax: 699, serviceFee: 0, totalAmount: 7_679 }), 400,
      'INVALID_REQUEST', /would leave supplyCost 15 and tax 0/);
      expect(await getReceipt(app, merchant.key, original)).toMatchObject({
        canceledAmount: 3_306 });
      await waitForStatus(app, merchant.key, first, ['TRANSMITTED']);
      const rest = await accepted(await cancelReceipt(app, merchant.key, original,
        { reason: 'OTHER' }));
      expect(await waitForStatus(app, merchant.key, rest, ['TRANSMITTED'])).toMatchObject({
        supplyCost: 6_995, tax: 699, totalAmount: 7_694 });
      expect(balance.remainingAmount).toBe(11_000);
    });

  it('lets exactly one of two concurrent partial cancellations exceeding the rest win',
    async () => {
      const original = await issued();
      const part = { reason: 'TRANSACTION_CANCELED', supplyCost: 6_000, tax: 600, serviceFee: 0,
        totalAmount: 6_600 };
      const responses = await Promise.all([1, 2, 3].map(() =>
        cancelReceipt(app, merchant.key, original, part)));
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([202, 409, 409]);
      for (const response of responses.filter((r) => r.statusCode === 409)) {
        expectError(response, 409, 'CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING');
      }
      expect(await getReceipt(app, merchant.key, original))
        .toMatchObject({ canceledAmount: 6_600, remainingAmount: 4_400 });
    });

  it('refuses a receipt not yet issued, bad amounts, and a reference id of another cancel',
    async () => {
      const slow = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
      try {
        const account = await createMerchantAccount(slow, 'Slow');
        const pending = await accepted(await issueReceipt(slow, account.key,
          account.supplierKey, receiptBody()));
        expectError(await cancelReceipt(slow, account.key, pending, { reason: 'OTHER' }), 409,
          'CASH_RECEIPT_NOT_CANCELABLE', /ACCEPTED/);
      } finally {
        await slow.close();
      }
      const original = await issued();
      expectError(await cancelReceipt(app, merchant.key, original, { reason: 'OTHER',
        supplyCost: 100 }), 400, 'INVALID_REQUEST', /together/);
      expectError(await cancelReceipt(app, merchant.key, original, { reason: 'OTHER',
        supplyCost: 100, tax: 0, serviceFee: 0, totalAmount: 101 }), 400, 'INVALID_REQUEST',
      /totalAmount must equal/);
      expectError(await cancelReceipt(app, merchant.key, original, { reason: 'REFUND' }), 400,
        'INVALID_REQUEST', /reason/);
      expectError(await cancelReceipt(app, merchant.key, 'csr_nothing', { reason: 'OTHER' }), 404,
        'NOT_FOUND');
      const reference = referenceId('cancel');
      await accepted(await cancelReceipt(app, merchant.key, original, { reason: 'OTHER',
        supplyCost: 100, tax: 10, serviceFee: 0, totalAmount: 110 }, reference));
      // The same reference id for another amount, or another receipt: a conflict.
      expectError(await cancelReceipt(app, merchant.key, original, { reason: 'OTHER',
        supplyCost: 200, tax: 20, serviceFee: 0, totalAmount: 220 }, reference), 409,
      'IDEMPOTENCY_CONFLICT');
      const another = await issued();
      expectError(await cancelReceipt(app, merchant.key, another, { reason: 'OTHER',
        supplyCost: 100, tax: 10, serviceFee: 0, totalAmount: 110 }, reference), 409,
      'IDEMPOTENCY_CONFLICT');
    });
});

describe('listing', () => {
  it('pages with a cursor and filters by kind, status and trade date', async () => {
    const account = await createMerchantAccount(app, 'Lister');
    const keys: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      keys.push(await accepted(await issueReceipt(app, account.key, account.supplierKey,
        receiptBody())));
    }
    const list = (query: string) => app.server.inject(request(account.key, 'GET',
      `/v1/cashReceipts?${query}`)).then((response) => {
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { cashReceipts: Array<{ issuanceKey: string }>;
        nextCursor: string | null };
    });
    const first = await list('limit=2');
    expect(first.cashReceipts.map((receipt) => receipt.issuanceKey)).toEqual(keys.slice(0, 2));
    const second = await list(`limit=2&cursor=${first.nextCursor}`);
    expect(second).toEqual({ cashReceipts: [expect.objectContaining({ issuanceKey: keys[2] })],
      nextCursor: null, hasMore: false });
    expect((await list('kind=CANCELLATION')).cashReceipts).toEqual([]);
    expect((await list('tradeDateTo=2000-01-01')).cashReceipts).toEqual([]);
    await waitForStatus(app, account.key, keys[2]!, ['TRANSMITTED']);
    expect((await list('status=FAILED')).cashReceipts).toEqual([]);
    expectError(await app.server.inject(request(account.key, 'GET',
      '/v1/cashReceipts?cursor=bogus!')), 400, 'INVALID_REQUEST');
    expectError(await app.server.inject(request(account.key, 'GET',
      '/v1/cashReceipts?status=DONE')), 400, 'INVALID_REQUEST');
  });
});
