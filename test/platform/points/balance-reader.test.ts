// The balance reader batches concurrent reads and keeps at most two batch queries in flight;
// reads that arrive meanwhile wait for the next batch. Every read gets its own row.
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/platform/db/connect.ts';
import { createBalanceReader } from '../../../src/platform/points/balance-reader.ts';

type Row = { accountId: string; environment: string; postedPoints: number; reservedPoints: number };

// A stand-in for the pool that answers balance queries from a map after a delay, counting how
// many queries run at once and how many keys each one carries.
function fakeDatabase(rows: Map<string, Row>, delayMs: number) {
  const stats = { queries: 0, inFlight: 0, inFlightMax: 0, batchSizes: [] as number[] };
  const query = async ({ values }: { values: [string[], string[]] }) => {
    stats.queries += 1;
    stats.inFlight += 1;
    stats.inFlightMax = Math.max(stats.inFlightMax, stats.inFlight);
    stats.batchSizes.push(values[0].length);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    stats.inFlight -= 1;
    const found = values[0].flatMap((accountId, index) => {
      const row = rows.get(`${accountId}/${values[1][index]}`);
      return row ? [row] : [];
    });
    return { rows: found };
  };
  return { db: { $client: { query } } as unknown as Db, stats };
}

describe('reading balances through the batching reader', () => {
  it('answers every read with its own row and null for a missing one', async () => {
    const rows = new Map<string, Row>();
    for (let index = 0; index < 50; index += 1) {
      const row = { accountId: `acc_${index}`, environment: 'test', postedPoints: index,
        reservedPoints: 0 };
      rows.set(`acc_${index}/test`, row);
    }
    const { db } = fakeDatabase(rows, 5);
    const read = createBalanceReader({ db, preparedStatements: false });
    const reads = Array.from({ length: 50 }, (_, index) =>
      read({ accountId: `acc_${index}`, environment: 'test' }));
    const results = await Promise.all(reads);
    results.forEach((row, index) => expect(row?.postedPoints).toBe(index));
    expect(await read({ accountId: 'acc_missing', environment: 'test' })).toBeNull();
  });

  it('keeps at most two queries in flight and batches the reads that wait', async () => {
    const { db, stats } = fakeDatabase(new Map(), 20);
    const read = createBalanceReader({ db, preparedStatements: false });
    const reads: Array<Promise<unknown>> = [];
    // Reads arrive over several event-loop turns while earlier queries are still running.
    for (let wave = 0; wave < 10; wave += 1) {
      for (let index = 0; index < 10; index += 1) {
        reads.push(read({ accountId: `acc_${wave}_${index}`, environment: 'live' }));
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(reads);
    expect(stats.inFlightMax).toBeLessThanOrEqual(2);
    expect(stats.batchSizes.reduce((sum, size) => sum + size, 0)).toBe(100);
    expect(stats.queries).toBeLessThan(10);
  });
});
