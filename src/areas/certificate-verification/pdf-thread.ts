import { parentPort } from 'node:worker_threads';
import { readCertificate, type CertificateReading } from './fields.ts';
import { isUnmappedTextLayer, PdfRefused, readPdfText, renderFirstPage } from './pdf-text.ts';

// A PDF reader thread (pdf-reader.ts): reads one PDF at a time and answers the certificate's
// fields read from its text layer (null when it has none), its first page drawn as an image
// when the text layer holds glyph numbers instead of characters, or why it was refused. The fields
// are read here too: a text layer of tens of thousands of lines takes seconds to search for
// labels, which must not be spent on the thread that answers requests. It says when it is
// ready, so the first read does not count the start.

export type PdfThreadRequest = { pdf: Uint8Array };
export type PdfThreadAnswer =
  | { ready: true }
  | { reading: CertificateReading | null }
  // The first page drawn as a PNG, to be read by OCR: its text layer has no characters.
  | { page: Uint8Array }
  | { refused: string };

async function answerOf(pdf: Buffer): Promise<PdfThreadAnswer> {
  const lines = await readPdfText(pdf);
  // A scan saved as a PDF has no text layer.
  if (lines.length === 0) return { reading: null };
  if (isUnmappedTextLayer(lines)) return { page: new Uint8Array(await renderFirstPage(pdf)) };
  return { reading: readCertificate(lines.map((text) => ({ text, confidence: 1 })),
    'PDF_TEXT') };
}

const port = parentPort!;

async function answerRequest({ pdf }: PdfThreadRequest) {
  let answer: PdfThreadAnswer;
  try {
    answer = await answerOf(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  } catch (error) {
    const message = error instanceof PdfRefused ? error.message : 'The PDF could not be read.';
    answer = { refused: message };
  }
  port.postMessage(answer, 'page' in answer ? [answer.page.buffer as ArrayBuffer] : []);
}

port.on('message', (request: PdfThreadRequest) => {
  void answerRequest(request);
});
port.postMessage({ ready: true } satisfies PdfThreadAnswer);
