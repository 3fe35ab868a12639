import assert from 'node:assert/strict';
import DataLoader from 'dataloader';
import type { Db } from '../db/connect.ts';
import * as store from './store.ts';

// Balance reads outside a transaction are the hot path (GET /v1/points). Concurrent reads share
// one query: a batch is dispatched on setImmediate (after the poll phase, so every request that
// arrived on any connection joins it), and while QUERIES_IN_FLIGHT_MAX batch queries are already
// running, new reads keep joining the waiting batch until one of them returns. Under load the
// database round trip is paid once per batch instead of once per request, and the batch grows
// with the load instead of with the number of event-loop turns. Nothing is cached: every read is
// answered by a query that started after the read was requested, so it sees every change
// committed before it.

// Two queries in flight keep the connection pipeline busy while the next batch fills.
const QUERIES_IN_FLIGHT_MAX = 2;
const READS_PER_BATCH_MAX = 500;

type Key = { accountId: string; environment: string };

function keyString(key: Key): string {
  return `${key.accountId}/${key.environment}`;
}

const STATEMENT_NAME = 'points_find_balances';

type BalanceReaderOptions = { db: Db; preparedStatements: boolean };

export function createBalanceReader({ db, preparedStatements }: BalanceReaderOptions) {
  const statementName = preparedStatements ? STATEMENT_NAME : undefined;
  let queriesInFlight = 0;
  const waitingDispatches: Array<() => void> = [];

  function schedule(dispatch: () => void) {
    if (queriesInFlight < QUERIES_IN_FLIGHT_MAX) setImmediate(dispatch);
    else waitingDispatches.push(dispatch);
  }

  async function readBatch(keys: readonly Key[]) {
    queriesInFlight += 1;
    try {
      const rows = await store.findBalances(db, keys, statementName);
      assert(rows.length <= keys.length);
      const byKey = new Map(rows.map((row) => [keyString(row), row]));
      return keys.map((key) => byKey.get(keyString(key)) ?? null);
    } finally {
      queriesInFlight -= 1;
      const next = waitingDispatches.shift();
      if (next) setImmediate(next);
    }
  }

  const loader = new DataLoader<Key, store.BalanceRow | null, string>(readBatch, {
    cache: false,
    batchScheduleFn: schedule,
    maxBatchSize: READS_PER_BATCH_MAX,
    cacheKeyFn: keyString,
  });
  return (key: Key) => loader.load(key);
}
