import type { OutgoingMail } from '../../../platform/mail/outbox.ts';
import { escapeHtml } from '../../../platform/html-page.ts';
import type { TaxInvoiceRow } from '../store.ts';

// The mail that asks the supplier to approve a reverse issuance request (docs/reverse-issuance.md
// § Approval by mail): who asks, for how much, until when, and the one-time link to the approval
// page. Text and HTML say the same; every value from the request is escaped in the HTML.

const APPROVAL_REQUEST_MAIL_KIND = 'TAX_INVOICE_APPROVAL_REQUEST';

const won = new Intl.NumberFormat('ko-KR');
// Names are at most 100 characters (../schemas.ts); the subject stays within the outbox's
// bound (MAIL_SUBJECT_LENGTH_MAX) with room to spare.
const SUBJECT_NAME_LENGTH_MAX = 60;

const shorten = (name: string) => name.length <= SUBJECT_NAME_LENGTH_MAX ? name
  : `${name.slice(0, SUBJECT_NAME_LENGTH_MAX - 1)}…`;

function seoulTime(time: Date): string {
  return `${time.toLocaleString('sv-SE', { timeZone: 'Asia/Seoul' })} (Asia/Seoul)`;
}

// What the mail tells of the request: the row as it was recorded.
export type MailedRequest = Pick<TaxInvoiceRow, 'issuanceKey' | 'accountId' | 'environment' |
  'invoice' | 'writeDate' | 'issueDeadline' | 'supplyCostTotal' | 'taxTotal' | 'totalAmount'>;

type MailInput = { row: MailedRequest; to: string; url: string; expiresAt: Date };

function facts(row: MailedRequest): Array<[string, string]> {
  const { invoice } = row;
  return [
    ['요청자 Requested by', `${invoice.supplied.organizationName} ` +
      `(${invoice.supplied.identificationNumber})`],
    ['공급자 Supplier', `${invoice.supplier.organizationName} ` +
      `(${invoice.supplier.identificationNumber})`],
    ['작성일자 Write date', row.writeDate],
    ['합계금액 Total', `${won.format(row.totalAmount)}원 (공급가액 supply cost ` +
      `${won.format(row.supplyCostTotal)}, 세액 tax ${won.format(row.taxTotal)})`],
    ['발행마감일 Issue deadline', row.issueDeadline],
    ['요청 번호 Issuance key', row.issuanceKey],
  ];
}

export function approvalRequestMail(input: MailInput): OutgoingMail {
  const { row, url } = input;
  const { invoice } = row;
  const sandbox = row.environment === 'test'
    ? '[TEST] 테스트 요청입니다. 국세청에 전송되지 않습니다. Sandbox: not sent to the tax authority.'
    : null;
  const expiry = seoulTime(input.expiresAt);
  const lines = facts(row).map(([label, value]) => `${label}: ${value}`);
  const text = [
    ...(sandbox === null ? [] : [sandbox, '']),
    `${invoice.supplied.organizationName}에서 세금계산서 역발행을 요청했습니다.`,
    `${invoice.supplied.organizationName} asks you to issue a tax invoice (reverse issuance).`,
    '', ...lines, '',
    '아래 링크에서 내용을 확인하고 승인하거나 거절하세요. 링크는 한 번만 쓸 수 있습니다.',
    'Review the invoice and approve or refuse it here. The link works once:',
    url, '', `유효기한 Valid until: ${expiry}`,
  ].join('\n');
  const html = [
    ...(sandbox === null ? [] : [`<p><strong>${escapeHtml(sandbox)}</strong></p>`]),
    `<p>${escapeHtml(invoice.supplied.organizationName)}에서 세금계산서 역발행을 요청했습니다.</p>`,
    '<table>', ...facts(row).map(([label, value]) =>
      `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`),
    '</table>',
    `<p><a href="${escapeHtml(url)}">내용 확인 및 승인 Review and approve</a></p>`,
    `<p>링크는 한 번만 쓸 수 있습니다. The link works once, until ${escapeHtml(expiry)}.</p>`,
  ].join('\n');
  const subject = `${row.environment === 'test' ? '[TEST] ' : ''}세금계산서 역발행 요청 ` +
    `Reverse issuance request: ${shorten(invoice.supplied.organizationName)}, ` +
    `${won.format(row.totalAmount)}원`;
  return {
    kind: APPROVAL_REQUEST_MAIL_KIND,
    to: input.to,
    subject: subject.replace(/[\r\n]+/g, ' '),
    text,
    html,
    scope: { accountId: row.accountId, environment: row.environment as 'test' | 'live' },
  };
}
