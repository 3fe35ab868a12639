// Files built to be costly to read, for the tests of certificate verification.

// A text PDF of `count` items, each on a baseline of its own: grouping items into lines
// pairwise costs count² / 2 comparisons.
export async function manyItemPdf(count: number): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: [595, 842], margin: 0, autoFirstPage: true });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () =>
    resolve(Buffer.concat(chunks))));
  // Smaller than the spacing of the baselines, so that each item is a line of its own.
  doc.fontSize(0.01);
  for (let index = 0; index < count; index += 1) {
    doc.text('x', (index % 50) * 11, 1 + (index * 840) / count, { lineBreak: false });
  }
  doc.end();
  return done;
}
