import { formatBusinessRegistrationNumber } from '../../../domain/business-registration-number.ts';
import { escapeHtml, page, type PageTitle } from '../../../platform/html-page.ts';
import type { Invoice } from '../schemas.ts';
import { REFUSAL_REASON_LENGTH_MAX } from './schemas.ts';

// The HTML of the reverse issuance approval page (docs/reverse-issuance.md § Approval page):
// the request for the supplier to review, and two forms, approve and refuse, in Korean and
// English. Every value from the request is escaped (platform/html-page.ts).

export type ApprovalPageView = {
  issuanceKey: string;
  environment: string;
  invoice: Invoice;
  totals: { supplyCost: number; tax: number; total: number };
  issueDeadline: string;
};

const APPROVAL_TITLE: PageTitle = { ko: '세금계산서 역발행 승인',
  en: 'Reverse issuance approval' };

const won = new Intl.NumberFormat('ko-KR');
const amount = (value: number | null | undefined) =>
  value === null || value === undefined ? '' : won.format(value);

// A business registration number as people write it; a 13-digit number (a person's) as is.
const displayNumber = (number: string) =>
  number.length === 10 ? formatBusinessRegistrationNumber(number) : number;

type Row = [label: string, value: string | null | undefined, className?: string];

function factsTable(rows: Row[]) {
  const cells = rows.filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([label, value, className]) => `<tr${className ? ` class="${className}"` : ''}>` +
      `<th scope="row">${label}</th><td>${escapeHtml(value!)}</td></tr>`);
  return `<table class="facts"><tbody>${cells.join('')}</tbody></table>`;
}

function partyHtml(label: string, party: Invoice['supplier'] | Invoice['supplied']) {
  return `<section><h2>${label}</h2>` + factsTable([
    ['상호 Name', party.organizationName],
    ['등록번호 Registration no.', displayNumber(party.identificationNumber)],
    ['대표자 Representative', party.representativeName],
    ['주소 Address', party.address],
  ]) + '</section>';
}

// Each cell carries its column's name, which a phone shows beside the value (page-style.ts).
const ITEM_COLUMNS = [
  ['공급일자 Date', ''], ['품목 Item', ''], ['규격 Spec.', ''], ['수량 Qty', 'num'],
  ['단가 Unit price', 'num'], ['공급가액 Supply cost', 'num'], ['세액 Tax', 'num'],
] as const;

function itemsHtml(items: Invoice['items']) {
  const head = ITEM_COLUMNS.map(([label, className]) =>
    `<th scope="col"${className ? ` class="${className}"` : ''}>${label}</th>`).join('');
  const rows = items.map((item) => {
    const values = [item.date, item.name, item.specification,
      item.quantity === null || item.quantity === undefined ? '' : String(item.quantity),
      amount(item.unitPrice), amount(item.supplyCost), amount(item.tax)];
    return '<tr>' + values.map((value, index) => {
      const [label, className] = ITEM_COLUMNS[index]!;
      return `<td data-label="${label}"${className ? ` class="${className}"` : ''}>` +
        `${escapeHtml(value ?? '')}</td>`;
    }).join('') + '</tr>';
  });
  return '<h2>품목 Items</h2><table class="items"><thead><tr>' + head + '</tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table>`;
}

function totalsHtml(totals: ApprovalPageView['totals']) {
  return '<table class="facts totals"><tbody>' +
    `<tr><th scope="row">공급가액 Supply cost</th><td class="num">${amount(totals.supplyCost)}원` +
    `</td></tr><tr><th scope="row">세액 Tax</th><td class="num">${amount(totals.tax)}원</td>` +
    '</tr><tr class="total"><th scope="row">합계 Total</th>' +
    `<td class="num">${amount(totals.total)}원</td></tr></tbody></table>`;
}

function formsHtml(action: string) {
  const target = escapeHtml(action);
  return '<div class="decision">' +
    `<form method="post" action="${target}">` +
    '<input type="hidden" name="decision" value="approve">' +
    '<p>승인하면 공동인증서로 서명하여 발행하고 국세청에 전송합니다. Approving signs the tax ' +
    'invoice with your joint certificate, issues it and sends it to the tax authority.</p>' +
    '<button type="submit" class="primary">승인하고 발행 · Approve and issue</button></form>' +
    `<form method="post" action="${target}">` +
    '<input type="hidden" name="decision" value="refuse">' +
    '<label>거절 사유 Reason <span class="hint">선택 optional</span>' +
    `<input type="text" name="reason" maxlength="${REFUSAL_REASON_LENGTH_MAX}"></label>` +
    '<button type="submit" class="danger">거절 · Refuse</button></form></div>';
}

const SANDBOX_NOTICE = '<p class="notice sandbox">테스트 요청: 국세청에 전송되지 않습니다. ' +
  'Sandbox request: it is not sent to the tax authority.</p>';

// The request to review, and the forms that post the decision to `action`.
export function reviewPage(view: ApprovalPageView, action: string): string {
  const { invoice, totals } = view;
  const body = (view.environment === 'test' ? SANDBOX_NOTICE : '') +
    `<p>${escapeHtml(invoice.supplied.organizationName)}에서 세금계산서 발행을 요청했습니다. ` +
    `${escapeHtml(invoice.supplied.organizationName)} asks you to issue this tax invoice.</p>` +
    factsTable([
      ['작성일자 Write date', invoice.date],
      ['발행마감일 Issue deadline', view.issueDeadline],
      ['합계 Total', `${amount(totals.total)}원`, 'total'],
      ['요청 번호 Issuance key', view.issuanceKey],
    ]) +
    '<div class="columns">' + partyHtml('공급자 Supplier', invoice.supplier) +
    partyHtml('공급받는자 Recipient', invoice.supplied) + '</div>' +
    itemsHtml(invoice.items) + totalsHtml(totals) +
    (invoice.description ? factsTable([['비고 Remark', invoice.description]]) : '') +
    formsHtml(action);
  return page(APPROVAL_TITLE, body);
}
