import { inflateSync } from 'node:zlib';
import { getDocumentProxy } from 'unpdf';
import type { TextLine } from './fields.ts';
import { PDF_INFLATED_BYTES_MAX, PDF_PAGES_READ } from './file-type.ts';

// A PDF's text layer as lines (pdf.js through unpdf). A Hometax certificate carries one; a scan
// saved as PDF carries none, and is answered as unreadable (docs/certificate-verification.md
// § What is read). Before pdf.js sees a file, every Flate stream in it is inflated with a cap on
// the total, so a few kilobytes that inflate to gigabytes (a zip bomb) are refused rather than
// decoded.

export class PdfRefused extends Error {}

const STREAM_START = /stream\r?\n/gu;
const STREAM_END = Buffer.from('endstream');

// Throws PdfRefused when the streams together inflate beyond the cap. Streams that are not
// Flate-compressed fail to inflate and are skipped: pdf.js decodes those without inflating.
export function checkInflatedSize(pdf: Buffer): void {
  const latin = pdf.toString('latin1');
  let budget = PDF_INFLATED_BYTES_MAX;
  for (const match of latin.matchAll(STREAM_START)) {
    const start = match.index + match[0].length;
    const end = pdf.indexOf(STREAM_END, start);
    if (end < 0) break;
    let inflated: Buffer;
    try {
      inflated = inflateSync(pdf.subarray(start, end), { maxOutputLength: budget + 1 });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
        || error instanceof RangeError) {
        throw new PdfRefused('The PDF inflates to more than the limit.');
      }
      continue;
    }
    budget -= inflated.length;
    if (budget < 0) throw new PdfRefused('The PDF inflates to more than the limit.');
  }
}

type TextItem = { str: string; transform: number[] };

// Items on the same baseline (within a third of the font size) make one line, left to right.
function linesOf(items: TextItem[]): string[] {
  const rows: { y: number; size: number; items: TextItem[] }[] = [];
  for (const item of items) {
    if (item.str.trim() === '') continue;
    const y = item.transform[5] ?? 0;
    const size = Math.abs(item.transform[3] ?? 10) || 10;
    const row = rows.find((candidate) => Math.abs(candidate.y - y) < size / 3);
    if (row) row.items.push(item);
    else rows.push({ y, size, items: [item] });
  }
  rows.sort((a, b) => b.y - a.y);
  return rows.map((row) => row.items
    .sort((a, b) => (a.transform[4] ?? 0) - (b.transform[4] ?? 0))
    .map((item) => item.str).join(' '));
}

// The lines of the first pages; an empty list for a PDF without a text layer. Throws PdfRefused
// for a PDF that cannot be opened or is over the limits.
export async function readPdfText(pdf: Buffer): Promise<TextLine[]> {
  // Every PDF writer ends the file with %%EOF; a file without it was cut off on the way.
  if (!pdf.subarray(-1024).toString('latin1').includes('%%EOF')) {
    throw new PdfRefused('The PDF is cut off: it does not end with %%EOF.');
  }
  checkInflatedSize(pdf);
  let document;
  try {
    document = await getDocumentProxy(new Uint8Array(pdf), { isEvalSupported: false,
      stopAtErrors: false });
  } catch {
    throw new PdfRefused('The PDF could not be opened.');
  }
  try {
    const lines: TextLine[] = [];
    const pages = Math.min(document.numPages, PDF_PAGES_READ);
    for (let number = 1; number <= pages; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const items = content.items.flatMap((item) => ('str' in item ? [item as TextItem] : []));
      for (const text of linesOf(items)) lines.push({ text, confidence: 1 });
    }
    return lines;
  } catch {
    throw new PdfRefused('The PDF could not be read.');
  } finally {
    await document.destroy();
  }
}
