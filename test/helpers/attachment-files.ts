import { crc32 } from 'node:zlib';

// Files of each kind a tax invoice's attachments take, and multipart forms that carry them, for
// the attachment tests.

export const PDF_FILE = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n' +
  'trailer << /Root 1 0 R >>\n%%EOF\n');
export const PNG_FILE = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a,
  0x1a, 0x0a]), Buffer.from('0000000d49484452000000010000000108060000001f15c489', 'hex')]);
export const JPEG_FILE = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  Buffer.from('JFIF fixture'), Buffer.from([0xff, 0xd9])]);

// A ZIP archive of stored (uncompressed) entries with its central directory.
function zipOf(entries: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(entries)) {
    const nameBytes = Buffer.from(name, 'utf8');
    const data = Buffer.from(text, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    directory.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directoryBytes = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(directoryBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directoryBytes, end]);
}

const CONTENT_TYPES = '<?xml version="1.0"?><Types/>';
export const XLSX_FILE = zipOf({ '[Content_Types].xml': CONTENT_TYPES,
  'xl/workbook.xml': '<workbook/>' });
export const DOCX_FILE = zipOf({ '[Content_Types].xml': CONTENT_TYPES,
  'word/document.xml': '<document/>' });
export const PLAIN_ZIP = zipOf({ 'notes.txt': 'not an office document' });

export type FormPart = {
  name?: string;
  // Sent as it is inside the quotes of `filename="…"`.
  filename?: string;
  // A Content-Disposition parameter list of its own instead, such as `filename*=UTF-8''…`.
  disposition?: string;
  contentType?: string;
  content: Buffer | string;
};

export const FORM_BOUNDARY = 'attachmentTestBoundary';

export function formOf(parts: readonly FormPart[], boundary = FORM_BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = part.disposition ??
      `form-data; name="${part.name ?? 'file'}"; filename="${part.filename ?? 'file.pdf'}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n` +
      `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`, 'utf8'));
    chunks.push(Buffer.isBuffer(part.content) ? part.content : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
