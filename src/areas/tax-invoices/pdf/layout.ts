import {
  formatApprovalNumber, formatIdentificationNumber, formatIssuedAt, formatStatus, formatTitle,
  printable,
} from './format.ts';
import {
  CONTENT_WIDTH_POINTS, PAGE_HEIGHT_POINTS, PAGE_MARGIN_POINTS, rowCells,
  type Cell, type CellTone, type Column, type InvoiceLayout, type Section,
} from './cells.ts';
import {
  HEADER_ROW_HEIGHT_POINTS, ITEM_ROW_HEIGHT_POINTS, layOutContinued, layOutItems, layOutSummary,
  layOutTotals, TOTAL_ROW_HEIGHT_POINTS,
} from './layout-table.ts';
import type { Broker, Item, Manager, Supplied, Supplier } from '../schemas.ts';
import type { PdfInput } from './input.ts';

// Where every cell of the standard e-tax-invoice form goes: the sandbox notice, the title with
// the approval number, the two party blocks side by side, then the table sections
// (layout-table.ts) and a footer. The first page is one table of fixed rows, so nothing moves
// with the content; long text is fitted inside its cell when painted. Items beyond the form's
// FIRST_PAGE_ITEM_ROWS go on continuation pages, each with the title and approval number again,
// the item table and its page number; the total and the 영수/청구 line close the last page.

export const SANDBOX_NOTICE = 'SANDBOX · 국세청 미전송 (test key)';
const SANDBOX_WATERMARK = 'SANDBOX';
export const LATE_ISSUANCE_MARK = '지연발급 (late issuance)';

const NOTICE_HEIGHT_POINTS = 16;
const SECTION_GAP_POINTS = 4;
const TITLE_BLOCK_HEIGHT_POINTS = 48;
const TITLE_WIDTH_POINTS = 300;
const TITLE_LABEL_WIDTH_POINTS = 70;
const FOOTER_HEIGHT_POINTS = 12;

// Party rows: names, addresses, business type and item run to 100–200 characters, so their
// rows are tall enough for six lines at the smallest type; the last, the form's 이메일 row, has a
// line per manager's address. A trustee document (위수탁) gives three of them four points each
// for the trustee's row below the block, so the first page keeps its sixteen item rows.
const PARTY_ROW_HEIGHTS_POINTS = [20, 40, 40, 40, 24] as const;
const TRUSTEE_PARTY_ROW_HEIGHTS_POINTS = [20, 36, 36, 36, 24] as const;
const TRUSTEE_ROW_HEIGHT_POINTS = 20;
const TRUSTEE_LABEL_WIDTH_POINTS = 40;
const partyRowHeights = (input: PdfInput) => (input.invoice.broker == null
  ? PARTY_ROW_HEIGHTS_POINTS : TRUSTEE_PARTY_ROW_HEIGHTS_POINTS);

// The item rows of the first page's form, and how many fit on a continuation page below its
// title block and above the total and footer.
export const FIRST_PAGE_ITEM_ROWS = 16;
export const CONTINUATION_PAGE_ITEM_ROWS = Math.floor((PAGE_HEIGHT_POINTS -
  2 * PAGE_MARGIN_POINTS - NOTICE_HEIGHT_POINTS - SECTION_GAP_POINTS - TITLE_BLOCK_HEIGHT_POINTS -
  SECTION_GAP_POINTS - HEADER_ROW_HEIGHT_POINTS - TOTAL_ROW_HEIGHT_POINTS - SECTION_GAP_POINTS -
  FOOTER_HEIGHT_POINTS) / ITEM_ROW_HEIGHT_POINTS);

// The items of each page: the form's rows first, then full continuation pages.
function itemsByPage(items: readonly Item[]): Item[][] {
  const pages = [items.slice(0, FIRST_PAGE_ITEM_ROWS)];
  for (let start = FIRST_PAGE_ITEM_ROWS; start < items.length;
    start += CONTINUATION_PAGE_ITEM_ROWS) {
    pages.push(items.slice(start, start + CONTINUATION_PAGE_ITEM_ROWS));
  }
  return pages;
}
const PARTY_SIDE_LABEL_WIDTH_POINTS = 18;
const PARTY_LABEL_WIDTH_POINTS = 36;

