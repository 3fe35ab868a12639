// The tax invoice PDF (src/areas/tax-invoices/pdf/): each test renders an invoice and reads
// the text back with unpdf, the way a person or a bookkeeping tool would, so it proves what the
// page says: the title, the parties, the formatted numbers, the items, the totals and the
// 영수/청구 line, and that a sandbox invoice always says it never went to the tax authority.
// Layout tests check the geometry itself: sixteen items fit on one A4 page, no cell overlaps
// another, and every piece of text the PDF holds lies inside a cell of the form.
import { describe, expect, it } from 'vitest';
import { extractText, extractTextItems, getDocumentProxy } from 'unpdf';
import { ITEMS_MAX, type Invoice, type Item } from '../../../src/areas/tax-invoices/schemas.ts';
import type { PdfInput } from '../../../src/areas/tax-invoices/pdf/input.ts';
import { renderTaxInvoicePdf } from '../../../src/areas/tax-invoices/pdf/render.ts';
import { formatAmount } from '../../../src/areas/tax-invoices/pdf/format.ts';
import { paymentCells } from '../../../src/areas/tax-invoices/pdf/layout-table.ts';
import {
  PAGE_HEIGHT_POINTS, PAGE_MARGIN_POINTS, PAGE_WIDTH_POINTS, type Cell,
} from '../../../src/areas/tax-invoices/pdf/cells.ts';
import {
  CONTINUATION_PAGE_ITEM_ROWS, FIRST_PAGE_ITEM_ROWS, LATE_ISSUANCE_MARK, layOutTaxInvoice,
  SANDBOX_NOTICE,
} from '../../../src/areas/tax-invoices/pdf/layout.ts';

const APPROVAL_NUMBER = '202611204100000012345678';
const ORIGINAL_APPROVAL_NUMBER = '202610154100000087654321';

function item(overrides: Partial<Item> = {}): Item {
  return { date: '2026-11-20', name: '클라우드 사용료', specification: '월 구독', quantity: 2,
    unitPrice: 500_000, supplyCost: 1_000_000, tax: 100_000, description: '11월분', ...overrides };
}

function document(overrides: Partial<Invoice> = {}): Invoice {
  return {
    date: '2026-11-20',
    purpose: 'RECEIPT',
    supplier: {
      identificationNumber: '1234567891', taxRegistrationId: '0001',
      organizationName: '주식회사 이택스', representativeName: '홍길동',
      address: '서울특별시 중구 세종대로 110', businessType: '서비스',
      businessItem: '소프트웨어 개발', manager: { email: 'tax@etax.example' },
    },
    supplied: {
      identificationNumber: '2208162517', organizationName: '받는상사 유한회사',
      representativeName: '김영희', address: '부산광역시 해운대구 센텀중앙로 79',
      businessType: '도소매', businessItem: '전자부품',
      managers: [{ email: 'buyer@recipient.example' }, { email: 'copy@recipient.example' }],
    },
    items: [item()],
    description: '11월 이용료',
    ...overrides,
  };
}

// `count` items numbered in their names, so each page's share can be found in its text.
function manyItems(count: number): Item[] {
  return Array.from({ length: count }, (_, index) => item({ name: `품목 ${index + 1}호`,
    quantity: 1, unitPrice: 1_000, supplyCost: 1_000, tax: 100 }));
}

function input(overrides: Partial<PdfInput> = {}): PdfInput {
  return {
    issuanceKey: 'txi_3xAmPlEkEy0000000000',
    environment: 'live',
    status: 'TRANSMITTED',
    ntsTransactionId: APPROVAL_NUMBER,
    issuedAt: new Date('2026-11-20T05:03:00Z'),
    taxType: 'TAXABLE',
    totals: { supplyCost: 1_000_000, tax: 100_000, total: 1_100_000 },
    amendment: null,
    invoice: document(),
    ...overrides,
  };
}

async function render(options: PdfInput) {
  const pdf = await renderTaxInvoicePdf(options);
  const proxy = await getDocumentProxy(new Uint8Array(pdf));
  const { text, totalPages } = await extractText(proxy, { mergePages: true });
  return { pdf, proxy, text, totalPages };
}

