import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

// PGLiteSocketServer (0.2.17) splits what each client sends into protocol messages and runs them
// one at a time from a shared queue. It keeps a client's explicit transaction together, but not
// an extended-protocol query: Parse, Bind, Describe, Execute and Sync each wait in the queue on
// their own, so another client's Parse can land between a Parse and its Bind. The Bind then
// meets the wrong statement — an error ("bind message supplies 3 parameters, but prepared
// statement requires 4") or, with the same parameter count, the wrong query. Every client of
// ours (node-postgres, pg-boss) uses the extended protocol, so the queue's scheduler is replaced
// by one that also keeps each query together from its first message to its Sync. It also keeps
// the queue running after a failed message, where the original stops for good.

type QueuedMessage = {
  handlerId: number;
  message: Uint8Array;
  onData(data: Uint8Array): void;
  resolve(bytes: number): void;
  reject(error: unknown): void;
};

type QueryQueue = {
  db: PGlite;
  queue: QueuedMessage[];
  processing: boolean;
  lastHandlerId: number | null;
  processQueue(): Promise<void>;
  clearQueueForHandler(handlerId: number): void;
};

const code = (letter: string) => letter.charCodeAt(0);
// Messages inside an extended-protocol query: Parse, Bind, Describe, Execute, Close, Flush.
const QUERY_PART_TYPES = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map(code));
// Messages that end one, or stand alone: Sync, simple Query, Terminate.
const QUERY_END_TYPES = new Set(['S', 'Q', 'X'].map(code));

export function keepQueriesTogether(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue: QueryQueue }).queryQueue;
  if (!queue || typeof queue.processQueue !== 'function' || !Array.isArray(queue.queue)) {
    throw new Error('PGLiteSocketServer has no query queue to patch; check its version');
  }
  // The client whose extended-protocol query is open, if any.
  let openQueryOf: number | null = null;

  // The next message to run, or null to wait for the client that holds the database.
  function takeNext(): QueuedMessage | null {
    const owner = openQueryOf ?? (queue.db.isInTransaction() ? queue.lastHandlerId : null);
    if (owner === null) return queue.queue.shift() ?? null;
    const index = queue.queue.findIndex((item) => item.handlerId === owner);
    return index === -1 ? null : queue.queue.splice(index, 1)[0]!;
  }

  async function run(item: QueuedMessage) {
    let bytes = 0;
    try {
      await queue.db.runExclusive(() => queue.db.execProtocolRawStream(item.message, {
        onRawData: (data: Uint8Array) => {
          bytes += data.length;
          item.onData(data);
        },
      }));
    } catch (error) {
      item.reject(error);
      return;
    } finally {
      queue.lastHandlerId = item.handlerId;
      const type = item.message[0]!;
      if (QUERY_PART_TYPES.has(type)) openQueryOf = item.handlerId;
      else if (QUERY_END_TYPES.has(type)) openQueryOf = null;
    }
    item.resolve(bytes);
  }

  queue.processQueue = async () => {
    if (queue.processing) return;
    queue.processing = true;
    try {
      for (let item = takeNext(); item !== null; item = takeNext()) await run(item);
    } finally {
      queue.processing = false;
    }
  };

  const clearQueueForHandler = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (handlerId) => {
    clearQueueForHandler(handlerId);
    // A client that left mid-query must not hold the queue.
    if (openQueryOf === handlerId) {
      openQueryOf = null;
      void queue.processQueue();
    }
  };
}
