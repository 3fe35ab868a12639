import { ApiError } from '../../platform/errors.ts';
import {
  hasRequiredFields,
  numberLabelOf,
  readCertificate,
  rereadNumber,
  withInferredKind,
  type CertificateReading,
  type FieldName,
  type TextSource,
} from './fields.ts';
import type { FileKind } from './file-type.ts';
import {
  checkImageHeader,
  ImageRefused,
  numberRegion,
  prepareForOcr,
  turned,
  type Preparation,
} from './image.ts';
import type { OcrLine, OcrPool, Recognizer } from './ocr-pool.ts';
import type { PdfReader, PdfReading } from './pdf-reader.ts';
import { PdfRefused } from './pdf-streams.ts';

// From a file to the certificate's fields: a PDF by its text layer, an image by OCR. A file
// that cannot be decoded or is over the limits is 400 INVALID_FILE; a file that decodes but
// does not yield the required fields is a reading without them (the service answers
// UNREADABLE).

export type FileReading = CertificateReading & { source: TextSource | null };

const EMPTY: CertificateReading = Object.freeze({ titled: false, fields: {} });

// Turns tried, in order, when the upright page yields neither the title nor the required
// fields: a photo taken upside down is more common than one taken sideways.
const TURNS = [180, 90, 270] as const;

type PageReading = { reading: CertificateReading; lines: OcrLine[]; png: Buffer };

async function readPage(ocr: Recognizer, png: Buffer): Promise<PageReading> {
  const { lines } = await ocr.page(png);
  return { reading: readCertificate(lines, 'OCR'), lines, png };
}

async function prepare(bytes: Buffer, preparation: Preparation): Promise<Buffer> {
  try {
    return await prepareForOcr(bytes, preparation);
  } catch (error) {
    if (error instanceof ImageRefused) throw new ApiError('INVALID_FILE', error.message);
    throw error;
  }
}

const fieldCount = (page: PageReading) => Object.keys(page.reading.fields).length;

// The fields every certificate prints (the corporate registration number only corporations').
const PRINTED: readonly FieldName[] = ['businessRegistrationNumber', 'organizationName',
  'representativeName', 'openedOn', 'address', 'businessType', 'businessItem', 'issuedOn'];
const lacksPrinted = (page: PageReading) =>
  PRINTED.some((name) => page.reading.fields[name] === undefined);

// A page's reading with the fields it lacks taken from another reading of the same page.
function filledFrom(page: PageReading, other: PageReading): PageReading {
  return { ...page, reading: { titled: page.reading.titled || other.reading.titled,
    fields: { ...other.reading.fields, ...page.reading.fields } } };
}

// The page with its contrast stretched, which reads best. When that reading lacks a field every
// certificate prints, the page is read again as it was, without the stretch: a very noisy
// photo's stretched grain breaks Tesseract's layout, and a line the layout lost on one is
// usually found on the other. The reading with the required fields keeps its own and takes only
// the missing ones from the other. When neither yields the title nor the required fields, the
// stretched page is tried turned.
async function recognize(ocr: Recognizer, bytes: Buffer): Promise<PageReading> {
  const first = await readPage(ocr, await prepare(bytes, { stretch: true }));
  if (!lacksPrinted(first)) return first;
  const plain = await readPage(ocr, await prepare(bytes, { stretch: false }));
  if (hasRequiredFields(first.reading)) return filledFrom(first, plain);
  if (hasRequiredFields(plain.reading)) return filledFrom(plain, first);
  const better = fieldCount(plain) > fieldCount(first) ? plain : first;
  if (first.reading.titled || plain.reading.titled) return better;
  for (const degrees of TURNS) {
    const page = await readPage(ocr, await turned(first.png, degrees));
    if (page.reading.titled || hasRequiredFields(page.reading)) return page;
  }
  return better;
}

// A number whose checksum failed on the page is read again from its own region, digits only,
// and the two readings are combined (fields.ts rereadNumber). Only the words with digits are
// cropped, so the label's Hangul is not forced into digits. Each number is looked at again once
// at most, so a page full of labels costs no more than two small readings.
async function rereadNumbers(ocr: Recognizer, { reading, lines, png }: PageReading):
Promise<CertificateReading> {
  const fields = { ...reading.fields };
  const tried = new Set<string>();
  for (const line of lines) {
    const name = numberLabelOf(line.text);
    if (name === null || fields[name] !== undefined || tried.has(name)) continue;
    const boxes = line.words.filter((word) => (word.text.match(/\d/gu) ?? []).length >= 2)
      .map((word) => word.bbox);
    const region = await numberRegion(png, boxes);
    if (region === null) continue;
    tried.add(name);
    const again = rereadNumber(name, line.text, await ocr.numberLine(region));
    if (again !== null) fields[name] = again;
  }
  return withInferredKind({ ...reading, fields });
}

export function createCertificateReader(pool: OcrPool, pdfReader: PdfReader) {
  async function readPdf(bytes: Buffer): Promise<FileReading> {
    let reading: PdfReading;
    try {
      // The reader refuses at once when its queue is full, before the file is looked at.
      reading = await pdfReader.read(bytes);
    } catch (error) {
      if (error instanceof PdfRefused) throw new ApiError('INVALID_FILE', error.message);
      throw error;
    }
    // A scan saved as a PDF has no text layer; rendering its pages is not supported.
    if (reading === null) return { ...EMPTY, source: null };
    // A text layer without characters (a page a browser printed): its page is read by OCR.
    if ('page' in reading) return ocrImage(reading.page);
    return { ...reading, source: 'PDF_TEXT' };
  }

  function ocrImage(png: Buffer): Promise<FileReading> {
    return pool.run(async (ocr) => {
      const page = await recognize(ocr, png);
      return { ...(await rereadNumbers(ocr, page)), source: 'OCR' as const };
    });
  }

  async function readImage(bytes: Buffer): Promise<FileReading> {
    // An image the header shows is over the limits is refused before it takes an OCR worker;
    // the pool refuses at once when it is full, before the image is decoded.
    try {
      await checkImageHeader(bytes);
    } catch (error) {
      if (error instanceof ImageRefused) throw new ApiError('INVALID_FILE', error.message);
      throw error;
    }
    return ocrImage(bytes);
  }

  return {
    read(kind: FileKind, bytes: Buffer): Promise<FileReading> {
      return kind === 'PDF' ? readPdf(bytes) : readImage(bytes);
    },
  };
}

export type CertificateReader = ReturnType<typeof createCertificateReader>;
