import { Worker } from 'node:worker_threads';
import type { AuthorityAnswer, AuthorityBatch } from './authority-thread.ts';
import type { SignedDocumentCheck } from './signed-document-check.ts';

// The sandbox tax authority checks signed documents on a thread of its own, as the real
// authority checks them on machines of its own. Reading, canonicalizing and verifying a document
// costs 0.2 to 0.3 ms of CPU, more than the rest of its transmission; on the thread that answers
// requests it was the largest single cost and bounded how many tax invoices, bulks above all, a
// process accepts a second (bench/RESULTS.md § Tax invoices: the sandbox authority on a thread of
// its own).
//
// One thread per process, started with the first check and shared by every sandbox transmitter
// of the process; it does not keep the process alive. Checks are sent in batches: while two
// batches are with the thread, new checks wait and go together (a transmission batch sends its
// documents side by side), up to 100 a batch. A thread that fails (it throws or exits) fails
// the checks it holds with AuthorityUnreachable, which the sandbox answers as an unreachable
// authority, retried later as a live gateway's would be; the next check starts a new thread.

export class AuthorityUnreachable extends Error {}

const BATCHES_IN_FLIGHT_MAX = 2;
const CHECKS_PER_BATCH_MAX = 100;
const THREAD_ENTRY = new URL('./authority-thread.mjs', import.meta.url);

type Waiting = {
  check: SignedDocumentCheck;
  resolve(defect: string | null): void;
  reject(error: Error): void;
};
type Thread = { worker: Worker; batches: Map<number, { waiting: Waiting[]; done(): void }> };

// Each check of the batch answered gets its outcome.
function settleBatch(thread: Thread, answer: Exclude<AuthorityAnswer, { ready: true }>): void {
  const batch = thread.batches.get(answer.id);
  if (batch === undefined) return;
  thread.batches.delete(answer.id);
  batch.waiting.forEach((waiting, index) => {
    const outcome = answer.outcomes[index]!;
    if ('defect' in outcome) waiting.resolve(outcome.defect);
    else waiting.reject(new Error(`The sandbox authority's check failed: ${outcome.failed}`));
  });
  batch.done();
}

export type AuthorityChecks = {
  // What the sandbox authority finds wrong with a signed document, or null when it takes it;
  // rejects with AuthorityUnreachable when its thread fails.
  check(check: SignedDocumentCheck): Promise<string | null>;
};

// Checks on threads started from `threadEntry`, a module that answers as authority-thread.ts
// does.
export function createAuthorityChecks(threadEntry: URL): AuthorityChecks {
  let thread: Promise<Thread> | null = null;
  const queue: Waiting[] = [];
  let batchesInFlight = 0;
  let nextBatchId = 0;

  function startThread(): Promise<Thread> {
    const worker = new Worker(threadEntry, { stdout: false, stderr: false });
    worker.unref();
    const started: Thread = { worker, batches: new Map() };
    const starting = new Promise<Thread>((resolve, reject) => {
      const fail = (error: Error) => {
        if (thread === starting) thread = null;
        for (const batch of started.batches.values()) {
          for (const waiting of batch.waiting) waiting.reject(error);
          batch.done();
        }
        started.batches.clear();
        reject(error);
        void worker.terminate();
      };
      worker.on('message', (answer: AuthorityAnswer) => {
        if ('ready' in answer) {
          resolve(started);
          return;
        }
        settleBatch(started, answer);
      });
      worker.on('error', (error) => fail(new AuthorityUnreachable(error.message)));
      worker.on('exit', () =>
        fail(new AuthorityUnreachable('The sandbox authority\'s thread exited.')));
    });
    // Every check waiting on the thread hears of a failed start; none may go unhandled.
    starting.catch(() => {});
    return starting;
  }

  async function send(waiting: Waiting[]): Promise<void> {
    let current: Thread;
    try {
      thread ??= startThread();
      current = await thread;
    } catch (error) {
      for (const item of waiting) item.reject(error as Error);
      return;
    }
    const id = nextBatchId;
    nextBatchId += 1;
    await new Promise<void>((done) => {
      current.batches.set(id, { waiting, done });
      current.worker.postMessage({ id, checks: waiting.map((item) => item.check) } satisfies
        AuthorityBatch);
    });
  }

  function dispatch(): void {
    while (batchesInFlight < BATCHES_IN_FLIGHT_MAX && queue.length > 0) {
      const batch = queue.splice(0, CHECKS_PER_BATCH_MAX);
      batchesInFlight += 1;
      void send(batch).finally(() => {
        batchesInFlight -= 1;
        dispatch();
      });
    }
  }

  return {
    check: (check) => new Promise((resolve, reject) => {
      queue.push({ check, resolve, reject });
      dispatch();
    }),
  };
}

let shared: AuthorityChecks | null = null;

// The process's sandbox authority, on authority-thread.ts.
export function checkSignedDocument(check: SignedDocumentCheck): Promise<string | null> {
  shared ??= createAuthorityChecks(THREAD_ENTRY);
  return shared.check(check);
}
