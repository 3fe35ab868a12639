import { createRequire } from 'node:module';
import type { Worker } from 'tesseract.js';
import type { TextLine } from './fields.ts';
import { createWorkerPool } from './worker-pool.ts';

// Offline Korean OCR (tesseract.js, which runs Tesseract compiled to WebAssembly in a worker
// thread of its own). The trained data comes from the npm packages @tesseract.js-data/kor and
// @tesseract.js-data/eng, read from node_modules: nothing is downloaded, at install or at run
// time, and no cache is written. A fixed number of workers recognise one image each at a time;
// a bounded number of requests may wait for one, and past that a request is refused at once
// (worker-pool.ts: ReadersBusy → 503 SERVICE_UNAVAILABLE with Retry-After).

const require = createRequire(import.meta.url);
const KOREAN = require('@tesseract.js-data/kor') as { langPath: string };
const ENGLISH = require('@tesseract.js-data/eng') as { langPath: string };

type Box = { x0: number; y0: number; x1: number; y1: number };
type OcrWord = { text: string; bbox: Box };
export type OcrLine = TextLine & { words: OcrWord[] };

export type Recognizer = {
  // A whole page, line by line, with where each word is.
  page(png: Buffer): Promise<{ lines: OcrLine[]; confidence: number }>;
  // One line holding only a number: digits and hyphens are the only characters recognised.
  numberLine(png: Buffer): Promise<TextLine>;
};

export type OcrPool = {
  // Runs `work` with a worker held for its whole duration; throws ReadersBusy when every worker
  // is busy and the queue is full.
  run<T>(work: (recognize: Recognizer) => Promise<T>): Promise<T>;
  // Requests holding or waiting for a worker now.
  inFlight(): number;
  close(): Promise<void>;
};

// The trained data of both languages lives in separate packages; tesseract.js takes one path,
// so each language is loaded by its own path.
export const LANGUAGE_PATHS = { kor: KOREAN.langPath, eng: ENGLISH.langPath } as const;

const PAGE_PARAMETERS = {
  // A certificate is one column of lines of different sizes; automatic segmentation (3) cuts
  // a widely spaced label ("상          호") into columns of its own.
  tessedit_pageseg_mode: '4' as never,
  tessedit_char_whitelist: '',
} as const;
const NUMBER_LINE_PARAMETERS = {
  // One line, and only what a registration number is printed with: the recognizer cannot
  // choose a Hangul syllable or a letter for a badly printed digit.
  tessedit_pageseg_mode: '7' as never,
  tessedit_char_whitelist: '0123456789-',
} as const;

async function startWorker(): Promise<Worker> {
  // tesseract.js loads with the first worker, which starts with the first OCR, not at start.
  const { createWorker } = await import('tesseract.js');
  const worker = await createWorker('kor', 1, {
    langPath: LANGUAGE_PATHS.kor,
    gzip: true,
    cacheMethod: 'none',
  });
  await worker.setParameters({
    ...PAGE_PARAMETERS,
    preserve_interword_spaces: '1',
    // Images rarely carry a resolution. The preprocessed A4 page is about 220 dpi; 250, what the
    // benchmark's accuracy was measured with, tells Tesseract the same order of text size.
    user_defined_dpi: '250',
  });
  return worker;
}

type Line = { text: string; confidence: number; words: OcrWord[] };
type Block = { paragraphs: { lines: Line[] }[] };

const confidenceOf = (percent: number) => Math.max(0, Math.min(1, percent / 100));

function recognizerOf(worker: Worker): Recognizer {
  return {
    async page(png) {
      const { data } = await worker.recognize(png, {}, { text: true, blocks: true });
      const blocks = (data.blocks ?? []) as unknown as Block[];
      const lines = blocks.flatMap((block) => block.paragraphs.flatMap((paragraph) =>
        paragraph.lines.map((line) => ({
          text: line.text.replace(/\n/gu, ' ').trim(),
          confidence: confidenceOf(line.confidence),
          words: line.words.map((word) => ({ text: word.text, bbox: word.bbox })),
        }))));
      return { lines, confidence: data.confidence / 100 };
    },
    async numberLine(png) {
      await worker.setParameters(NUMBER_LINE_PARAMETERS);
      try {
        const { data } = await worker.recognize(png, {}, { text: true });
        return {
          text: data.text.replace(/\s+/gu, ' ').trim(),
          confidence: confidenceOf(data.confidence),
        };
      } finally {
        await worker.setParameters(PAGE_PARAMETERS);
      }
    },
  };
}

export function createOcrPool(options: { workers: number; queueMax: number }): OcrPool {
  const pool = createWorkerPool<Worker>({
    ...options,
    start: startWorker,
    stop: (worker) => worker.terminate(),
  });
  return {
    run: (work) => pool.run((worker) => work(recognizerOf(worker))),
    inFlight: pool.inFlight,
    close: pool.close,
  };
}
