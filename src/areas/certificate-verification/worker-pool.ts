// A fixed number of workers that each do one job at a time, and a bounded number of jobs that
// may wait for one: past that a job is refused at once (ReadersBusy → 503 SERVICE_UNAVAILABLE
// with Retry-After) instead of joining a backlog that grows without bound. OCR and PDF reading
// are both held to it (docs/certificate-verification.md § Price, order of checks, limits).
// Workers start on the first job, not at boot, and one a job left unusable (a thread that was
// terminated) is replaced by a new one for the next job.

export class ReadersBusy extends Error {}

export type WorkerPool<W> = {
  // Runs `work` with a worker held for its whole duration; throws ReadersBusy when every worker
  // is busy and the queue is full, or the pool is closed.
  run<T>(work: (worker: W) => Promise<T>): Promise<T>;
  // Jobs holding or waiting for a worker now.
  inFlight(): number;
  close(): Promise<void>;
};

export type WorkerPoolOptions<W> = {
  workers: number;
  queueMax: number;
  start(): Promise<W>;
  stop(worker: W): Promise<unknown>;
  // Whether a worker can take another job; one that cannot is stopped and forgotten.
  usable?(worker: W): boolean;
};

export function createWorkerPool<W>(options: WorkerPoolOptions<W>): WorkerPool<W> {
  const idle: W[] = [];
  const waiting: (() => void)[] = [];
  // Workers running, and starts not finished yet (which close() waits for).
  const live = new Set<W>();
  const starting = new Set<Promise<W>>();
  let busy = 0;
  let closed = false;

  async function startOne(): Promise<W> {
    const start = options.start();
    starting.add(start);
    try {
      const worker = await start;
      live.add(worker);
      return worker;
    } catch (error) {
      // The next job in the queue tries a start of its own.
      waiting.shift()?.();
      throw error;
    } finally {
      starting.delete(start);
    }
  }

  // A worker for the caller: an idle one, a new one while fewer than `workers` run, or the
  // next one released.
  async function acquire(): Promise<W> {
    for (;;) {
      const free = idle.pop();
      if (free !== undefined) return free;
      if (live.size + starting.size < options.workers) return startOne();
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  }

  function release(worker: W) {
    if (options.usable === undefined || options.usable(worker)) {
      idle.push(worker);
    } else {
      live.delete(worker);
      void options.stop(worker).catch(() => undefined);
    }
    waiting.shift()?.();
  }

  return {
    async run(work) {
      if (closed || busy >= options.workers + options.queueMax) throw new ReadersBusy();
      busy += 1;
      try {
        const worker = await acquire();
        try {
          return await work(worker);
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
      await Promise.allSettled(starting);
      await Promise.all([...live].map((worker) => options.stop(worker)));
      live.clear();
    },
  };
}
