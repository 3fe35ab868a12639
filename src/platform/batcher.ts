import DataLoader from 'dataloader';

// Concurrent statements from many requests (ledger changes, issuance records, lookups) share one
// database round trip. A batch is
// dispatched on setImmediate (after the poll phase, so every request that arrived on any
// connection joins it), and while `inFlightMax` batches are already running, new items keep
// joining the waiting batch until one of them returns. Under load the round trip, and for writes
// the commit, is paid once per batch instead of once per request, and the batch grows with the
// load instead of with the number of event-loop turns. Nothing is cached: every item is answered
// by a statement that started after the item was requested.

type BatcherOptions<Item, Result> = {
  // Answers every item, in order; a rejection fails the whole batch.
  run(items: readonly Item[]): Promise<Result[]>;
  inFlightMax: number;
  itemsPerBatchMax: number;
};

export function createBatcher<Item, Result>(options: BatcherOptions<Item, Result>) {
  let batchesInFlight = 0;
  const waitingDispatches: Array<() => void> = [];

  function schedule(dispatch: () => void) {
    if (batchesInFlight < options.inFlightMax) setImmediate(dispatch);
    else waitingDispatches.push(dispatch);
  }

  async function runBatch(items: readonly Item[]): Promise<Result[]> {
    batchesInFlight += 1;
    try {
      return await options.run(items);
    } finally {
      batchesInFlight -= 1;
      const next = waitingDispatches.shift();
      if (next) setImmediate(next);
    }
  }

  const loader = new DataLoader<Item, Result, Item>(runBatch, {
    cache: false,
    batchScheduleFn: schedule,
    maxBatchSize: options.itemsPerBatchMax,
  });
  return (item: Item) => loader.load(item);
}
