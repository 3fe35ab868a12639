import { ApiError } from '../../platform/errors.ts';
import {
  hasRequiredFields,
  readCertificate,
  type CertificateReading,
  type TextLine,
  type TextSource,
} from './fields.ts';
import type { FileKind } from './file-type.ts';
import { ImageRefused, prepareForOcr, turned } from './image.ts';
import type { OcrPool, Recognizer } from './ocr-pool.ts';
import { PdfRefused, readPdfText } from './pdf-text.ts';

// From a file to the certificate's fields: a PDF by its text layer, an image by OCR. A file
// that cannot be decoded or is over the limits is 400 INVALID_FILE; a file that decodes but
// does not yield the required fields is a reading without them (the service answers
// UNREADABLE).

export type FileReading = CertificateReading & { source: TextSource | null };

const EMPTY: CertificateReading = Object.freeze({ titled: false, fields: {} });

// Turns tried, in order, when the upright page yields neither the title nor the required
// fields: a photo taken upside down is more common than one taken sideways.
const TURNS = [180, 90, 270] as const;

async function recognizeTurning(recognize: Recognizer, png: Buffer): Promise<CertificateReading> {
  const first = readCertificate((await recognize(png)).lines, 'OCR');
  if (first.titled || hasRequiredFields(first)) return first;
  for (const degrees of TURNS) {
    const reading = readCertificate((await recognize(await turned(png, degrees))).lines, 'OCR');
    if (reading.titled || hasRequiredFields(reading)) return reading;
  }
  return first;
}

export function createCertificateReader(pool: OcrPool) {
  async function readPdf(bytes: Buffer): Promise<FileReading> {
    let lines: TextLine[];
    try {
      lines = await readPdfText(bytes);
    } catch (error) {
      if (error instanceof PdfRefused) throw new ApiError('INVALID_FILE', error.message);
      throw error;
    }
    // A scan saved as a PDF has no text layer; rendering its pages is not supported.
    if (lines.length === 0) return { ...EMPTY, source: null };
    return { ...readCertificate(lines, 'PDF_TEXT'), source: 'PDF_TEXT' };
  }

  async function readImage(bytes: Buffer): Promise<FileReading> {
    // The pool refuses at once when it is full, before the image is decoded.
    return pool.run(async (recognize) => {
      let png: Buffer;
      try {
        png = await prepareForOcr(bytes);
      } catch (error) {
        if (error instanceof ImageRefused) throw new ApiError('INVALID_FILE', error.message);
        throw error;
      }
      return { ...(await recognizeTurning(recognize, png)), source: 'OCR' as const };
    });
  }

  return {
    read(kind: FileKind, bytes: Buffer): Promise<FileReading> {
      return kind === 'PDF' ? readPdf(bytes) : readImage(bytes);
    },
  };
}

export type CertificateReader = ReturnType<typeof createCertificateReader>;
