// Batched recording: all items in one transaction; when that fails, each item alone, in order,
// so only an item that fails alone fails, and nothing of the failed batch is kept.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordTogetherOrAlone } from '../../src/platform/db/together-or-alone.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  await app.platform.database.db.execute(sql`create table together_or_alone (value integer)`);
});
afterAll(async () => {
  await app?.close();
});

// Stores each item as an integer: 'bad' is not one, and fails its statement.
async function record(items: readonly string[]) {
  const calls: string[][] = [];
  const answers = await recordTogetherOrAlone(app.platform.database.db, items,
    async (tx, batch) => {
      calls.push([...batch]);
      for (const item of batch) {
        await tx.execute(sql`insert into together_or_alone values (${item}::integer)`);
      }
      return batch.map((item) => `stored ${item}`);
    });
  const stored = await app.platform.database.db.execute<{ value: number }>(
    sql`delete from together_or_alone returning value`);
  return { answers, calls, stored: stored.rows.map((row) => row.value).sort() };
}

describe('recording together, or alone after a failure', () => {
  it('records a batch in one transaction', async () => {
    const { answers, calls, stored } = await record(['1', '2', '3']);
    expect(answers).toEqual(['stored 1', 'stored 2', 'stored 3']);
    expect(calls).toEqual([['1', '2', '3']]);
    expect(stored).toEqual([1, 2, 3]);
  });

  it('records each item alone, in order, when the batch fails: only the failing one fails',
    async () => {
      const { answers, calls, stored } = await record(['1', 'bad', '3']);
      expect(answers[0]).toBe('stored 1');
      expect(answers[1]).toBeInstanceOf(Error);
      expect(answers[2]).toBe('stored 3');
      expect(calls).toEqual([['1', 'bad', '3'], ['1'], ['bad'], ['3']]);
      expect(stored).toEqual([1, 3]);
    });

  it('answers the error of a batch of one without trying it again', async () => {
    const { answers, calls, stored } = await record(['bad']);
    expect(answers).toHaveLength(1);
    expect(answers[0]).toBeInstanceOf(Error);
    expect(calls).toEqual([['bad']]);
    expect(stored).toEqual([]);
  });
});
