// The files a tax invoice may carry as attachments (docs/tax-invoices.md § Attachments): their
// kinds, told by their content, the limits they are held to, and the names they are kept under.

// How many files one document carries, and how large each may be.
export const ATTACHMENTS_PER_INVOICE_MAX = 5;
export const ATTACHMENT_BYTES_MAX = 5 * 1024 * 1024;
// Characters of a kept file name, its extension included.
export const ATTACHMENT_NAME_LENGTH_MAX = 200;

export type AttachmentKind = 'PDF' | 'PNG' | 'JPEG' | 'XLSX' | 'DOCX';

type KindRow = { contentType: string; extensions: readonly string[] };

export const ATTACHMENT_KINDS: Record<AttachmentKind, KindRow> = {
  PDF: { contentType: 'application/pdf', extensions: ['pdf'] },
  PNG: { contentType: 'image/png', extensions: ['png'] },
  JPEG: { contentType: 'image/jpeg', extensions: ['jpg', 'jpeg'] },
  XLSX: { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extensions: ['xlsx'] },
  DOCX: { contentType:
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  extensions: ['docx'] },
};

export const ATTACHMENT_EXTENSIONS = Object.values(ATTACHMENT_KINDS)
  .flatMap((row) => row.extensions.map((extension) => `.${extension}`));

const starts = (bytes: Buffer, signature: readonly number[]) =>
  bytes.length >= signature.length && signature.every((byte, index) => bytes[index] === byte);

const ZIP_LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];
const ZIP_END_OF_DIRECTORY = 0x06054b50;
const ZIP_DIRECTORY_ENTRY = 0x02014b50;
// The end-of-directory record is 22 bytes and may be followed by a comment of up to 65535.
const ZIP_END_SEARCH_BYTES = 22 + 0xffff;
// An office document has a few dozen entries; a directory of thousands is not one.
const ZIP_ENTRIES_READ_MAX = 10_000;

// The names in a ZIP archive's central directory, or null when it has none that can be read.
function zipEntryNames(bytes: Buffer): Set<string> | null {
  const from = Math.max(0, bytes.length - ZIP_END_SEARCH_BYTES);
  let end = -1;
  for (let at = bytes.length - 22; at >= from; at -= 1) {
    if (bytes.readUInt32LE(at) === ZIP_END_OF_DIRECTORY) { end = at; break; }
  }
  if (end < 0) return null;
  const entries = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  if (entries > ZIP_ENTRIES_READ_MAX) return null;
  const names = new Set<string>();
  for (let index = 0; index < entries; index += 1) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== ZIP_DIRECTORY_ENTRY) return null;
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    if (at + 46 + nameLength > bytes.length) return null;
    names.add(bytes.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

// The kind of a file by its content; null for anything else. The part's declared content type
// and its name are never trusted: a workbook is a ZIP archive whose directory holds the
// package's content types and its workbook, a document one that holds its main document part.
export function attachmentKindOf(bytes: Buffer): AttachmentKind | null {
  if (starts(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d])) return 'PDF';
  if (starts(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'PNG';
  if (starts(bytes, [0xff, 0xd8, 0xff])) return 'JPEG';
  if (starts(bytes, ZIP_LOCAL_HEADER)) {
    const names = zipEntryNames(bytes);
    if (names === null || !names.has('[Content_Types].xml')) return null;
    if (names.has('xl/workbook.xml')) return 'XLSX';
    if (names.has('word/document.xml')) return 'DOCX';
  }
  return null;
}

// Code points a kept name never holds: controls (C0, DEL, C1, which break headers and logs),
// the direction marks and overrides that make `exe.pdf` read as `fdp.exe`, zero-width
// characters, and the separators no file system takes in a name.
const UNSAFE = new RegExp('[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f' +
  '\\u202a-\\u202e\\u2060-\\u2069\\ufeff\\ufff9-\\ufffb]', 'gu');
const RESERVED = /[<>:"|?*]/gu;

// The name a file is kept and served under: the last segment of what the client sent (a path
// never reaches the name), in NFC, without unsafe characters, without leading dots and
// trailing dots or spaces, at most ATTACHMENT_NAME_LENGTH_MAX characters with its extension
// kept. An empty result is `attachment.<extension of its kind>`.
export function keptFileName(sent: string, kind: AttachmentKind): string {
  const segment = sent.normalize('NFC').split(/[/\\]/u).pop() ?? '';
  let name = segment.replace(UNSAFE, '').replace(RESERVED, '_').trim()
    .replace(/^\.+/u, '').replace(/[. ]+$/u, '');
  const characters = [...name];
  if (characters.length > ATTACHMENT_NAME_LENGTH_MAX) {
    const dot = name.lastIndexOf('.');
    const extension = dot > 0 ? [...name.slice(dot)].slice(0, 10).join('') : '';
    name = characters.slice(0, ATTACHMENT_NAME_LENGTH_MAX - extension.length).join('')
      .trimEnd() + extension;
  }
  return name === '' ? `attachment.${ATTACHMENT_KINDS[kind].extensions[0]}` : name;
}

// The kept name with the extension its kind gives when it has none; null when its extension is
// another kind's or no kind's: a file whose name claims another kind than its content is
// refused rather than served under a misleading name.
export function nameOfKind(name: string, kind: AttachmentKind): string | null {
  const dot = name.lastIndexOf('.');
  const { extensions } = ATTACHMENT_KINDS[kind];
  if (dot <= 0) return `${name}.${extensions[0]}`;
  return extensions.includes(name.slice(dot + 1).toLowerCase()) ? name : null;
}