export function layOutTaxInvoice(input: PdfInput): InvoiceLayout {
  const sandbox = input.environment === 'test';
  const chunks = itemsByPage(input.invoice.items);
  const pages = chunks.map((items, index) => layOutPage(input, {
    items, page: index + 1, pageCount: chunks.length }));
  return { pages, watermark: sandbox ? SANDBOX_WATERMARK : null };
}

type PageOptions = { items: readonly Item[]; page: number; pageCount: number };

function layOutPage(input: PdfInput, { items, page, pageCount }: PageOptions): Cell[] {
  const cells: Cell[] = [];
  const add = (section: Section) => {
    cells.push(...section.cells);
    return section.bottom;
  };
  let y = PAGE_MARGIN_POINTS;
  // A live document keeps the band's space empty, so both environments share one layout.
  if (input.environment === 'test') {
    cells.push({ x: PAGE_MARGIN_POINTS, y, width: CONTENT_WIDTH_POINTS,
      height: NOTICE_HEIGHT_POINTS, text: SANDBOX_NOTICE, style: 'notice' });
  }
  y += NOTICE_HEIGHT_POINTS + SECTION_GAP_POINTS;
  if (page === 1) {
    y = add(layOutTitle(input, y, false));
    y = add(layOutParties(input, y));
    y = add(layOutSummary(input, y));
    y = add(layOutItems(input, y, items, FIRST_PAGE_ITEM_ROWS));
  } else {
    y = add(layOutTitle(input, y, true)) + SECTION_GAP_POINTS;
    y = add(layOutItems(input, y, items, items.length));
  }
  y = add(page === pageCount ? layOutTotals(input, y) : layOutContinued(page, pageCount, y));
  cells.push(layOutFooter(input, y + SECTION_GAP_POINTS, { page, pageCount }));
  return cells;
}

function layOutTitle(input: PdfInput, y: number, continued: boolean): Section {
  const form = formatTitle({ taxType: input.taxType, amended: input.amendment !== null,
    trustee: input.invoice.broker != null });
  const title = continued ? `${form} (계속)` : form;
  const cells: Cell[] = [{ x: PAGE_MARGIN_POINTS, y, width: TITLE_WIDTH_POINTS,
    height: TITLE_BLOCK_HEIGHT_POINTS, text: title, style: 'title' }];
  const rows: Array<[string, string]> = [
    ['승인번호', formatApprovalNumber(input.ntsTransactionId)],
    ['관리번호', input.issuanceKey],
  ];
  if (input.amendment !== null) {
    rows.push(['당초승인번호', formatApprovalNumber(input.amendment.originalNtsTransactionId)]);
  }
  const rowHeight = TITLE_BLOCK_HEIGHT_POINTS / rows.length;
  const x = PAGE_MARGIN_POINTS + TITLE_WIDTH_POINTS;
  const valueWidth = CONTENT_WIDTH_POINTS - TITLE_WIDTH_POINTS - TITLE_LABEL_WIDTH_POINTS;
  rows.forEach(([label, value], index) => {
    cells.push(...rowCells(x, y + index * rowHeight, rowHeight, [
      { width: TITLE_LABEL_WIDTH_POINTS, text: label, style: 'label' },
      { width: valueWidth, text: value, style: 'center' },
    ]));
  });
  return { cells, bottom: y + TITLE_BLOCK_HEIGHT_POINTS };
}

function layOutParties(input: PdfInput, y: number): Section {
  const sideWidth = CONTENT_WIDTH_POINTS / 2;
  const { supplier, supplied, broker } = input.invoice;
  const rowHeights = partyRowHeights(input);
  const cells = [
    ...layOutParty({ party: supplier, managers: [supplier.manager], tone: 'supplier',
      x: PAGE_MARGIN_POINTS, y, width: sideWidth, rowHeights }),
    ...layOutParty({ party: supplied, managers: supplied.managers,
      tone: 'recipient', x: PAGE_MARGIN_POINTS + sideWidth, y, width: sideWidth, rowHeights }),
  ];
  const height = rowHeights.reduce((sum, rowHeight) => sum + rowHeight, 0);
  if (broker == null) return { cells, bottom: y + height };
  return { cells: [...cells, ...layOutTrustee(broker, y + height)],
    bottom: y + height + TRUSTEE_ROW_HEIGHT_POINTS };
}

