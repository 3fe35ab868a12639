import type { InjectOptions } from 'fastify';
import { basicAuth } from '../../helpers/http.ts';

// Requests of the counterparty tests: JSON with a key, and multipart forms of files.

export const BOUNDARY = 'counterpartyTestBoundary';

// A multipart form of one part (or the parts given), as a client sends a file.
export function form(parts: Array<{ name: string; fileName?: string; type?: string;
  content: Buffer | string }>): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"` +
      (part.fileName === undefined ? '' : `; filename="${part.fileName}"`);
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n` +
      `Content-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

export function upload(key: string, file: Buffer | string, fileName = 'counterparties.csv'):
InjectOptions {
  return { method: 'POST', url: '/v1/counterpartyImports',
    headers: { authorization: basicAuth(key),
      'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload: form([{ name: 'file', fileName, content: file }]) };
}

// An xlsx workbook of these rows (the first is the header), written by exceljs.
export async function workbookOf(rows: unknown[][]): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Sheet1');
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

export const csv = (rows: string[][]) => `${rows.map((row) => row.map((cell) =>
  (/[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)).join(',')).join('\r\n')}\r\n`;