// Wrapped text comes back with line breaks where the cell wrapped it.
const compact = (text: string) => text.replace(/\s+/g, '');
const repeat = (text: string, length: number) =>
  text.repeat(Math.ceil(length / text.length)).slice(0, length);

describe('rendering a tax invoice', () => {
  it('writes a one-page PDF with the title, both parties and the formatted numbers', async () => {
    const { pdf, text, totalPages } = await render(input());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(totalPages).toBe(1);
    expect(text).toContain('전자세금계산서');
    expect(text).not.toContain('수정 전자세금계산서');
    expect(text).toContain('20261120-41000000-12345678');
    expect(text).toContain('주식회사 이택스');
    expect(text).toContain('받는상사 유한회사');
    expect(text).toContain('123-45-67891');
    expect(text).toContain('220-81-62517');
    expect(text).toContain('0001');
    expect(text).toContain('홍길동');
    expect(text).toContain('서울특별시 중구 세종대로 110');
    expect(text).toContain('buyer@recipient.example\ncopy@recipient.example');
  });

  it('shows the write date, the totals with separators and the item row', async () => {
    const { text } = await render(input());
    for (const label of ['작성일자', '공급가액', '세액', '수정사유', '비고', '합계금액']) {
      expect(text).toContain(label);
    }
    expect(text).toContain('2026-11-20');
    expect(text).toContain('1,000,000');
    expect(text).toContain('100,000');
    expect(text).toContain('1,100,000');
    expect(text).toContain('500,000');
    expect(text).toContain('클라우드 사용료');
    expect(text).toContain('월 구독');
    expect(text).toContain('11월 이용료');
  });

  it('says (영수) for a receipt and (청구) for a claim', async () => {
    const receipt = await render(input());
    expect(receipt.text).toContain('이 금액을 (영수) 함');
    expect(receipt.text).not.toContain('(청구)');
    const claim = await render(input({ invoice: document({ purpose: 'CLAIM' }) }));
    expect(claim.text).toContain('이 금액을 (청구) 함');
    expect(claim.text).not.toContain('(영수)');
  });

  it('titles a tax-exempt invoice 전자계산서 and leaves out every VAT column', async () => {
    const { text } = await render(input({
      taxType: 'TAX_FREE',
      totals: { supplyCost: 1_000_000, tax: 0, total: 1_000_000 },
      invoice: document({ items: [item({ tax: null })] }),
    }));
    expect(text).toContain('전자계산서');
    expect(text).not.toContain('전자세금계산서');
    expect(text).not.toContain('세액');
    expect(text).toMatch(/합계금액 현금 수표 어음 외상미수금\s+1,000,000/);
  });

  it('marks a zero-rated invoice 영세율 in its title and keeps its tax column at 0', async () => {
    const zeroRated = input({
      taxType: 'ZERO_RATED',
      totals: { supplyCost: 1_000_000, tax: 0, total: 1_000_000 },
      invoice: document({ items: [item({ tax: 0 })] }),
    });
    const { text } = await render(zeroRated);
    expect(compact(text)).toContain('전자세금계산서(영세율)');
    expect(text).toContain('세액');
    expect((await render(input())).text).not.toContain('영세율');
  });

  it('shows "미전송" while the tax authority has given no approval number', async () => {
    const { text } = await render(input({ ntsTransactionId: null, status: 'ISSUED',
      issuedAt: null }));
    expect(text).toContain('승인번호 미전송');
    expect(text).not.toContain('발행일시');
  });

  it('masks the last seven digits of a recipient identified by a resident number', async () => {
    const invoice = document();
    invoice.supplied.identificationNumber = '8001012987654';
    const { text } = await render(input({ invoice }));
    expect(text).toContain('800101-*******');
    expect(text).not.toContain('2987654');
  });
});

