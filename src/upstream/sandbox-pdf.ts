import assert from 'node:assert/strict';
import { loadFontFiles } from '../platform/pdf-fonts.ts';

// The one-page certificates the document sandboxes (civil-documents/sandbox.ts,
// court-registry/sandbox.ts) hand back: a title, an issue number, rows of label and value, a
// closing line and a diagonal SANDBOX mark, in NanumGothic so Hangul renders. Every date in the
// file comes from the request, so the same request always gives the same bytes.

export type SandboxCertificate = {
  title: string;
  // Printed under the title, e.g. `발급번호 1234-5678-9012`.
  subtitle: string;
  rows: Array<[label: string, value: string]>;
  // Lines printed below the rows (the issuing office, a confirmation number).
  footer: string[];
  // The file's creation and modification date.
  issuedAt: Date;
};

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const LABEL_WIDTH = 150;

export async function renderSandboxCertificate(input: SandboxCertificate): Promise<Buffer> {
  // pdfkit (with fontkit, some 20 MB resident) loads with the first certificate, not at start.
  const [{ default: PDFDocument }, { regular, bold }] = await Promise.all([
    import('pdfkit'), loadFontFiles()]);
  const doc = new PDFDocument({
    size: A4, margin: MARGIN, compress: true, lang: 'ko-KR', displayTitle: true,
    info: { Title: input.title, Author: 'etax sandbox', Creator: 'etax sandbox',
      Producer: 'etax sandbox', CreationDate: input.issuedAt, ModDate: input.issuedAt },
  });
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  const width = A4[0] - MARGIN * 2;
  doc.font('bold').fontSize(22).text(input.title, { align: 'center', width });
  doc.moveDown(0.5);
  doc.font('regular').fontSize(10).text(input.subtitle, { align: 'center', width });
  doc.moveDown(1.5);
  for (const [label, value] of input.rows) {
    const y = doc.y;
    doc.font('bold').fontSize(11).text(label, MARGIN, y, { width: LABEL_WIDTH });
    const labelBottom = doc.y;
    doc.font('regular').fontSize(11).text(value, MARGIN + LABEL_WIDTH, y,
      { width: width - LABEL_WIDTH });
    doc.y = Math.max(labelBottom, doc.y) + 6;
  }
  doc.moveDown(2);
  for (const line of input.footer) {
    doc.font('regular').fontSize(11).text(line, MARGIN, doc.y, { align: 'center', width });
  }
  // The mark says the document was made by the sandbox and proves nothing.
  doc.save().rotate(-35, { origin: [A4[0] / 2, A4[1] / 2] }).font('bold').fontSize(72)
    .fillColor('#cc0000', 0.18).text('SANDBOX', 0, A4[1] / 2 - 40, { align: 'center',
      width: A4[0] }).restore();
  doc.end();
  await ended;
  const pdf = Buffer.concat(chunks);
  assert(pdf.subarray(0, 5).toString('latin1') === '%PDF-');
  return pdf;
}
