import { CONTENT_WIDTH_POINTS, PAGE_MARGIN_POINTS, rowCells, type Cell, type Column,
  type Section } from './cells.ts';
import {
  AMENDMENT_REASON_LABELS, formatAmount, formatPurpose, formatQuantity, printable,
  splitSupplyDate,
} from './format.ts';
import type { Item } from '../schemas.ts';
import type { PdfInput } from './input.ts';

// The lower half of the form: the 작성일자 / 공급가액 / 세액 / 수정사유 row, the remark, the
// item table and the total with its 영수/청구 line. A tax-exempt invoice (전자계산서) has no VAT,
// so its form has no 세액 columns and the supply cost and item name take their width.

export const HEADER_ROW_HEIGHT_POINTS = 16;
const SUMMARY_VALUE_HEIGHT_POINTS = 20;
// The remark runs to 200 characters: three lines at the smallest type.
const REMARK_ROW_HEIGHT_POINTS = 30;
const REMARK_LABEL_WIDTH_POINTS = 60;
// Item names and remarks run to 100 characters: four lines at the smallest type.
export const ITEM_ROW_HEIGHT_POINTS = 26;
export const TOTAL_ROW_HEIGHT_POINTS = 28;

const DATE_WIDTH_POINTS = 90;
const REASON_WIDTH_POINTS = 149.28;
const SUMMARY_AMOUNT_WIDTH_POINTS =
  (CONTENT_WIDTH_POINTS - DATE_WIDTH_POINTS - REASON_WIDTH_POINTS) / 2;

type ItemColumn = { header: string; width: number; style: Column['style'];
  value: (item: Item) => string };

const TAX_COLUMN: ItemColumn = { header: '세액', width: 62, style: 'amount',
  value: (item) => (item.tax === null ? '' : formatAmount(item.tax)) };
const ITEM_NAME_WIDTH_POINTS = 126;

// The item columns in form order; the remark takes whatever width is left.
function itemColumns(taxable: boolean): ItemColumn[] {
  const nameWidth = taxable ? ITEM_NAME_WIDTH_POINTS : ITEM_NAME_WIDTH_POINTS + TAX_COLUMN.width;
  const columns: ItemColumn[] = [
    { header: '월', width: 18, style: 'center', value: (item) => splitSupplyDate(item.date).month },
    { header: '일', width: 18, style: 'center', value: (item) => splitSupplyDate(item.date).day },
    { header: '품목', width: nameWidth, style: 'text', value: (item) => printable(item.name) },
    { header: '규격', width: 60, style: 'text', value: (item) => printable(item.specification) },
    { header: '수량', width: 40, style: 'amount',
      value: (item) => (item.quantity == null ? '' : formatQuantity(item.quantity)) },
    { header: '단가', width: 62, style: 'amount',
      value: (item) => (item.unitPrice == null ? '' : formatAmount(item.unitPrice)) },
    { header: '공급가액', width: 70, style: 'amount', value: (item) => formatAmount(item.supplyCost) },
  ];
  if (taxable) columns.push(TAX_COLUMN);
  const used = columns.reduce((sum, column) => sum + column.width, 0);
  columns.push({ header: '비고', width: CONTENT_WIDTH_POINTS - used, style: 'text',
    value: (item) => printable(item.description) });
  return columns;
}

export function layOutSummary(input: PdfInput, y: number): Section {
  // A zero-rated invoice shows its tax of 0; only a tax-exempt one has no tax column.
  const taxable = input.taxType !== 'TAX_FREE';
  const amountWidth = taxable ? SUMMARY_AMOUNT_WIDTH_POINTS : 2 * SUMMARY_AMOUNT_WIDTH_POINTS;
  const reason = input.amendment === null ? '' : AMENDMENT_REASON_LABELS[input.amendment.reason];
  const headers: Column[] = [
    { width: DATE_WIDTH_POINTS, text: '작성일자', style: 'label' },
    { width: amountWidth, text: '공급가액', style: 'label' },
  ];
  const values: Column[] = [
    { width: DATE_WIDTH_POINTS, text: input.invoice.date, style: 'center' },
    { width: amountWidth, text: formatAmount(input.totals.supplyCost), style: 'amount' },
  ];
  if (taxable) {
    headers.push({ width: amountWidth, text: '세액', style: 'label' });
    values.push({ width: amountWidth, text: formatAmount(input.totals.tax), style: 'amount' });
  }
  headers.push({ width: REASON_WIDTH_POINTS, text: '수정사유', style: 'label' });
  values.push({ width: REASON_WIDTH_POINTS, text: reason, style: 'center' });
  const valuesTop = y + HEADER_ROW_HEIGHT_POINTS;
  const remarkTop = valuesTop + SUMMARY_VALUE_HEIGHT_POINTS;
  const cells = [
    ...rowCells(PAGE_MARGIN_POINTS, y, HEADER_ROW_HEIGHT_POINTS, headers),
    ...rowCells(PAGE_MARGIN_POINTS, valuesTop, SUMMARY_VALUE_HEIGHT_POINTS, values),
    ...rowCells(PAGE_MARGIN_POINTS, remarkTop, REMARK_ROW_HEIGHT_POINTS, [
      { width: REMARK_LABEL_WIDTH_POINTS, text: '비고', style: 'label' },
      { width: CONTENT_WIDTH_POINTS - REMARK_LABEL_WIDTH_POINTS,
        text: printable(input.invoice.description), style: 'text' },
    ]),
  ];
  return { cells, bottom: remarkTop + REMARK_ROW_HEIGHT_POINTS };
}

