import type { OutgoingMail } from '../../platform/mail/outbox.ts';
import { escapeHtml } from '../../platform/html-page.ts';
import { receiptFacts, receiptTitle } from './receipt-facts.ts';
import type { CashReceiptRow } from './store.ts';

// The customer's copy of an approved receipt or cancellation (docs/cash-receipts.md § Customer
// copy), when the request gave `customer.email`: the facts the PDF prints, in text and HTML.
// Every value from the request is escaped in the HTML.

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
  const text = [
    `${title} — ${row.merchantName}`,
    '',
    ...facts.map(([label, value]) => `${label}: ${value}`),
    ...(sandbox === null ? [] : ['', sandbox]),
  ].join('\n');
  const html = [
    `<h1>${escapeHtml(title)}</h1>`,
    '<table>',
    ...facts.map(([label, value]) =>
      `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`),
    '</table>',
    ...(sandbox === null ? [] : [`<p><strong>${escapeHtml(sandbox)}</strong></p>`]),
  ].join('\n');
  return { kind: CASH_RECEIPT_MAIL_KIND, to,
    subject: `[${shorten(row.merchantName)}] ${title} ${row.approvalNumber ?? ''}`.trim(),
    text, html };
}
