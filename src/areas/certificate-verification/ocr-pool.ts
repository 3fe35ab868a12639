import { createRequire } from 'node:module';
import { createWorker, type Worker } from 'tesseract.js';
import type { TextLine } from './fields.ts';

// Offline Korean OCR (tesseract.js, which runs Tesseract compiled to WebAssembly in a worker
// thread of its own). The trained data comes from the npm packages @tesseract.js-data/kor and
// @tesseract.js-data/eng, read from node_modules: nothing is downloaded, at install or at run
// time, and no cache is written. A fixed number of workers recognise one image each at a time;
// a bounded number of requests may wait for one, and past that a request is refused at once
// (OcrBusy → 503 SERVICE_UNAVAILABLE with Retry-After) instead of joining a backlog that grows
// without bound.

export class OcrBusy extends Error {}

const require = createRequire(import.meta.url);
const KOREAN = require('@tesseract.js-data/kor') as { langPath: string };
const ENGLISH = require('@tesseract.js-data/eng') as { langPath: string };

export type Recognizer = (png: Buffer) => Promise<{ lines: TextLine[]; confidence: number }>;

export type OcrPool = {
  // Runs `work` with a worker held for its whole duration; throws OcrBusy when every worker is
  // busy and the queue is full.
  run<T>(work: (recognize: Recognizer) => Promise<T>): Promise<T>;
  // Requests holding or waiting for a worker now.
  inFlight(): number;
  close(): Promise<void>;
};

// The trained data of both languages lives in separate packages; tesseract.js takes one path,
// so each language is loaded by its own path.
export const LANGUAGE_PATHS = { kor: KOREAN.langPath, eng: ENGLISH.langPath } as const;

async function startWorker(): Promise<Worker> {
  const worker = await createWorker('kor', 1, {
    langPath: LANGUAGE_PATHS.kor,
    gzip: true,
    cacheMethod: 'none',
  });
  await worker.setParameters({
    // A certificate is one column of lines of different sizes; automatic segmentation (3) cuts
    // a widely spaced label ("상          호") into columns of its own.
    tessedit_pageseg_mode: '4' as never,
    preserve_interword_spaces: '1',
    // Images rarely carry a resolution; the preprocessed page is about 250 dpi.
    user_defined_dpi: '250',
  });
  return worker;
}

type Line = { text: string; confidence: number };
type Block = { paragraphs: { lines: Line[] }[] };

function recognizerOf(worker: Worker): Recognizer {
  return async (png) => {
    const { data } = await worker.recognize(png, {}, { text: true, blocks: true });
    const blocks = (data.blocks ?? []) as unknown as Block[];
    const lines = blocks.flatMap((block) => block.paragraphs.flatMap((paragraph) =>
      paragraph.lines.map((line) => ({
        text: line.text.replace(/\n/gu, ' ').trim(),
        confidence: Math.max(0, Math.min(1, line.confidence / 100)),
      }))));
    return { lines, confidence: data.confidence / 100 };
  };
}

export function createOcrPool(options: { workers: number; queueMax: number }): OcrPool {
  const idle: Worker[] = [];
  const waiting: ((worker: Worker) => void)[] = [];
  let started = 0;
  let busy = 0;
  let closed = false;
  const all: Promise<Worker>[] = [];

  async function acquire(): Promise<Worker> {
    const free = idle.pop();
    if (free !== undefined) return free;
    if (started < options.workers) {
      started += 1;
      const worker = startWorker();
      all.push(worker);
      try {
        return await worker;
      } catch (error) {
        started -= 1;
        all.splice(all.indexOf(worker), 1);
        throw error;
      }
    }
    return new Promise((resolve) => waiting.push(resolve));
  }

  function release(worker: Worker) {
    const next = waiting.shift();
    if (next !== undefined) next(worker);
    else idle.push(worker);
  }

  return {
    async run(work) {
      if (closed || busy >= options.workers + options.queueMax) throw new OcrBusy();
      busy += 1;
      try {
        const worker = await acquire();
        try {
          return await work(recognizerOf(worker));
        } finally {
          release(worker);
        }
      } finally {
        busy -= 1;
      }
    },
    inFlight: () => busy,
    async close() {
      closed = true;
      const workers = await Promise.allSettled(all);
      await Promise.all(workers.map((result) =>
        (result.status === 'fulfilled' ? result.value.terminate() : undefined)));
    },
  };
}
