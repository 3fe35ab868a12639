import { constants, createInflate } from 'node:zlib';
import { PDF_INFLATED_BYTES_MAX } from './file-type.ts';

// What a PDF's streams inflate to, measured before pdf.js opens the file, so that a few
// kilobytes that inflate to gigabytes (a zip bomb) are refused rather than decoded. A stream is
// found the way pdf.js finds one: the keyword `stream`, then anything up to the end of that line
// (CR, LF or CR LF, so `stream \n` and `stream\r` too). Its dictionary is not trusted to say how
// it is encoded, since a dictionary is easy to disguise: the data is taken as it is, as
// ASCIIHexDecode and as ASCII85Decode would give it, and each of these that starts like a zlib
// stream is inflated, again if what it inflates to is itself one, counting what it inflates to
// until it ends or breaks off (pdf.js keeps what a corrupt stream inflated to before it broke).
// The largest count is the stream's. LZWDecode and RunLengthDecode, which no certificate uses,
// are refused by name. What this cannot see, an encrypted file's streams, is bounded by the
// reader's memory watch instead (pdf-reader.ts).

export class PdfRefused extends Error {}

const REFUSED_FILTERS = new Set(['LZWDecode', 'LZW', 'RunLengthDecode', 'RL']);
// `stream` as a keyword: not the end of `endstream`, nor part of a name or a longer word.
const STREAM_KEYWORD = /(?<![A-Za-z0-9#/])stream(?![A-Za-z0-9#])/gu;
const NAME = /\/([^\s/[\]<>(){}%]+)/gu;
const CR = 0x0d;
const LF = 0x0a;
// Enough encoded characters for the two bytes of a zlib header, whitespace between them.
const PEEK_BYTES = 64;
// Filters applied one after another: [/FlateDecode /FlateDecode] inflates twice.
const NESTING_MAX = 4;

const tooLarge = () => new PdfRefused('The PDF inflates to more than the limit.');

// A name as written (`/LZW#44ecode`) to what it names (`LZWDecode`).
const nameOf = (written: string) => written.replace(/#([0-9A-Fa-f]{2})/gu,
  (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

// The data of a stream starts after the end of the line of its keyword.
function dataStart(pdf: Buffer, afterKeyword: number): number {
  for (let index = afterKeyword; index < pdf.length; index += 1) {
    if (pdf[index] === LF) return index + 1;
    if (pdf[index] === CR) return pdf[index + 1] === LF ? index + 2 : index + 1;
  }
  return pdf.length;
}

// The two bytes zlib and pdf.js check before inflating: deflate, and a header checksum.
const isZlib = (data: Buffer) => data.length >= 2 && (data[0]! & 0x0f) === 8 &&
  ((data[0]! << 8) + data[1]!) % 31 === 0;

// ASCIIHexDecode up to its end marker `>`; whitespace is skipped.
function hexDecoded(data: Buffer): Buffer {
  const end = data.indexOf('>');
  const digits = data.subarray(0, end < 0 ? data.length : end).toString('latin1')
    .replace(/\s/gu, '');
  if (!/^[0-9A-Fa-f]*$/u.test(digits)) return Buffer.alloc(0);
  return Buffer.from(digits.length % 2 === 0 ? digits : `${digits}0`, 'hex');
}

// ASCII85Decode up to its end marker `~>`, `z` for four zero bytes.
function base85Decoded(data: Buffer): Buffer {
  const end = data.indexOf('~>');
  const body = data.subarray(0, end < 0 ? data.length : end).toString('latin1')
    .replace(/\s/gu, '');
  const bytes: number[] = [];
  let group: number[] = [];
  const flush = (count: number) => {
    const padded = [...group, ...Array<number>(5 - group.length).fill(84)];
    const value = padded.reduce((sum, digit) => sum * 85 + digit, 0);
    for (let byte = 0; byte < count; byte += 1) {
      bytes.push(Math.floor(value / 256 ** (3 - byte)) % 256);
    }
    group = [];
  };
  for (const character of body) {
    if (character === 'z' && group.length === 0) {
      bytes.push(0, 0, 0, 0);
      continue;
    }
    const digit = character.charCodeAt(0) - 33;
    if (digit < 0 || digit > 84) break;
    group.push(digit);
    if (group.length === 5) flush(4);
  }
  if (group.length > 1) flush(group.length - 1);
  return Buffer.from(bytes);
}

// What the data inflates to, up to `budget + 1` bytes. The pieces are kept only when `keep`, to
// look inside them; otherwise they are counted and dropped.
function inflated(data: Buffer, budget: number, keep: boolean):
Promise<{ length: number; output: Buffer | null }> {
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    const pieces: Buffer[] = [];
    let length = 0;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      resolve({ length, output: keep ? Buffer.concat(pieces) : null });
    };
    inflate.on('data', (piece: Buffer) => {
      length += piece.length;
      if (keep) pieces.push(piece);
      if (length > budget) {
        inflate.destroy();
        done();
      }
    });
    inflate.on('end', done);
    inflate.on('error', done);
    inflate.on('close', done);
    inflate.end(data);
  });
}

// The most any reading of the data inflates to, nested filters included, up to `budget + 1`.
async function largestInflation(data: Buffer, budget: number, depth = 0): Promise<number> {
  let largest = 0;
  // Each reading is judged by its first bytes, decoded from a few characters, before the whole
  // data is decoded: most streams are none of these and cost nothing more.
  const readings = [(bytes: Buffer) => bytes, hexDecoded, base85Decoded];
  for (const reading of readings) {
    if (!isZlib(reading(data.subarray(0, PEEK_BYTES)))) continue;
    const candidate = reading(data);
    if (!isZlib(candidate)) continue;
    const keep = depth + 1 < NESTING_MAX;
    const { length, output } = await inflated(candidate, budget, keep);
    let total = length;
    if (output !== null && total <= budget) {
      total += await largestInflation(output, budget - total, depth + 1);
    }
    largest = Math.max(largest, total);
    if (largest > budget) break;
  }
  return largest;
}

// Throws PdfRefused when the file's streams inflate to more than PDF_INFLATED_BYTES_MAX in total
// or it names a filter that is refused.
export async function checkInflatedSize(pdf: Buffer): Promise<void> {
  const text = pdf.toString('latin1');
  for (const name of text.matchAll(NAME)) {
    if (REFUSED_FILTERS.has(nameOf(name[1]!))) {
      throw new PdfRefused('The PDF uses LZW or run-length compression, which is not accepted.');
    }
  }
  let budget = PDF_INFLATED_BYTES_MAX;
  for (const keyword of text.matchAll(STREAM_KEYWORD)) {
    // To the end of the file: inflating stops where the stream's data does, whatever a
    // dictionary's /Length or a stray `endstream` inside the data claims.
    const data = pdf.subarray(dataStart(pdf, keyword.index + keyword[0].length));
    budget -= await largestInflation(data, budget);
    if (budget < 0) throw tooLarge();
  }
}
