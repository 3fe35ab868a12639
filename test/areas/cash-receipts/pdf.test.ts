// The cash receipt slip (src/areas/cash-receipts/pdf/render.ts): its head, read back with unpdf as
// a reader would. The cancellation's title once wrapped onto a second line over the merchant's
// name; each line of the head now has a place of its own, so no two of them share a band of the
// page, whatever the kind and however long the merchant's name.
import { getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { renderCashReceiptPdf } from '../../../src/areas/cash-receipts/pdf/render.ts';
import type { CashReceiptRow } from '../../../src/areas/cash-receipts/store.ts';
import { receiptRow } from './receipt-row.ts';

// The text runs of the page above the first rule (the head), with their vertical bands.
async function headLines(row: CashReceiptRow) {
  const pdf = await renderCashReceiptPdf(row);
  const page = await (await getDocumentProxy(new Uint8Array(pdf))).getPage(1);
  const { height } = page.getViewport({ scale: 1 });
  const { items } = await page.getTextContent();
  return (items as Array<{ str: string; transform: number[]; height: number }>)
    .filter((item) => item.str.trim() !== '')
    .map((item) => ({ text: item.str, top: height - item.transform[5]! - item.height,
      bottom: height - item.transform[5]! }))
    .filter((item) => item.bottom < 66);
}

describe('the slip\'s head', () => {
  for (const [name, row] of [
    ['an issuance', receiptRow()],
    ['a cancellation with a long merchant name', receiptRow({ kind: 'CANCELLATION',
      merchantName: '아주 긴 가맹점 이름을 가진 주식회사 이택스 강남역 직영 본점 (Coffee & Bakery)',
      cancelReason: 'TRANSACTION_CANCELED', originalApprovalNumber: '987654321',
      originalTradeDate: '2026-11-23' })],
  ] as const) {
    it(`puts the title, its English line and the merchant on three lines apart: ${name}`,
      async () => {
        const lines = await headLines(row);
        const texts = lines.map((line) => line.text).join('|');
        expect(texts).toContain(row.kind === 'CANCELLATION' ? '현금영수증 취소' : '현금영수증');
        expect(texts).toContain(row.kind === 'CANCELLATION' ? 'Cash receipt cancellation'
          : 'Cash receipt');
        expect(lines).toHaveLength(3);
        const sorted = [...lines].sort((a, b) => a.top - b.top);
        for (let index = 1; index < sorted.length; index += 1) {
          expect(sorted[index]!.top, texts).toBeGreaterThanOrEqual(sorted[index - 1]!.bottom);
        }
      });
  }
});
