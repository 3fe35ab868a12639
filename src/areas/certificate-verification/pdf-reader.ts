import { Worker } from 'node:worker_threads';
import type { CertificateReading } from './fields.ts';
import { PDF_READ_DEADLINE_MS, PDF_READ_MEMORY_MAX_BYTES } from './file-type.ts';
import { PdfRefused } from './pdf-streams.ts';
import type { PdfThreadAnswer } from './pdf-thread.ts';
import { createWorkerPool, type WorkerPool } from './worker-pool.ts';

// PDFs are read in worker threads (pdf-thread.ts), never on the thread that answers requests:
// a hostile PDF can take pdf.js long or much memory, and the server must go on answering. Each
// read is bounded three ways, and a thread that crossed a bound is terminated and replaced:
//   - time: a read that has not finished after `deadlineMs` is refused;
//   - the thread's JavaScript heap (resourceLimits): past it the thread dies, and the PDF is
//     refused;
//   - the memory pdf.js decodes streams into, which lives outside that heap: the process's
//     resident memory is watched while a read runs, and a read during which it grew by more
//     than `memoryMaxBytes` is refused. This is what bounds what the inflate check before
//     opening (pdf-streams.ts) cannot see, such as an encrypted file's streams.
// The threads and the requests that may wait for one are bounded like OCR (worker-pool.ts):
// past the queue a request is refused at once, 503.

export type PdfReaderOptions = {
  workers: number;
  queueMax: number;
  deadlineMs: number;
  memoryMaxBytes: number;
};

export type PdfReading = CertificateReading | null | { page: Buffer };

export type PdfReader = {
  // The certificate's fields read from the text layer of the first pages; null for a PDF
  // without one; the first page as a PNG when the text layer has no characters (pdf-text.ts).
  // Throws PdfRefused for a PDF that cannot be read within the bounds, ReadersBusy when the
  // queue is full.
  read(pdf: Buffer): Promise<PdfReading>;
  close(): Promise<void>;
};

// The bounds of every read (file-type.ts); the number of threads and the queue are settings.
export const PDF_READER_DEFAULTS = {
  deadlineMs: PDF_READ_DEADLINE_MS,
  memoryMaxBytes: PDF_READ_MEMORY_MAX_BYTES,
} as const;

// A pdf.js reading of a certificate needs some 40 MB of heap.
const HEAP_MB = 192;
const MEMORY_WATCH_INTERVAL_MS = 25;
const THREAD_ENTRY = new URL('./pdf-thread.mjs', import.meta.url);

type Thread = { worker: Worker; usable: boolean };

function startThread(): Promise<Thread> {
  const worker = new Worker(THREAD_ENTRY, {
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 32 },
    stdout: false,
    stderr: false,
  });
  const thread: Thread = { worker, usable: true };
  // Kept for the thread's life: an error while no read is waiting must not go unhandled.
  const broken = () => {
    thread.usable = false;
  };
  worker.on('error', broken);
  worker.on('exit', broken);
  return new Promise((resolve, reject) => {
    const settle = (error?: unknown) => {
      worker.off('message', ready);
      worker.off('error', settle);
      worker.off('exit', exited);
      if (error === undefined) {
        resolve(thread);
      } else {
        void worker.terminate();
        reject(error instanceof Error ? error : new Error('The PDF reader thread did not start.'));
      }
    };
    const ready = () => settle();
    const exited = () => settle(new Error('The PDF reader thread exited as it started.'));
    worker.on('message', ready);
    worker.on('error', settle);
    worker.on('exit', exited);
  });
}

const OUT_OF_MEMORY = 'Reading the PDF needs more memory than the limit.';

function readOn(thread: Thread, pdf: Buffer, options: PdfReaderOptions): Promise<PdfReading> {
  const { worker } = thread;
  return new Promise((resolve, reject) => {
    const baseline = process.memoryUsage.rss();
    const onMessage = (answer: PdfThreadAnswer) => {
      finish();
      if ('reading' in answer) resolve(answer.reading);
      else if ('page' in answer) resolve({ page: Buffer.from(answer.page) });
      else if ('refused' in answer) reject(new PdfRefused(answer.refused));
    };
    const onError = (error: Error & { code?: string }) => refuse(
      error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? OUT_OF_MEMORY : 'The PDF could not be read.');
    const onExit = () => refuse('The PDF could not be read.');
    const finish = () => {
      clearTimeout(deadline);
      clearInterval(watch);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    // The thread is given up: whatever it is doing is abandoned.
    const refuse = (message: string) => {
      finish();
      thread.usable = false;
      void worker.terminate();
      reject(new PdfRefused(message));
    };
    const deadline = setTimeout(() => refuse('The PDF could not be read within ' +
      `${options.deadlineMs / 1000} seconds.`), options.deadlineMs);
    const watch = setInterval(() => {
      if (process.memoryUsage.rss() - baseline > options.memoryMaxBytes) refuse(OUT_OF_MEMORY);
    }, MEMORY_WATCH_INTERVAL_MS);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    // A copy the thread takes over, so the request keeps its own bytes.
    const copy = new Uint8Array(pdf);
    worker.postMessage({ pdf: copy }, [copy.buffer]);
  });
}

export function createPdfReader(options: PdfReaderOptions): PdfReader {
  const pool: WorkerPool<Thread> = createWorkerPool<Thread>({
    workers: options.workers,
    queueMax: options.queueMax,
    start: startThread,
    stop: (thread) => thread.worker.terminate(),
    usable: (thread) => thread.usable,
  });
  return {
    read: (pdf) => pool.run((thread) => readOn(thread, pdf, options)),
    close: pool.close,
  };
}
