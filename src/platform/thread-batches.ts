import { Worker } from 'node:worker_threads';
import { createBatcher } from './batcher.ts';

// Work done on a worker thread of its own, sent in batches: the sandbox authority's checks of
// signed documents, and the RSA signatures of tax invoices. Both are CPU work that no request
// waits on, so each such thread lowers its own scheduling priority as it starts
// (background-priority.mjs) and the threads that answer requests come first when the cores are
// busy.
//
// One thread per use, started with the first item and shared by every caller; it does not keep
// the process alive. Items go in batches (batcher.ts: while `inFlightMax` batches are with the
// thread, new items wait and go together, up to `itemsPerBatchMax` a batch). A thread that fails
// (it throws or exits) fails the items it holds with the error `unreachable` makes; the next item
// starts a new thread. An item that throws on the thread fails alone.
//
// The thread's module answers this protocol: it posts `{ ready: true }` once it can work (so
// that its start is not taken for a batch's work), then answers each `ThreadBatch` with its
// outcomes, in order.

export type ThreadBatch<Item> = { id: number; items: readonly Item[] };
export type ThreadOutcome<Value> = { value: Value } | { failed: string };
export type ThreadAnswer<Value> =
  { ready: true } | { id: number; outcomes: ThreadOutcome<Value>[] };

type Answered<Value> = Exclude<ThreadAnswer<Value>, { ready: true }>;
type Thread<Value> = { worker: Worker;
  batches: Map<number, (answer: Answered<Value> | Error) => void> };

export type ThreadBatchesOptions = {
  entry: URL;
  // The error of every item a failed thread held, from why it failed.
  unreachable(message: string): Error;
  inFlightMax: number;
  itemsPerBatchMax: number;
};

// Each item's value, or the Error that fails that item alone.
const valuesOf = <Value>(answer: Answered<Value>) => answer.outcomes.map((outcome) =>
  ('value' in outcome ? outcome.value : new Error(outcome.failed)));

export function createThreadBatches<Item, Value>(options: ThreadBatchesOptions):
  (item: Item) => Promise<Value> {
  let thread: Promise<Thread<Value>> | null = null;
  let nextBatchId = 0;

  function startThread(): Promise<Thread<Value>> {
    const worker = new Worker(options.entry, { stdout: false, stderr: false });
    worker.unref();
    const started: Thread<Value> = { worker, batches: new Map() };
    const starting = new Promise<Thread<Value>>((resolve, reject) => {
      const fail = (error: Error) => {
        if (thread === starting) thread = null;
        for (const settle of started.batches.values()) settle(error);
        started.batches.clear();
        reject(error);
        void worker.terminate();
      };
      worker.on('message', (answer: ThreadAnswer<Value>) => {
        if ('ready' in answer) {
          resolve(started);
          return;
        }
        started.batches.get(answer.id)?.(answer);
        started.batches.delete(answer.id);
      });
      worker.on('error', (error) => fail(options.unreachable(error.message)));
      worker.on('exit', () => fail(options.unreachable('The thread exited.')));
    });
    // Every item waiting on the thread hears of a failed start; none may go unhandled.
    starting.catch(() => {});
    return starting;
  }

  async function runOnThread(items: readonly Item[]): Promise<Array<Value | Error>> {
    thread ??= startThread();
    const current = await thread;
    const id = nextBatchId;
    nextBatchId += 1;
    const answer = await new Promise<Answered<Value> | Error>((settle) => {
      current.batches.set(id, settle);
      current.worker.postMessage({ id, items } satisfies ThreadBatch<Item>);
    });
    if (answer instanceof Error) throw answer;
    return valuesOf(answer);
  }

  return createBatcher<Item, Value>({
    inFlightMax: options.inFlightMax,
    itemsPerBatchMax: options.itemsPerBatchMax,
    // An Error among the answers fails its own item only (DataLoader's rule).
    run: (items) => runOnThread(items) as Promise<Value[]>,
  });
}