describe('rendering an amendment', () => {
  const amendment = input({
    status: 'TRANSMITTED',
    totals: { supplyCost: -1_250_000, tax: -125_000, total: -1_375_000 },
    amendment: { reason: 'RETURNED_GOODS', originalNtsTransactionId: ORIGINAL_APPROVAL_NUMBER },
    invoice: document({
      purpose: 'CLAIM',
      items: [item({ name: '반품 노트북', quantity: -2.5, unitPrice: 500_000,
        supplyCost: -1_250_000, tax: -125_000 })],
    }),
  });

  it('titles it 수정 and names the reason and the original approval number', async () => {
    const { text } = await render(amendment);
    expect(text).toContain('수정 전자세금계산서');
    expect(text).toContain('환입');
    expect(text).toContain('당초승인번호 20261015-41000000-87654321');
    expect(text).toContain('승인번호 20261120-41000000-12345678');
  });

  it('writes negative amounts and quantities with a leading minus', async () => {
    const { text } = await render(amendment);
    expect(text).toContain('-1,250,000');
    expect(text).toContain('-125,000');
    expect(text).toContain('-1,375,000');
    expect(text).toContain('-2.5');
    expect(text).toContain('반품 노트북');
  });

  it('names every amendment reason in Korean', async () => {
    const reasons = {
      ENTRY_CORRECTION: '기재사항 착오정정', SUPPLY_COST_CHANGE: '공급가액 변동',
      TERMINATION: '계약의 해제', LOCAL_LETTER_OF_CREDIT: '내국신용장 사후개설',
      DOUBLE_ISSUANCE: '착오에 의한 이중발급',
    } as const;
    for (const [reason, label] of Object.entries(reasons)) {
      const { text } = await render({ ...amendment, amendment: {
        reason: reason as keyof typeof reasons, originalNtsTransactionId: null } });
      expect(text).toContain(label);
      expect(text).toContain('당초승인번호 미전송');
    }
  });
});

describe('the sandbox notice', () => {
  it('marks a test-environment invoice with the notice and a watermark', async () => {
    const { text } = await render(input({ environment: 'test' }));
    expect(text).toContain(SANDBOX_NOTICE);
    expect(SANDBOX_NOTICE).toBe('SANDBOX · 국세청 미전송 (test key)');
    expect(text.split('SANDBOX').length - 1).toBeGreaterThanOrEqual(3);
  });

  it('never appears on a live invoice', async () => {
    const { text } = await render(input({ environment: 'live' }));
    expect(text).not.toContain('SANDBOX');
    expect(text).not.toContain('test key');
  });
});

describe('fitting long text', () => {
  const longName = repeat('가나다라마바사아자차 ', 100);
  const longAddress = repeat('서울특별시 중구 세종대로 110 ', 200);
  const longRemark = repeat('비고란 내용 ', 200);
  const invoice = document({
    supplier: { ...document().supplier, organizationName: longName,
      representativeName: repeat('홍길동', 50), address: longAddress,
      businessType: repeat('서비스업 ', 100), businessItem: repeat('소프트웨어개발 ', 100),
      manager: { email: `${repeat('a', 88)}@etax.example` } },
    items: Array.from({ length: 16 }, (_, index) => item({
      name: `${index + 1}번 ${repeat('품목이름 ', 95)}`,
      specification: repeat('규격 ', 60), description: repeat('품목비고 ', 100),
      quantity: 999_999_999, unitPrice: -99_999_999_999_999, supplyCost: -99_999_999_999_999,
      tax: -9_999_999_999_999 })),
    description: longRemark,
  });
  const maximal = input({ environment: 'test', invoice,
    totals: { supplyCost: -90_909_090_909_091, tax: -9_090_909_090_908,
      total: -99_999_999_999_999 } });

  it('keeps sixteen items of maximum-length Korean text on one page', async () => {
    const { text, totalPages } = await render(maximal);
    expect(totalPages).toBe(1);
    expect(compact(text)).toContain(compact(longName));
    expect(compact(text)).toContain(compact(longAddress));
    expect(compact(text)).toContain(compact(longRemark));
    expect(text).toContain('-99,999,999,999,999');
    expect(text).toContain('999,999,999');
    for (let index = 1; index <= 16; index += 1) expect(text).toContain(`${index}번 품목이름`);
  });

  it('cuts what cannot fit at the smallest type with an ellipsis', async () => {
    const { text } = await render(maximal);
    expect(text).toContain('…');
  });

  it('keeps every piece of text inside a cell of the form', async () => {
    const { proxy } = await render(maximal);
    const { items } = await extractTextItems(proxy);
    const cells = layOutTaxInvoice(maximal).pages[0]!;
    const placed = items[0]!.filter((piece) => piece.str.trim() !== '' && piece.fontSize < 50);
    expect(placed.length).toBeGreaterThan(100);
    const tolerancePoints = 0.5;
    const outside = placed.filter((piece) => {
      const baseline = PAGE_HEIGHT_POINTS - piece.y;
      return !cells.some((cell) => piece.x >= cell.x - tolerancePoints &&
        piece.x + piece.width <= cell.x + cell.width + tolerancePoints &&
        baseline - piece.fontSize * 0.92 >= cell.y - tolerancePoints &&
        baseline + piece.fontSize * 0.23 <= cell.y + cell.height + tolerancePoints);
    });
    expect(outside).toEqual([]);
  });
});

