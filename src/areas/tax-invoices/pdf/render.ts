import assert from 'node:assert/strict';
import PDFDocument from 'pdfkit';
import { ITEMS_MAX } from '../schemas.ts';
import { PAGE_HEIGHT_POINTS, PAGE_WIDTH_POINTS } from './cells.ts';
import { loadFontFiles, type FontFiles } from '../../../platform/pdf-fonts.ts';
import { formatApprovalNumber, formatTitle } from './format.ts';
import type { PdfInput } from './input.ts';
import { layOutTaxInvoice } from './layout.ts';
import { paintCells, paintWatermark, type Document } from './paint.ts';

// One tax invoice as an A4 PDF, one page or more when its items run on, in the layout of the
// standard e-tax-invoice form (전자세금계산서 / 전자계산서). Layout (layout.ts) and painting
// (paint.ts) are separate steps; this file makes the document and its pages, embeds the fonts
// and collects the bytes.

const PDF_AUTHOR = 'etax';
const KST_MIDNIGHT_SUFFIX = 'T00:00:00+09:00';

export async function renderTaxInvoicePdf(input: PdfInput): Promise<Buffer> {
  assert(input.invoice.items.length >= 1, 'an invoice has at least one item');
  assert(input.invoice.items.length <= ITEMS_MAX, 'an invoice has at most ITEMS_MAX items');
  // The form prints all three totals; they must agree with each other.
  assert(input.totals.total === input.totals.supplyCost + input.totals.tax, 'total = cost + tax');
  const fonts = await loadFontFiles();
  const layout = layOutTaxInvoice(input);
  const doc = createDocument(input, fonts);
  const bytes = collectBytes(doc);
  layout.pages.forEach((cells, index) => {
    if (index > 0) doc.addPage({ size: [PAGE_WIDTH_POINTS, PAGE_HEIGHT_POINTS], margin: 0 });
    paintCells(doc, cells);
    if (layout.watermark !== null) paintWatermark(doc, layout.watermark);
  });
  doc.end();
  const pdf = await bytes;
  assert(pdf.subarray(0, 5).toString('latin1') === '%PDF-');
  return pdf;
}

function createDocument(input: PdfInput, fonts: FontFiles): Document {
  const title = formatTitle({ taxType: input.taxType, amended: input.amendment !== null });
  // The same invoice gives the same dates in the file, whenever it is rendered.
  const created = input.issuedAt ?? new Date(`${input.invoice.date}${KST_MIDNIGHT_SUFFIX}`);
  const doc = new PDFDocument({
    size: [PAGE_WIDTH_POINTS, PAGE_HEIGHT_POINTS],
    margin: 0,
    compress: true,
    lang: 'ko-KR',
    displayTitle: true,
    info: {
      Title: `${title} ${formatApprovalNumber(input.ntsTransactionId)}`,
      Author: PDF_AUTHOR,
      Creator: PDF_AUTHOR,
      Producer: PDF_AUTHOR,
      CreationDate: created,
      ModDate: created,
    },
  });
  doc.registerFont('regular', fonts.regular);
  doc.registerFont('bold', fonts.bold);
  return doc;
}

// pdfkit streams its output; the whole file is a few tens of kilobytes, so it is kept in memory.
function collectBytes(doc: Document): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}
