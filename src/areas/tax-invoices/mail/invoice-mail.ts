import type { OutgoingMail } from '../../../platform/mail/outbox.ts';
import { escapeHtml } from '../../../platform/html-page.ts';
import { AMENDMENT_REASON_LABELS, formatApprovalNumber, formatTitle } from '../pdf/format.ts';
import { amendmentReasonOfCode, type Invoice } from '../schemas.ts';
import type { TaxInvoiceRow } from '../store.ts';

// The mail that delivers a transmitted tax invoice to its recipient (docs/tax-invoices.md §
// The recipient's mail): who issued it, the approval number and the amounts, in Korean and
// English, with the PDF attached when it is sent (service.ts). Text and HTML say the same;
// every value from the invoice is escaped in the HTML.

export const INVOICE_MAIL_KIND = 'TAX_INVOICE_ISSUED';

const won = new Intl.NumberFormat('ko-KR');
// Names are at most 100 characters (../schemas.ts); the subject stays well within the outbox's
// bound (MAIL_SUBJECT_LENGTH_MAX).
const SUBJECT_NAME_LENGTH_MAX = 60;

const shorten = (name: string) => name.length <= SUBJECT_NAME_LENGTH_MAX ? name
  : `${name.slice(0, SUBJECT_NAME_LENGTH_MAX - 1)}…`;

export type MailRecipients = { to: string; cc: string[] };

// The first recipient manager receives the invoice; the second, and the supplier's manager when
// the request asked for it, are copied. An address is never both sent to and copied.
export function recipientsOf(invoice: Invoice): MailRecipients {
  const [first, second] = invoice.supplied.managers;
  const to = first!.email;
  const copies = [second?.email, invoice.emailSupplierCopy === true
    ? invoice.supplier.manager.email : undefined];
  const cc = [...new Set(copies.filter((address): address is string =>
    address !== undefined && address.toLowerCase() !== to.toLowerCase()))];
  return { to, cc };
}

// What the mail tells of the invoice: the row as transmitted.
export type MailedInvoice = Pick<TaxInvoiceRow, 'issuanceKey' | 'accountId' | 'environment' |
  'invoice' | 'writeDate' | 'taxType' | 'supplyCostTotal' | 'taxTotal' | 'totalAmount' |
  'amendmentReason' | 'originalNtsTransactionId'> & { ntsTransactionId: string };

function facts(row: MailedInvoice): Array<[string, string]> {
  const { invoice } = row;
  const reason = row.amendmentReason === null ? undefined
    : amendmentReasonOfCode(row.amendmentReason);
  const lines: Array<[string, string]> = [
    ['승인번호 Approval number', formatApprovalNumber(row.ntsTransactionId)],
    ['공급자 Supplier', `${invoice.supplier.organizationName} ` +
      `(${invoice.supplier.identificationNumber})`],
    ['공급받는자 Recipient', `${invoice.supplied.organizationName} ` +
      `(${invoice.supplied.identificationNumber})`],
    ['작성일자 Write date', row.writeDate],
    ['공급가액 Supply cost', `${won.format(row.supplyCostTotal)}원`],
  ];
  if (row.taxType !== 'TAX_FREE') lines.push(['세액 Tax', `${won.format(row.taxTotal)}원`]);
  lines.push(['합계금액 Total', `${won.format(row.totalAmount)}원`]);
  if (reason !== undefined) {
    lines.push(['수정사유 Amendment', AMENDMENT_REASON_LABELS[reason]]);
    lines.push(['당초승인번호 Original approval number',
      formatApprovalNumber(row.originalNtsTransactionId)]);
  }
  lines.push(['관리번호 Issuance key', row.issuanceKey]);
  return lines;
}

export function invoiceMail(row: MailedInvoice, recipients: MailRecipients): OutgoingMail {
  const { invoice } = row;
  const title = formatTitle({ taxType: row.taxType, amended: row.amendmentReason !== null });
  const supplier = invoice.supplier.organizationName;
  const sandbox = row.environment === 'test'
    ? '[TEST] 테스트 발행입니다. 국세청에 전송되지 않았습니다. Sandbox: not sent to the tax authority.'
    : null;
  const intro = `${supplier}에서 ${title}를 발행했습니다.`;
  const introEnglish = `${supplier} issued you a tax invoice` +
    `${row.amendmentReason === null ? '' : ' (an amendment)'}; the PDF is attached.`;
  const text = [
    ...(sandbox === null ? [] : [sandbox, '']),
    intro, introEnglish, '',
    ...facts(row).map(([label, value]) => `${label}: ${value}`), '',
    '첨부한 PDF에서 내용을 확인하세요. See the attached PDF.',
  ].join('\n');
  const html = [
    ...(sandbox === null ? [] : [`<p><strong>${escapeHtml(sandbox)}</strong></p>`]),
    `<p>${escapeHtml(intro)}<br>${escapeHtml(introEnglish)}</p>`,
    '<table>', ...facts(row).map(([label, value]) =>
      `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`),
    '</table>',
    '<p>첨부한 PDF에서 내용을 확인하세요. See the attached PDF.</p>',
  ].join('\n');
  const subject = `${row.environment === 'test' ? '[TEST] ' : ''}${title} Tax invoice: ` +
    `${shorten(supplier)}, ${won.format(row.totalAmount)}원, ` +
    `승인번호 ${formatApprovalNumber(row.ntsTransactionId)}`;
  return {
    kind: INVOICE_MAIL_KIND,
    to: recipients.to,
    cc: recipients.cc,
    subject: subject.replace(/[\r\n]+/g, ' '),
    text,
    html,
    scope: { accountId: row.accountId, environment: row.environment as 'test' | 'live' },
    reference: row.issuanceKey,
  };
}
