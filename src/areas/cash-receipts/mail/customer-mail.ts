import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db } from '../../../platform/db/connect.ts';
import type { OutgoingMail } from '../../../platform/mail/outbox.ts';
import type { MailKindHooks } from '../../../platform/mail/send-job.ts';
import { escapeHtml } from '../../../platform/html-page.ts';
import { receiptFacts, receiptTitle } from '../pdf/receipt-facts.ts';
import * as store from '../store.ts';
import type { CashReceiptRow } from '../store.ts';

// The customer's copy of an approved receipt or cancellation (docs/cash-receipts.md § Customer
// copy), when the request gave `customer.email`: the facts the PDF prints, in text and HTML,
// with the receipt's PDF attached when the mail is sent (customerMailHooks). Every value from
// the request is escaped in the HTML.

export const CASH_RECEIPT_MAIL_KIND = 'CASH_RECEIPT_CUSTOMER_COPY';

const SUBJECT_NAME_LENGTH_MAX = 60;
const shorten = (name: string) => name.length <= SUBJECT_NAME_LENGTH_MAX ? name
  : `${name.slice(0, SUBJECT_NAME_LENGTH_MAX - 1)}…`;

export function customerMail(row: CashReceiptRow): Omit<OutgoingMail, 'scope'> | null {
  const to = row.customer?.email;
  if (to === undefined || to === null) return null;
  const title = receiptTitle(row);
  const facts = receiptFacts(row);
  const sandbox = row.environment === 'test'
    ? 'SANDBOX: 테스트 키로 발급되어 국세청에 전송되지 않습니다. (not reported to the tax authority)'
    : null;
  const attached = '첨부한 PDF가 영수증입니다. The receipt is attached as a PDF.';
  const text = [
    `${title} — ${row.merchantName}`,
    '',
    ...facts.map(([label, value]) => `${label}: ${value}`),
    '',
    attached,
    ...(sandbox === null ? [] : ['', sandbox]),
  ].join('\n');
  const html = [
    `<h1>${escapeHtml(title)}</h1>`,
    '<table>',
    ...facts.map(([label, value]) =>
      `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`),
    '</table>',
    `<p>${escapeHtml(attached)}</p>`,
    ...(sandbox === null ? [] : [`<p><strong>${escapeHtml(sandbox)}</strong></p>`]),
  ].join('\n');
  return { kind: CASH_RECEIPT_MAIL_KIND, to,
    subject: `[${shorten(row.merchantName)}] ${title} ${row.approvalNumber ?? ''}`.trim(),
    text, html, reference: row.issuanceKey };
}

// The mail kind's hooks: the PDF of the receipt the mail is about, rendered when the mail is
// sent (the same file as GET /v1/cashReceipts/{issuanceKey}/pdf), so the queueing transaction
// stays small and a retried send renders it again.
export function customerMailHooks(deps: {
  db: Db;
  renderPdf(row: CashReceiptRow): Promise<Buffer>;
}): MailKindHooks {
  return {
    async attachments(mail) {
      if (mail.reference === null || mail.accountId === null || mail.environment === null) {
        return [];
      }
      const row = await store.findReceipt(deps.db, { accountId: mail.accountId,
        environment: mail.environment as Environment }, mail.reference);
      if (row === null) return [];
      return [{ filename: `${row.issuanceKey}.pdf`, contentType: 'application/pdf',
        content: await deps.renderPdf(row) }];
    },
  };
}