describe('laying out the form', () => {
  const overlap = (a: Cell, b: Cell) =>
    Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 0.01 &&
    Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 0.01;

  it('keeps every cell inside the page margins', () => {
    for (const options of [input(), input({ environment: 'test', taxType: 'TAX_FREE' }),
      input({ environment: 'test', invoice: document({ items: manyItems(ITEMS_MAX) }) })]) {
      for (const cell of layOutTaxInvoice(options).pages.flat()) {
        expect(cell.x).toBeGreaterThanOrEqual(PAGE_MARGIN_POINTS - 0.01);
        expect(cell.y).toBeGreaterThanOrEqual(PAGE_MARGIN_POINTS - 0.01);
        const right = PAGE_WIDTH_POINTS - PAGE_MARGIN_POINTS;
        expect(cell.x + cell.width).toBeLessThanOrEqual(right + 0.01);
        expect(cell.y + cell.height).toBeLessThanOrEqual(PAGE_HEIGHT_POINTS - PAGE_MARGIN_POINTS);
      }
    }
  });

  it('never lays one cell over another', () => {
    const amended = input({ environment: 'test',
      amendment: { reason: 'TERMINATION', originalNtsTransactionId: ORIGINAL_APPROVAL_NUMBER } });
    for (const options of [input(), amended, input({ taxType: 'TAX_FREE' }),
      input({ taxType: 'ZERO_RATED' }), input({ invoice: document({ items: manyItems(60) }) })]) {
      for (const cells of layOutTaxInvoice(options).pages) {
      const overlapping = cells.flatMap((cell, index) => cells.slice(index + 1)
        .filter((other) => overlap(cell, other)).map((other) => [cell.text, other.text]));
      expect(overlapping).toEqual([]);
      }
    }
  });

  it('draws sixteen item rows whatever the number of items', () => {
    const one = layOutTaxInvoice(input()).pages.flat();
    const sixteen = layOutTaxInvoice(input({ invoice: document({
      items: Array.from({ length: 16 }, () => item()) }) })).pages.flat();
    expect(sixteen.length).toBe(one.length);
    expect(sixteen.filter((cell) => cell.text === '클라우드 사용료')).toHaveLength(16);
    expect(one.filter((cell) => cell.text === '클라우드 사용료')).toHaveLength(1);
  });

  it('has a watermark only in the test environment', () => {
    expect(layOutTaxInvoice(input({ environment: 'test' })).watermark).toBe('SANDBOX');
    expect(layOutTaxInvoice(input({ environment: 'live' })).watermark).toBeNull();
  });
});

describe('refusing what the form cannot hold', () => {
  it('rejects an invoice with more than ITEMS_MAX items', async () => {
    const invoice = document({ items: manyItems(ITEMS_MAX + 1) });
    await expect(renderTaxInvoicePdf(input({ invoice }))).rejects.toThrow(/ITEMS_MAX/);
  });

  it('rejects totals that do not add up', async () => {
    const totals = { supplyCost: 1_000_000, tax: 100_000, total: 1_000_000 };
    await expect(renderTaxInvoicePdf(input({ totals }))).rejects.toThrow(/total = cost \+ tax/);
  });
});

