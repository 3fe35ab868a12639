import { getDocumentProxy, renderPageAsImage } from 'unpdf';
import { IMAGE_SIDE_RATIO_MAX, PDF_PAGES_READ } from './file-type.ts';
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

// A text layer whose fonts carry no map from their glyphs to characters (no ToUnicode, as in a
// page a browser printed to PDF with a web font) comes back as the glyphs' numbers: C0 control
// characters (U+0001 for the first glyph of the subset, and so on). No certificate's text holds
// one, so a line with one says the layer cannot be read as text; the page is read as an image.
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const GLYPH_NUMBERS = /[\u0000-\u0008\u000b-\u001f]/u;

export function isUnmappedTextLayer(lines: readonly string[]): boolean {
  return lines.some((line) => GLYPH_NUMBERS.test(line));
}

// pdf.js draws a page's fonts through ArrayBuffer.prototype.transferToFixedLength, which
// Node 20 lacks (it came with Node 21): without it every glyph is dropped and the page is drawn
// blank. The stand-in copies instead of moving the bytes; pdf.js only reads the result, and the
// original is garbage once it is transferred. Set in this module, which only PDF reader threads
// load to draw.
type Transferable = ArrayBuffer & { transferToFixedLength?(length?: number): ArrayBuffer };
const arrayBufferPrototype = ArrayBuffer.prototype as Transferable;
if (typeof arrayBufferPrototype.transferToFixedLength !== 'function') {
  Object.defineProperty(arrayBufferPrototype, 'transferToFixedLength', {
    configurable: true, writable: true,
    value(this: ArrayBuffer, length: number = this.byteLength) {
      const copy = new ArrayBuffer(length);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      return copy;
    },
  });
}

// What Tesseract reads best (image.ts): the page is drawn this wide.
const RENDER_WIDTH = 1_800;

const PDF_OPTIONS = { isEvalSupported: false, stopAtErrors: false } as const;

async function open(pdf: Buffer) {
  // Every PDF writer ends the file with %%EOF; a file without it was cut off on the way.
  if (!pdf.subarray(-1024).toString('latin1').includes('%%EOF')) {
    throw new PdfRefused('The PDF is cut off: it does not end with %%EOF.');
  }
  await checkInflatedSize(pdf);
  try {
    return await getDocumentProxy(new Uint8Array(pdf), PDF_OPTIONS);
  } catch {
    throw new PdfRefused('The PDF could not be opened.');
  }
}

// The first page drawn as a PNG for OCR (pdf.js on @napi-rs/canvas), RENDER_WIDTH pixels wide
// whatever the page's size; a page not shaped like a page (one side more than
// IMAGE_SIDE_RATIO_MAX times the other) is refused, as such an image is. Throws PdfRefused.
export async function renderFirstPage(pdf: Buffer): Promise<Buffer> {
  const document = await open(pdf);
  try {
    const page = await document.getPage(1);
    const { width, height } = page.getViewport({ scale: 1 });
    if (!(width > 0 && height > 0) ||
      Math.max(width, height) > IMAGE_SIDE_RATIO_MAX * Math.min(width, height)) {
      throw new PdfRefused('The PDF\'s first page is not shaped like a page.');
    }
    const png = await renderPageAsImage(document, 1, { width: RENDER_WIDTH,
      canvasImport: () => import('@napi-rs/canvas') });
    return Buffer.from(png);
  } catch (error) {
    if (error instanceof PdfRefused) throw error;
    throw new PdfRefused('The PDF\'s first page could not be drawn.');
  } finally {
    await document.destroy();
  }
}

// The lines of the first pages; an empty list for a PDF without a text layer. Throws PdfRefused
// for a PDF that cannot be opened or is over the limits.
export async function readPdfText(pdf: Buffer): Promise<string[]> {
  const document = await open(pdf);
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
