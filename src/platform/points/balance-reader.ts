import assert from 'node:assert/strict';
import type { Db } from '../db/connect.ts';
import { createBatcher } from '../batcher.ts';
import * as store from './store.ts';
import type { Scope } from '../scope-types.ts';

// Balance reads outside a transaction are the hot path (GET /v1/points): concurrent reads share
// one query (batcher.ts).

// Two queries in flight keep the connection pipeline busy while the next batch fills.
const QUERIES_IN_FLIGHT_MAX = 2;
const READS_PER_BATCH_MAX = 500;


function keyString(key: Scope): string {
  return `${key.accountId}/${key.environment}`;
}

const STATEMENT_NAME = 'points_find_balances';

type BalanceReaderOptions = { db: Db; preparedStatements: boolean };

export type BalanceReader = (key: Scope) => Promise<store.BalanceRow | null>;

export function createBalanceReader(
  { db, preparedStatements }: BalanceReaderOptions,
): BalanceReader {
  const statementName = preparedStatements ? STATEMENT_NAME : undefined;
  return createBatcher<Scope, store.BalanceRow | null>({
    inFlightMax: QUERIES_IN_FLIGHT_MAX,
    itemsPerBatchMax: READS_PER_BATCH_MAX,
    async run(keys) {
      const rows = await store.findBalances(db, keys, statementName);
      assert(rows.length <= keys.length);
      const byKey = new Map(rows.map((row) => [keyString(row), row]));
      return keys.map((key) => byKey.get(keyString(key)) ?? null);
    },
  });
}
