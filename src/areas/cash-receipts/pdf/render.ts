import PDFDocument from 'pdfkit';
import { loadFontFiles } from '../../../platform/pdf-fonts.ts';
import { receiptFacts, receiptTitle, receiptTitleLines } from './receipt-facts.ts';
import type { CashReceiptRow } from '../store.ts';

// A cash receipt as a one-page PDF in the layout of a Korean receipt slip: title, the facts of
// ./receipt-facts.ts in a two-column table, and for test keys a SANDBOX mark, in the fonts of
// platform/pdf-fonts.ts.

// A narrow slip, as receipts are: 90 mm wide.
const PAGE_WIDTH = 255;
const MARGIN = 16;
const ROW_HEIGHT = 26;
const LABEL_WIDTH = 100;

export async function renderCashReceiptPdf(row: CashReceiptRow): Promise<Buffer> {
  const { regular, bold } = await loadFontFiles();
  const facts = receiptFacts(row);
  const height = MARGIN * 2 + 70 + facts.length * ROW_HEIGHT + 40;
  // The same receipt gives the same dates in the file, whenever it is rendered.
  const created = row.issuedAt ?? row.createdAt;
  const doc = new PDFDocument({ size: [PAGE_WIDTH, height], margin: 0, compress: true,
    lang: 'ko-KR', displayTitle: true, info: { Title: `${receiptTitle(row)} ` +
      `${row.approvalNumber ?? row.issuanceKey}`, Author: 'etax', Creator: 'etax',
    Producer: 'etax', CreationDate: created, ModDate: created } });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  const bytes = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = PAGE_WIDTH - MARGIN * 2;
  // Each line of the head has a fixed place and never wraps (a long merchant name ends in an
  // ellipsis), so nothing overlaps.
  const [title, subtitle] = receiptTitleLines(row);
  const line = { width, align: 'center' as const, lineBreak: false, ellipsis: true };
  doc.font('bold').fontSize(13).text(title, MARGIN, MARGIN, { ...line, height: 16 });
  doc.font('regular').fontSize(7).fillColor('#555555').text(subtitle, MARGIN, MARGIN + 17,
    { ...line, height: 9 });
  doc.font('regular').fontSize(8).fillColor('#000000').text(row.merchantName, MARGIN,
    MARGIN + 31, { ...line, height: 10 });
  let y = MARGIN + 50;
  doc.moveTo(MARGIN, y).lineTo(PAGE_WIDTH - MARGIN, y).stroke();
  for (const [label, value] of facts) {
    doc.font('regular').fontSize(7).fillColor('#555555')
      .text(label, MARGIN, y + 6, { width: LABEL_WIDTH, height: ROW_HEIGHT - 4, ellipsis: true });
    doc.font('bold').fontSize(8).fillColor('#000000')
      .text(value, MARGIN + LABEL_WIDTH, y + 6, { width: width - LABEL_WIDTH,
        height: ROW_HEIGHT - 4, ellipsis: true, align: 'right' });
    y += ROW_HEIGHT;
    doc.moveTo(MARGIN, y).lineTo(PAGE_WIDTH - MARGIN, y).lineWidth(0.3).stroke();
  }
  if (row.environment === 'test') {
    doc.font('bold').fontSize(10).fillColor('#cc0000').text('SANDBOX — 국세청 미전송', MARGIN,
      y + 12, { width, align: 'center' });
  }
  doc.end();
  return bytes;
}
