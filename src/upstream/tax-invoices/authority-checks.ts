import { Worker } from 'node:worker_threads';
import { createBatcher } from '../../platform/batcher.ts';
import type { AuthorityAnswer, AuthorityBatch } from './authority-thread.ts';
import type { SignedDocumentCheck } from './signed-document-check.ts';

// The sandbox tax authority checks signed documents on a thread of its own, as the real
// authority checks them on machines of its own. Reading, canonicalizing and verifying a document
// costs about 0.2 ms of CPU, about as much as the rest of its transmission; on the thread that
// answers requests it was the largest single cost and bounded how many tax invoices, bulks above
// all, a process accepts a second (bench/RESULTS.md § Tax invoices: the sandbox authority on a
// thread of its own).
//
// One thread per process, started with the first check and shared by every sandbox transmitter
// of the process; it does not keep the process alive. Checks are sent in batches
// (platform/batcher.ts: while two batches are with the thread, new checks wait and go together,
// up to 100 a batch; a transmission batch sends its documents side by side). A thread that fails
// (it throws or exits) fails the checks it holds with AuthorityUnreachable, which the sandbox
// answers as an unreachable authority, retried later as a live gateway's would be; the next check
// starts a new thread. A check that throws on the thread fails alone.

export class AuthorityUnreachable extends Error {}

const BATCHES_IN_FLIGHT_MAX = 2;
const CHECKS_PER_BATCH_MAX = 100;
const THREAD_ENTRY = new URL('./authority-thread.mjs', import.meta.url);

type Answered = Exclude<AuthorityAnswer, { ready: true }>;
type Thread = { worker: Worker; batches: Map<number, (answer: Answered | Error) => void> };

// Each check's defect, or the Error that fails that check alone.
const defectsOf = (answer: Answered) => answer.outcomes.map((outcome) => ('defect' in outcome
  ? outcome.defect : new Error(`The sandbox authority's check failed: ${outcome.failed}`)));

export type AuthorityChecks = {
  // What the sandbox authority finds wrong with a signed document, or null when it takes it;
  // rejects with AuthorityUnreachable when its thread fails.
  check(check: SignedDocumentCheck): Promise<string | null>;
};

// Checks on threads started from `threadEntry`, a module that answers as authority-thread.ts
// does.
export function createAuthorityChecks(threadEntry: URL): AuthorityChecks {
  let thread: Promise<Thread> | null = null;
  let nextBatchId = 0;

  function startThread(): Promise<Thread> {
    const worker = new Worker(threadEntry, { stdout: false, stderr: false });
    worker.unref();
    const started: Thread = { worker, batches: new Map() };
    const starting = new Promise<Thread>((resolve, reject) => {
      const fail = (error: Error) => {
        if (thread === starting) thread = null;
        for (const settle of started.batches.values()) settle(error);
        started.batches.clear();
        reject(error);
        void worker.terminate();
      };
      worker.on('message', (answer: AuthorityAnswer) => {
        if ('ready' in answer) {
          resolve(started);
          return;
        }
        started.batches.get(answer.id)?.(answer);
        started.batches.delete(answer.id);
      });
      worker.on('error', (error) => fail(new AuthorityUnreachable(error.message)));
      worker.on('exit', () =>
        fail(new AuthorityUnreachable('The sandbox authority\'s thread exited.')));
    });
    // Every check waiting on the thread hears of a failed start; none may go unhandled.
    starting.catch(() => {});
    return starting;
  }

  async function checkOnThread(checks: readonly SignedDocumentCheck[]):
    Promise<Array<string | null | Error>> {
    thread ??= startThread();
    const current = await thread;
    const id = nextBatchId;
    nextBatchId += 1;
    const answer = await new Promise<Answered | Error>((settle) => {
      current.batches.set(id, settle);
      current.worker.postMessage({ id, checks } satisfies AuthorityBatch);
    });
    if (answer instanceof Error) throw answer;
    return defectsOf(answer);
  }

  const check = createBatcher<SignedDocumentCheck, string | null>({
    inFlightMax: BATCHES_IN_FLIGHT_MAX,
    itemsPerBatchMax: CHECKS_PER_BATCH_MAX,
    // An Error among the answers fails its own check only (DataLoader's rule).
    run: (checks) => checkOnThread(checks) as Promise<Array<string | null>>,
  });
  return { check };
}

let shared: AuthorityChecks | null = null;

// The process's sandbox authority, on authority-thread.ts.
export function checkSignedDocument(check: SignedDocumentCheck): Promise<string | null> {
  shared ??= createAuthorityChecks(THREAD_ENTRY);
  return shared.check(check);
}