describe('items beyond the first page', () => {
  const count = ITEMS_MAX;
  const many = input({ environment: 'test', invoice: document({ items: manyItems(count) }),
    totals: { supplyCost: count * 1_000, tax: count * 100, total: count * 1_100 } });
  const expectedPages = 1 + Math.ceil((count - FIRST_PAGE_ITEM_ROWS) /
    CONTINUATION_PAGE_ITEM_ROWS);

  it('continues on further pages, each numbered, with the total on the last', async () => {
    const pdf = await renderTaxInvoicePdf(many);
    const proxy = await getDocumentProxy(new Uint8Array(pdf));
    const { text: pages, totalPages } = await extractText(proxy, { mergePages: false });
    expect(totalPages).toBe(expectedPages);
    expect(expectedPages).toBeGreaterThan(2);
    let next = 1;
    pages.forEach((text, index) => {
      expect(text).toContain(`쪽 ${index + 1}/${expectedPages}`);
      expect(text).toContain('20261120-41000000-12345678');
      expect(text).toContain(SANDBOX_NOTICE);
      // Every item appears once, in order, on the page its position gives.
      while (next <= count && text.includes(`품목 ${next}호`)) next += 1;
      if (index > 0) expect(text).toContain('전자세금계산서 (계속)');
      const last = index === expectedPages - 1;
      expect(text.includes('합계금액')).toBe(last);
      expect(text.includes('다음 쪽에 계속')).toBe(!last);
    });
    expect(next).toBe(count + 1);
    expect(pages.at(-1)).toContain(formatAmount(count * 1_100));
  });

  it('keeps the first page the form of sixteen rows', () => {
    const { pages } = layOutTaxInvoice(many);
    expect(pages).toHaveLength(expectedPages);
    expect(pages[0]!.filter((cell) => /^품목 \d+호$/.test(cell.text)))
      .toHaveLength(FIRST_PAGE_ITEM_ROWS);
    expect(pages.slice(1).flat().filter((cell) => /^품목 \d+호$/.test(cell.text)))
      .toHaveLength(count - FIRST_PAGE_ITEM_ROWS);
  });
});

describe('이메일 row', () => {
  it('prints each manager\'s email in the form\'s 이메일 row, and no contact row', async () => {
    const invoice = document({
      supplier: { ...document().supplier,
        manager: { email: 'tax@etax.example', name: '김공급', telephone: '02-1234-5678' } },
      supplied: { ...document().supplied, managers: [
        { email: 'buyer@recipient.example', name: '박수신', telephone: '010-2222-3333' },
        { email: 'copy@recipient.example', name: '최참조' }] },
    });
    const { text } = await render(input({ invoice }));
    expect(text).toContain('tax@etax.example');
    expect(text).toContain('buyer@recipient.example');
    expect(text).toContain('copy@recipient.example');
    expect(text.match(/이메일/g)).toHaveLength(2);
    expect(text).not.toContain('담당자');
    expect(text).not.toContain('010-2222-3333');
  });
});