// The trustee's row of a trustee document (위수탁): who issued it in the supplier's name, by its
// registration number (with its sub-place), name and representative.
function layOutTrustee(broker: Broker, y: number): Cell[] {
  const tone = 'supplier' as const;
  const label = PARTY_LABEL_WIDTH_POINTS;
  const numberWidth = 96;
  const nameWidth = 190;
  const number = formatIdentificationNumber(broker.identificationNumber) +
    (broker.taxRegistrationId == null ? '' : ` (${printable(broker.taxRegistrationId)})`);
  const used = TRUSTEE_LABEL_WIDTH_POINTS + 3 * label + numberWidth + nameWidth;
  return rowCells(PAGE_MARGIN_POINTS, y, TRUSTEE_ROW_HEIGHT_POINTS, [
    { width: TRUSTEE_LABEL_WIDTH_POINTS, text: '수탁자', style: 'label', tone },
    { width: label, text: '등록번호', style: 'label', tone },
    { width: numberWidth, text: number, style: 'text' },
    { width: label, text: '상호', style: 'label', tone },
    { width: nameWidth, text: printable(broker.organizationName), style: 'text' },
    { width: label, text: '성명', style: 'label', tone },
    { width: CONTENT_WIDTH_POINTS - used, text: printable(broker.representativeName),
      style: 'text' },
  ]);
}

type PartyOptions = {
  party: Supplier | Supplied;
  managers: readonly Manager[];
  tone: CellTone;
  x: number;
  y: number;
  width: number;
  rowHeights: readonly number[];
};

// One side of the party block: 공급자 (supplier) or 공급받는자 (recipient), the form's five rows,
// the last its 이메일 row: the address each manager receives the document at (the names and
// telephones are on the XML, not on the form).
function layOutParty({ party, managers, tone, x, y, width, rowHeights }: PartyOptions): Cell[] {
  const height = rowHeights.reduce((sum, rowHeight) => sum + rowHeight, 0);
  const side = tone === 'supplier' ? '공\n급\n자' : '공\n급\n받\n는\n자';
  const cells: Cell[] = [{ x, y, width: PARTY_SIDE_LABEL_WIDTH_POINTS, height, text: side,
    style: 'label', tone }];
  const left = x + PARTY_SIDE_LABEL_WIDTH_POINTS;
  const label = PARTY_LABEL_WIDTH_POINTS;
  const value = (width - PARTY_SIDE_LABEL_WIDTH_POINTS - 2 * label) / 2;
  const wide = width - PARTY_SIDE_LABEL_WIDTH_POINTS - label;
  const pair = (first: string, firstValue: string, second: string, secondValue: string) => [
    { width: label, text: first, style: 'label' as const, tone },
    { width: value, text: firstValue, style: 'text' as const },
    { width: label, text: second, style: 'label' as const, tone },
    { width: value, text: secondValue, style: 'text' as const },
  ];
  const single = (first: string, firstValue: string) => [
    { width: label, text: first, style: 'label' as const, tone },
    { width: wide, text: firstValue, style: 'text' as const },
  ];
  const rows: Column[][] = [
    pair('등록번호', formatIdentificationNumber(party.identificationNumber),
      '종사업장\n번호', printable(party.taxRegistrationId)),
    pair('상호', printable(party.organizationName), '성명', printable(party.representativeName)),
    single('사업장\n주소', printable(party.address)),
    pair('업태', printable(party.businessType), '종목', printable(party.businessItem)),
    single('이메일', managers.map((manager) => printable(manager.email)).join('\n')),
  ];
  let top = y;
  rows.forEach((columns, index) => {
    const rowHeight = rowHeights[index]!;
    cells.push(...rowCells(left, top, rowHeight, columns));
    top += rowHeight;
  });
  return cells;
}

function layOutFooter(input: PdfInput, y: number, pages: { page: number; pageCount: number }):
  Cell {
  const parts = [`상태: ${formatStatus(input.status)}`];
  if (pages.pageCount > 1) parts.unshift(`쪽 ${pages.page}/${pages.pageCount}`);
  if (input.issuedAt !== null) parts.push(`발행일시: ${formatIssuedAt(input.issuedAt)}`);
  if (input.lateIssuance === true) parts.push(LATE_ISSUANCE_MARK);
  if (input.environment === 'test') parts.push(SANDBOX_NOTICE);
  return { x: PAGE_MARGIN_POINTS, y, width: CONTENT_WIDTH_POINTS, height: FOOTER_HEIGHT_POINTS,
    text: parts.join('  ·  '), style: 'footer' };
}
