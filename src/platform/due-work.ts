import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';

// Work whose queue is the area's own table: rows carry when their next step is due, and a
// worker takes a batch of due rows with a lease (an update that skips rows other workers hold),
// does the step and records it with a conditional change. Nothing is staged elsewhere, so
// accepting a request writes its row and nothing more, and a step costs the row's own updates
// instead of a job's insert, fetch and completion (docs/architecture.md § Background work).
//
// In worker processes (WORKERS_ENABLED) each definition runs `concurrency` loops. A loop runs
// batches back to back while they come back full, and waits `pollIntervalMs` after one that
// did not; a batch that throws is logged and the loop waits before the next, longer each time
// in a row, up to a minute.

export type DueWorkDefinition = {
  name: string;
  // Takes up to `batchSize` due rows and runs their step; answers how many it took.
  runBatch(): Promise<number>;
  batchSize: number;
  pollIntervalMs: number;
  concurrency: number;
};

export type DueWorkRunner = {
  start(definitions: readonly DueWorkDefinition[]): void;
  // Stops taking batches and waits for those running to end.
  stop(): Promise<void>;
};

const FAILURE_BACKOFF_FIRST_MS = 1_000;
const FAILURE_BACKOFF_MAX_MS = 60_000;

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    // Stopped: the loop checks the signal.
  }
}

async function runLoop(definition: DueWorkDefinition, signal: AbortSignal, log: Logger) {
  let failuresInARow = 0;
  while (!signal.aborted) {
    let taken: number;
    try {
      taken = await definition.runBatch();
      failuresInARow = 0;
    } catch (error) {
      failuresInARow += 1;
      const waitMs = Math.min(FAILURE_BACKOFF_FIRST_MS * 2 ** (failuresInARow - 1),
        FAILURE_BACKOFF_MAX_MS);
      log.error({ err: error, work: definition.name, failuresInARow, waitMs },
        'due work batch failed');
      await pause(waitMs, signal);
      continue;
    }
    if (taken < definition.batchSize) await pause(definition.pollIntervalMs, signal);
  }
}

export function createDueWorkRunner(options: { workersEnabled: boolean; log: Logger }):
  DueWorkRunner {
  const controller = new AbortController();
  const loops: Array<Promise<void>> = [];
  return {
    start(definitions) {
      if (!options.workersEnabled) return;
      // Every loop waits on the one stop signal, each with at most one pause at a time: more
      // than Node's default of 10 listeners is expected here, not a leak to warn about.
      const loopCount = definitions.reduce((sum, definition) => sum + definition.concurrency, 0);
      setMaxListeners(Math.max(loopCount + loops.length, 10), controller.signal);
      for (const definition of definitions) {
        for (let index = 0; index < definition.concurrency; index += 1) {
          loops.push(runLoop(definition, controller.signal, options.log));
        }
      }
    },
    async stop() {
      controller.abort();
      await Promise.all(loops);
    },
  };
}
