import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

// The fonts of every PDF etax renders (tax invoices, cash receipts, the document sandboxes'
// certificates): NanumGothic (SIL Open Font License) covers Hangul, Latin and the punctuation of
// the forms. The files are about 4.6 MB each, so each is read once, on the first render, and
// kept; pdfkit embeds only the glyphs a document uses.

export type FontName = 'regular' | 'bold';
export type FontFiles = Record<FontName, Buffer>;

const FONT_MODULE_PATHS: Record<FontName, string> = {
  regular: '@kfonts/nanum-gothic/src/NanumGothic.ttf',
  bold: '@kfonts/nanum-gothic/src/NanumGothicBold.ttf',
};

const require = createRequire(import.meta.url);
let fontFiles: Promise<FontFiles> | null = null;

async function readFontFiles(): Promise<FontFiles> {
  const [regular, bold] = await Promise.all([
    readFile(require.resolve(FONT_MODULE_PATHS.regular)),
    readFile(require.resolve(FONT_MODULE_PATHS.bold)),
  ]);
  return { regular, bold };
}

// Concurrent first renders share one read. A failed read is forgotten, so a later render tries
// again instead of failing for the life of the process.
export function loadFontFiles(): Promise<FontFiles> {
  if (fontFiles === null) {
    fontFiles = readFontFiles().catch((error: unknown) => {
      fontFiles = null;
      throw error;
    });
  }
  return fontFiles;
}