// The items of one page under the column headers, in `rows` rows: the first page always has the
// form's fixed number, blank below the last item, so every invoice's first page is the same form;
// a continuation page has as many rows as it has items.
export function layOutItems(input: PdfInput, y: number, items: readonly Item[],
  rows: number): Section {
  const columns = itemColumns(input.taxType !== 'TAX_FREE');
  const cells: Cell[] = rowCells(PAGE_MARGIN_POINTS, y, HEADER_ROW_HEIGHT_POINTS,
    columns.map((column) => ({ width: column.width, text: column.header, style: 'label' })));
  let top = y + HEADER_ROW_HEIGHT_POINTS;
  for (let index = 0; index < rows; index += 1) {
    const item = items[index];
    cells.push(...rowCells(PAGE_MARGIN_POINTS, top, ITEM_ROW_HEIGHT_POINTS, columns.map(
      (column) => ({ width: column.width, text: item ? column.value(item) : '',
        style: column.style }))));
    top += ITEM_ROW_HEIGHT_POINTS;
  }
  return { cells, bottom: top };
}

// The form's payment cells (현금, 수표, 어음, 외상미수금), each in its own column under its label
// as on the paper form, blank for a means the document does not name.
const PAYMENT_LABELS = [['cash', '현금'], ['check', '수표'], ['note', '어음'],
  ['credit', '외상미수금']] as const;
const TOTAL_HEADER_HEIGHT_POINTS = 12;
const TOTAL_AMOUNT_WIDTH_POINTS = 110;
const PAYMENT_WIDTH_POINTS = 82;

// The four payment cells' amounts, in form order. Like the XML's PaidAmount they carry the sign
// of the total, so a negative amendment document shows what it takes back as negative amounts.
export function paymentCells(input: PdfInput): [string, string, string, string] {
  const payment = input.invoice.payment;
  const sign = input.totals.total < 0 ? -1 : 1;
  const cell = (field: (typeof PAYMENT_LABELS)[number][0]) => {
    const part = payment?.[field];
    return part == null ? '' : formatAmount(sign * part || 0);
  };
  return [cell('cash'), cell('check'), cell('note'), cell('credit')];
}

// The form's closing block: 합계금액 and the four payment means, labels above amounts, then the
// 영수/청구 mark across both rows.
export function layOutTotals(input: PdfInput, y: number): Section {
  const amounts = paymentCells(input);
  const markWidth = CONTENT_WIDTH_POINTS - TOTAL_AMOUNT_WIDTH_POINTS -
    PAYMENT_LABELS.length * PAYMENT_WIDTH_POINTS;
  const valuesTop = y + TOTAL_HEADER_HEIGHT_POINTS;
  const valuesHeight = TOTAL_ROW_HEIGHT_POINTS - TOTAL_HEADER_HEIGHT_POINTS;
  const cells = [
    ...rowCells(PAGE_MARGIN_POINTS, y, TOTAL_HEADER_HEIGHT_POINTS, [
      { width: TOTAL_AMOUNT_WIDTH_POINTS, text: '합계금액', style: 'label' },
      ...PAYMENT_LABELS.map(([, label]) => ({ width: PAYMENT_WIDTH_POINTS, text: label,
        style: 'label' as const })),
    ]),
    ...rowCells(PAGE_MARGIN_POINTS, valuesTop, valuesHeight, [
      { width: TOTAL_AMOUNT_WIDTH_POINTS, text: formatAmount(input.totals.total),
        style: 'amount' },
      ...amounts.map((text) => ({ width: PAYMENT_WIDTH_POINTS, text, style: 'amount' as const })),
    ]),
    { x: PAGE_MARGIN_POINTS + CONTENT_WIDTH_POINTS - markWidth, y, width: markWidth,
      height: TOTAL_ROW_HEIGHT_POINTS, text: formatPurpose(input.invoice.purpose),
      style: 'marker' as const },
  ];
  return { cells, bottom: y + TOTAL_ROW_HEIGHT_POINTS };
}

// In the totals' place on every page but the last: where the items go on.
export function layOutContinued(page: number, pageCount: number, y: number): Section {
  const cells = rowCells(PAGE_MARGIN_POINTS, y, TOTAL_ROW_HEIGHT_POINTS, [
    { width: CONTENT_WIDTH_POINTS, style: 'center',
      text: `다음 쪽에 계속 · continued on page ${page + 1} (${page}/${pageCount})` },
  ]);
  return { cells, bottom: y + TOTAL_ROW_HEIGHT_POINTS };
}
