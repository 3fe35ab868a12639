import { escapeHtml, page } from '../../../platform/html-page.ts';
import type { Invoice } from '../schemas.ts';
import { REFUSAL_REASON_LENGTH_MAX } from './schemas.ts';

// The HTML of the reverse issuance approval page (docs/reverse-issuance.md § Approval page):
// the request for the supplier to review, and two forms, approve and refuse. Every value from
// the request is escaped (platform/html-page.ts).

export type ApprovalPageView = {
  issuanceKey: string;
  environment: string;
  invoice: Invoice;
  totals: { supplyCost: number; tax: number; total: number };
  issueDeadline: string;
};

const won = new Intl.NumberFormat('ko-KR');
const amount = (value: number | null | undefined) =>
  value === null || value === undefined ? '' : won.format(value);
const cell = (value: string | null | undefined) => `<td>${escapeHtml(value ?? '')}</td>`;

function partyHtml(label: string, party: Invoice['supplier'] | Invoice['supplied']) {
  return `<h2>${escapeHtml(label)}</h2><p>${escapeHtml(party.organizationName)} ` +
    `(${escapeHtml(party.identificationNumber)}), ${escapeHtml(party.representativeName)}` +
    `${party.address ? `<br>${escapeHtml(party.address)}` : ''}</p>`;
}

function itemsHtml(items: Invoice['items']) {
  const rows = items.map((item) => '<tr>' + cell(item.date) + cell(item.name) +
    cell(item.specification) + cell(item.quantity === null || item.quantity === undefined
    ? '' : String(item.quantity)) + cell(amount(item.unitPrice)) +
    cell(amount(item.supplyCost)) + cell(amount(item.tax)) + '</tr>');
  return '<table><thead><tr><th>공급일자 Date</th><th>품목 Item</th><th>규격 Spec.</th>' +
    '<th>수량 Qty</th><th>단가 Unit price</th><th>공급가액 Supply cost</th><th>세액 Tax</th>' +
    `</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function formsHtml(action: string) {
  const target = escapeHtml(action);
  return `<form method="post" action="${target}">` +
    '<input type="hidden" name="decision" value="approve">' +
    '<button type="submit">승인하고 발행 Approve and issue</button></form>' +
    `<form method="post" action="${target}">` +
    '<input type="hidden" name="decision" value="refuse">' +
    `<label>거절 사유 Reason (optional) <input type="text" name="reason" ` +
    `maxlength="${REFUSAL_REASON_LENGTH_MAX}"></label> ` +
    '<button type="submit">거절 Refuse</button></form>';
}

// The request to review, and the forms that post the decision to `action`.
export function reviewPage(view: ApprovalPageView, action: string): string {
  const { invoice, totals } = view;
  const sandbox = view.environment === 'test'
    ? '<p><strong>테스트 요청: 국세청에 전송되지 않습니다. Sandbox request: it is not sent ' +
      'to the tax authority.</strong></p>' : '';
  const body = sandbox +
    `<p>${escapeHtml(invoice.supplied.organizationName)}에서 세금계산서 발행을 요청했습니다. ` +
    'Approving issues the tax invoice under your joint certificate.</p>' +
    `<p>작성일자 Write date: ${escapeHtml(invoice.date)} · 발행마감일 Issue deadline: ` +
    `${escapeHtml(view.issueDeadline)} · 요청 번호 Issuance key: ` +
    `${escapeHtml(view.issuanceKey)}</p>` +
    partyHtml('공급자 Supplier', invoice.supplier) +
    partyHtml('공급받는자 Recipient', invoice.supplied) +
    itemsHtml(invoice.items) +
    `<p>공급가액 Supply cost ${amount(totals.supplyCost)} · 세액 Tax ${amount(totals.tax)} · ` +
    `합계 Total ${amount(totals.total)}원</p>` +
    (invoice.description ? `<p>비고 Remark: ${escapeHtml(invoice.description)}</p>` : '') +
    formsHtml(action);
  return page('세금계산서 역발행 승인 Reverse issuance approval', body);
}
