import { getDocumentProxy } from 'unpdf';
import { PDF_PAGES_READ } from './file-type.ts';
import { checkInflatedSize, PdfRefused } from './pdf-streams.ts';

// A PDF's text layer as lines of text (pdf.js through unpdf). A Hometax certificate carries one;
// a scan saved as PDF carries none, and is answered as unreadable (docs/certificate-verification.md
// § What is read). This runs in a PDF reader thread (pdf-thread.ts), never on the thread that
// answers requests: opening a hostile PDF may take long or need much memory.

export { PdfRefused };

type TextItem = { str: string; transform: number[] };
type Placed = { text: string; x: number; y: number; size: number };

// Items on the same baseline (within a third of the font size of the line's first item) make
// one line, left to right; lines from the top of the page down. Sorted by height and swept
// once, so a page of a hundred thousand items costs what sorting them does.
export function linesOf(items: readonly TextItem[]): string[] {
  const placed: Placed[] = [];
  for (const item of items) {
    if (item.str.trim() === '') continue;
    placed.push({ text: item.str, x: item.transform[4] ?? 0, y: item.transform[5] ?? 0,
      size: Math.abs(item.transform[3] ?? 10) || 10 });
  }
  placed.sort((a, b) => b.y - a.y);
  const rows: Placed[][] = [];
  let anchor: Placed | undefined;
  for (const item of placed) {
    if (anchor !== undefined && Math.abs(anchor.y - item.y) < anchor.size / 3) {
      rows[rows.length - 1]!.push(item);
    } else {
      anchor = item;
      rows.push([item]);
    }
  }
  return rows.map((row) => row.sort((a, b) => a.x - b.x).map((item) => item.text).join(' '));
}

// The lines of the first pages; an empty list for a PDF without a text layer. Throws PdfRefused
// for a PDF that cannot be opened or is over the limits.
export async function readPdfText(pdf: Buffer): Promise<string[]> {
  // Every PDF writer ends the file with %%EOF; a file without it was cut off on the way.
  if (!pdf.subarray(-1024).toString('latin1').includes('%%EOF')) {
    throw new PdfRefused('The PDF is cut off: it does not end with %%EOF.');
  }
  await checkInflatedSize(pdf);
  let document;
  try {
    document = await getDocumentProxy(new Uint8Array(pdf), { isEvalSupported: false,
      stopAtErrors: false });
  } catch {
    throw new PdfRefused('The PDF could not be opened.');
  }
  try {
    const lines: string[] = [];
    const pages = Math.min(document.numPages, PDF_PAGES_READ);
    for (let number = 1; number <= pages; number += 1) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      const items = content.items.flatMap((item) => ('str' in item ? [item as TextItem] : []));
      for (const line of linesOf(items)) lines.push(line);
    }
    return lines;
  } catch {
    throw new PdfRefused('The PDF could not be read.');
  } finally {
    await document.destroy();
  }
}