describe('payment means (현금, 수표, 어음, 외상미수금)', () => {
  const cellText = (options: Partial<PdfInput>) =>
    layOutTaxInvoice(input(options)).pages.flat().map((cell) => cell.text);

  it('has the four cells under their labels on every document, filled only for the means named',
    async () => {
      const invoice = document({ payment: { cash: 1_000, check: null, credit: 10_000 } });
      const { text } = await render(input({ invoice }));
      for (const label of ['합계금액', '현금', '수표', '어음', '외상미수금']) {
        expect(text).toContain(label);
      }
      const cells = layOutTaxInvoice(input({ invoice })).pages.flat();
      const labelCell = (label: string) => cells.find((cell) => cell.text === label)!;
      const below = (label: string) => cells.find((cell) =>
        cell.x === labelCell(label).x && cell.y > labelCell(label).y && cell.style === 'amount')!;
      expect(below('현금').text).toBe(formatAmount(1_000));
      expect(below('수표').text).toBe('');
      expect(below('어음').text).toBe('');
      expect(below('외상미수금').text).toBe(formatAmount(10_000));
      expect(below('합계금액').text).toBe(formatAmount(1_100_000));
      const overlapping = cells.filter((cell, index) => cells.slice(index + 1).some((other) =>
        cell.x + cell.width > other.x + 0.5 && other.x + other.width > cell.x + 0.5 &&
        cell.y + cell.height > other.y + 0.5 && other.y + other.height > cell.y + 0.5));
      expect(overlapping).toEqual([]);
      // Without a breakdown the cells are there, empty.
      expect(cellText({})).toContain('외상미수금');
      expect(paymentCells(input({}))).toEqual(['', '', '', '']);
    });

  it('gives the parts the sign of a negative total, as the XML does, and a positive total none',
    () => {
      const invoice = document({ payment: { cash: 200_000, check: null, credit: 20_000 } });
      const negative = { supplyCost: -200_000, tax: -20_000, total: -220_000 };
      expect(paymentCells(input({ invoice, totals: negative })))
        .toEqual([formatAmount(-200_000), '', '', formatAmount(-20_000)]);
      expect(paymentCells(input({ invoice })))
        .toEqual([formatAmount(200_000), '', '', formatAmount(20_000)]);
      expect(formatAmount(-200_000)).toMatch(/^-/);
      const zero = document({ payment: { cash: 0 } });
      expect(paymentCells(input({ invoice: zero, totals: negative })))
        .toEqual([formatAmount(0), '', '', '']);
    });
});

describe('trustee documents (위수탁)', () => {
  const broker = { identificationNumber: '2208162517', taxRegistrationId: '0002',
    organizationName: '수탁판매 주식회사', representativeName: '최수탁', address: null,
    businessType: null, businessItem: null, manager: null };
  const trustee = document({ supplied: { ...document().supplied,
    identificationNumber: '1248100998' }, broker });

  it('titles the form 위수탁 and prints the trustee\'s row under the parties', async () => {
    const { text, totalPages } = await render(input({ invoice: trustee }));
    expect(totalPages).toBe(1);
    expect(text).toContain('전자세금계산서(위수탁)');
    expect(text).toContain('수탁자');
    expect(text).toContain('220-81-62517 (0002)');
    expect(text).toContain('수탁판매 주식회사');
    expect(text).toContain('최수탁');
    const amended = await render(input({ invoice: trustee, taxType: 'ZERO_RATED',
      amendment: { reason: 'SUPPLY_COST_CHANGE', originalNtsTransactionId:
        ORIGINAL_APPROVAL_NUMBER } }));
    expect(amended.text).toContain('수정 전자세금계산서(영세율)(위수탁)');
    const plain = await render(input({}));
    expect(plain.text).not.toContain('위수탁');
    expect(plain.text).not.toContain('수탁자');
  });

  it('keeps sixteen item rows on one A4 page with no overlapping cells', () => {
    const [page, ...rest] = layOutTaxInvoice(input({ invoice: { ...trustee,
      items: manyItems(FIRST_PAGE_ITEM_ROWS) } })).pages;
    expect(rest).toEqual([]);
    for (const cell of page!) {
      expect(cell.y + cell.height).toBeLessThanOrEqual(PAGE_HEIGHT_POINTS - PAGE_MARGIN_POINTS +
        0.01);
    }
    const overlapping = page!.filter((cell, index) => page!.slice(index + 1).some((other) =>
      cell.x + cell.width > other.x + 0.5 && other.x + other.width > cell.x + 0.5 &&
      cell.y + cell.height > other.y + 0.5 && other.y + other.height > cell.y + 0.5));
    expect(overlapping).toEqual([]);
  });
});

describe('late issuance (지연발급)', () => {
  const footerText = (options: Partial<PdfInput>) =>
    layOutTaxInvoice(input(options)).pages.flat().map((cell) => cell.text).join('\n');

  it('marks a late document in the footer, and no other', () => {
    expect(footerText({ lateIssuance: true })).toContain(LATE_ISSUANCE_MARK);
    expect(footerText({ lateIssuance: false })).not.toContain('지연발급');
    expect(footerText({})).not.toContain('지연발급');
  });
});
