// The feed's contract under concurrent writers (docs/revenue-expense.md § The cursor contract):
// two writer processes record changes of one account's books on PostgreSQL at the same time,
// four transactions at once each, every transaction held open a moment after it took its
// positions, while a reader polls GET /v1/revenueExpenses/taxInvoices with its stored cursor.
// The reader must see every change once, in increasing position, never a version older than one
// it already saw, and at the end exactly the final version of every invoice at the position a
// fresh read from the beginning finds it: a change that committed behind the reader's cursor
// would be missing from what it saw. PostgreSQL only.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { basicAuth } from '../helpers/app.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const ROUNDS_PER_WRITER = 400;

type Item = { approvalNumber: string; direction: string; supplyCost: number;
  changeSequence: number };

let database: TestDatabase | null = null;
let app: App;

beforeAll(async () => {
  if (!usingPostgres) return;
  database = await createTestDatabase();
  // The reader polls as fast as it can while the writers run: far more than the feed's
  // per-key rate limit, which this test is not about.
  app = await createApp(loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: undefined,
    WORKERS_ENABLED: 'false', ...database.env, RATE_LIMIT_OVERRIDES: JSON.stringify({
      'revenueExpenses.taxInvoices.list': { limit: 1_000_000, windowSeconds: 60 } }) }));
  await app.server.ready();
});

afterAll(async () => {
  await app?.close();
  await database?.drop();
});

async function page(key: string, cursor: string | null) {
  const response = await app.server.inject({ method: 'GET',
    url: `/v1/revenueExpenses/taxInvoices?limit=50${cursor === null ? '' : `&cursor=${cursor}`}`,
    headers: { authorization: basicAuth(key) } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { items: Item[]; nextCursor: string; hasMore: boolean };
}

describe.skipIf(!usingPostgres)('the feed under two writer processes', () => {
  it('shows every change once, in order, and misses none', async () => {
    const account = await app.platform.accounts.createAccount({ name: 'Feed',
      plan: 'STANDARD' });
    const key = account.keys.test;
    const writers = ['a', 'b'].map((name) => run(process.execPath, ['--import', 'tsx',
      'test/integration/feed-writer.ts', database!.env.DATABASE_URL!, account.accountId, name,
      String(ROUNDS_PER_WRITER)], { cwd: ROOT, timeout: 240_000 }));
    let finished = false;
    const done = Promise.all(writers).finally(() => {
      finished = true;
    });

    const seen: Item[] = [];
    let cursor: string | null = null;
    // Poll until the writers are done, then once more to the end.
    for (let drained = false; !drained;) {
      const last = finished;
      const answer = await page(key, cursor);
      seen.push(...answer.items);
      cursor = answer.nextCursor;
      if (!answer.hasMore && last) drained = true;
    }
    const outputs = await done;

    const positions = seen.map((item) => item.changeSequence);
    expect(new Set(positions).size).toBe(positions.length);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    const latestSeen = new Map<string, Item>();
    for (const item of seen) {
      const before = latestSeen.get(item.approvalNumber);
      if (before) expect(item.supplyCost).toBeGreaterThan(before.supplyCost);
      latestSeen.set(item.approvalNumber, item);
    }

    // A fresh read from the beginning: every invoice at its final position, all of which the
    // polling reader saw.
    const fresh: Item[] = [];
    let from: string | null = null;
    for (;;) {
      const answer = await page(key, from);
      fresh.push(...answer.items);
      from = answer.nextCursor;
      if (!answer.hasMore) break;
    }
    expect(fresh.length).toBe(80);
    const seenPositions = new Set(positions);
    expect(fresh.filter((item) => !seenPositions.has(item.changeSequence))).toEqual([]);
    for (const item of fresh) {
      expect(latestSeen.get(item.approvalNumber)?.changeSequence).toBe(item.changeSequence);
    }
    // The final versions are the ones the writers wrote last.
    const finals = outputs.map(({ stdout }) => JSON.parse(stdout) as Record<string, number>);
    for (const [index, writer] of ['41', '42'].entries()) {
      for (const [invoice, version] of Object.entries(finals[index]!)) {
        const number = `20261120${writer}000000${invoice.padStart(8, '0')}`;
        expect(latestSeen.get(number)?.supplyCost, number).toBe(version * 1_000);
      }
    }
  }, 300_000);
});
