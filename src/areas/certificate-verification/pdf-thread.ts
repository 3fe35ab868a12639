import { parentPort } from 'node:worker_threads';
import { PdfRefused, readPdfText } from './pdf-text.ts';

// A PDF reader thread (pdf-reader.ts): reads one PDF at a time and answers its lines, or why it
// was refused. It says when it is ready, so the first read does not count the start.

export type PdfThreadRequest = { pdf: Uint8Array };
export type PdfThreadAnswer =
  | { ready: true }
  | { lines: string[] }
  | { refused: string };

const port = parentPort!;

port.on('message', async ({ pdf }: PdfThreadRequest) => {
  let answer: PdfThreadAnswer;
  try {
    answer = { lines: await readPdfText(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength)) };
  } catch (error) {
    const message = error instanceof PdfRefused ? error.message : 'The PDF could not be read.';
    answer = { refused: message };
  }
  port.postMessage(answer);
});
port.postMessage({ ready: true } satisfies PdfThreadAnswer);
