// PDF reading off the request thread (src/areas/certificate-verification/pdf-reader.ts) and the
// worker pool it shares with OCR (worker-pool.ts): a certificate's fields come back from a reader
// thread, a read past its deadline or its memory bound is refused and its thread replaced, a
// full queue refuses at once, and lines are grouped by baseline in one sorted sweep.
import { describe, expect, it } from 'vitest';
import { certificatePdf } from '../../../bench/certificates/fixtures.ts';
import { manyItemPdf } from '../../helpers/hostile-files.ts';
import sharp from 'sharp';
import {
  createPdfReader,
  PDF_READER_DEFAULTS,
  type PdfReading,
} from '../../../src/areas/certificate-verification/pdf-reader.ts';
import { PdfRefused } from '../../../src/areas/certificate-verification/pdf-streams.ts';
import {
  isUnmappedTextLayer,
  linesOf,
  readPdfText,
} from '../../../src/areas/certificate-verification/pdf-text.ts';
import {
  createWorkerPool,
  ReadersBusy,
} from '../../../src/areas/certificate-verification/worker-pool.ts';

const FACTS = {
  kind: 'corporate' as const,
  businessRegistrationNumber: '9999900005',
  organizationName: '주식회사 이택스',
  representativeName: '홍길동',
  openedOn: '2015-04-01',
  corporateRegistrationNumber: '1101111234569',
  address: '서울특별시 강남구 테헤란로 123',
  businessType: '정보통신업',
  businessItem: '응용 소프트웨어 개발',
  issuedOn: '2025-01-15',
  taxOffice: '강남세무서',
};

// The reading of a text layer; a page to be read by OCR fails the test.
function textReading(reading: PdfReading) {
  if (reading !== null && 'page' in reading) throw new Error('read as a page image');
  return reading;
}

// The PDF with its fonts' maps from glyphs to characters taken out, as in a page a browser
// printed with a web font: its text layer comes back as the glyphs' numbers, U+0001 and on.
// The name is changed in place, so every offset of the file stays right.
export function withoutCharacterMaps(pdf: Buffer): Buffer {
  return Buffer.from(pdf.toString('latin1').replaceAll('/ToUnicode', '/ToUnicodX'), 'latin1');
}

describe('the PDF reader', () => {
  it('draws the first page for OCR when the text layer holds glyph numbers, not characters',
    async () => {
      const garbled = withoutCharacterMaps(await certificatePdf(FACTS));
      expect(isUnmappedTextLayer(await readPdfText(garbled))).toBe(true);
      expect(isUnmappedTextLayer(await readPdfText(await certificatePdf(FACTS)))).toBe(false);
      const reader = createPdfReader({ ...PDF_READER_DEFAULTS, workers: 1, queueMax: 0 });
      try {
        const reading = await reader.read(garbled);
        expect(reading !== null && 'page' in reading).toBe(true);
        const page = (reading as { page: Buffer }).page;
        const { width, height, format } = await sharp(page).metadata();
        expect({ width, format }).toEqual({ width: 1_800, format: 'png' });
        expect(height).toBeGreaterThan(2_400);
      } finally {
        await reader.close();
      }
    }, 60_000);

  it('reads a certificate\'s fields in a reader thread', async () => {
    const reader = createPdfReader({ ...PDF_READER_DEFAULTS, workers: 1, queueMax: 0 });
    try {
      const reading = textReading(await reader.read(await certificatePdf(FACTS)));
      expect(reading?.titled).toBe(true);
      expect(reading?.fields.representativeName).toEqual({ value: '홍길동', confidence: 1 });
      expect(reading?.fields.businessRegistrationNumber?.value).toBe('9999900005');
    } finally {
      await reader.close();
    }
  }, 60_000);

  it('refuses every read past its deadline, the thread of each replaced', async () => {
    const pdf = await certificatePdf(FACTS);
    const reader = createPdfReader({ ...PDF_READER_DEFAULTS, deadlineMs: 1, workers: 1,
      queueMax: 0 });
    try {
      await expect(reader.read(pdf)).rejects.toThrow(PdfRefused);
      await expect(reader.read(pdf)).rejects.toThrow(/within 0.001 seconds/u);
    } finally {
      await reader.close();
    }
  }, 60_000);

  it('refuses a read during which the process\'s memory grew past the bound', async () => {
    // 20,000 text items take pdf.js a second or more and megabytes: far past one byte.
    const pdf = await manyItemPdf(20_000);
    const reader = createPdfReader({ ...PDF_READER_DEFAULTS, memoryMaxBytes: 1, workers: 1,
      queueMax: 0 });
    try {
      await expect(reader.read(pdf)).rejects.toThrow(
        'Reading the PDF needs more memory than the limit.');
    } finally {
      await reader.close();
    }
  }, 60_000);

  it('refuses a read at once when its thread is busy and the queue is full', async () => {
    const pdf = await certificatePdf(FACTS);
    const reader = createPdfReader({ ...PDF_READER_DEFAULTS, workers: 1, queueMax: 0 });
    try {
      const first = reader.read(pdf);
      await expect(reader.read(pdf)).rejects.toBeInstanceOf(ReadersBusy);
      expect(textReading(await first)?.fields.openedOn?.value).toBe(FACTS.openedOn);
    } finally {
      await reader.close();
    }
  }, 60_000);
});

describe('the worker pool', () => {
  it('stops a worker a job left unusable and starts another for the next job', async () => {
    type Fake = { id: number; usable: boolean };
    let started = 0;
    const stopped: number[] = [];
    const pool = createWorkerPool<Fake>({
      workers: 1, queueMax: 1,
      start: async () => ({ id: (started += 1), usable: true }),
      stop: async (worker) => stopped.push(worker.id),
      usable: (worker) => worker.usable,
    });
    const first = await pool.run(async (worker) => {
      worker.usable = false;
      return worker.id;
    });
    const second = await pool.run(async (worker) => worker.id);
    const third = await pool.run(async (worker) => worker.id);
    expect([first, second, third]).toEqual([1, 2, 2]);
    expect(stopped).toEqual([1]);
    await pool.close();
    expect(stopped).toEqual([1, 2]);
    await expect(pool.run(async () => 0)).rejects.toBeInstanceOf(ReadersBusy);
  });
});

describe('grouping text items into lines', () => {
  const item = (str: string, x: number, y: number, size = 10) =>
    ({ str, transform: [size, 0, 0, size, x, y] });

  it('joins items on one baseline left to right, lines from the top down', () => {
    expect(linesOf([item('대표자', 10, 700), item('홍길동', 80, 701), item('상호', 10, 720),
      item(' ', 50, 720), item('이택스', 60, 719)])).toEqual(['상호 이택스', '대표자 홍길동']);
  });

  it('groups 100,000 items a point apart: four to a line of size 10', () => {
    const items = Array.from({ length: 100_000 }, (_, index) => item('x', index % 7, index));
    const lines = linesOf(items);
    expect(lines).toHaveLength(25_000);
    expect(new Set(lines)).toEqual(new Set(['x x x x']));
  });
});
