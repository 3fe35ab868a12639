// Statements run as named prepared statements on PostgreSQL (parsed once per connection) and
// unnamed on the embedded database, whose connections share one session; in both the answers
// are those of a plain statement, whatever is bound, and two texts never share a name.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executePrepared } from '../../src/platform/db/prepared.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const HOSTILE = ['주식회사 "따옴표" \\ 백슬래시', '\'; drop table x; --', '😀', ''];

// Prepared statements of this connection whose text contains `marker`.
const preparedWith = (marker: string) => sql`select count(*)::int as count
  from pg_prepared_statements where statement like ${`%${marker}%`} and name like 'etax_%'`;

describe('executePrepared', () => {
  it('answers as a plain statement, and names it only on PostgreSQL', async () => {
    const { db, embedded } = app.platform.database;
    const marker = `marker_${Date.now()}`;
    await db.transaction(async (tx) => {
      for (const value of HOSTILE) {
        const { rows } = await executePrepared<{ value: string; items: string[] }>(tx,
          sql`select ${value}::text as value, ${sql.param([value, 'b'])}::text[] as items
            /* ${sql.raw(marker)} */`);
        expect(rows).toEqual([{ value, items: [value, 'b'] }]);
      }
      // A second text of the same shape gets a name of its own.
      const { rows } = await executePrepared<{ n: number }>(tx,
        sql`select 1 + ${2}::int as n /* ${sql.raw(marker)} */`);
      expect(rows).toEqual([{ n: 3 }]);
      const named = await tx.execute<{ count: number }>(preparedWith(marker));
      expect(named.rows[0]!.count).toBe(embedded ? 0 : 2);
    });
  });

  it('fails a bad statement with the database error, and the connection goes on', async () => {
    const { db } = app.platform.database;
    await expect(executePrepared(db, sql`select * from no_such_table_${sql.raw('x')}`))
      .rejects.toThrow(/no_such_table_x/);
    const { rows } = await executePrepared<{ ok: boolean }>(db, sql`select true as ok`);
    expect(rows).toEqual([{ ok: true }]);
  });
});

describe('DATABASE_PREPARED_STATEMENTS=false', () => {
  let unnamed: TestApp;
  beforeAll(async () => {
    // One connection, so the check below reads the session the statements ran on.
    unnamed = await createTestApp({ env: { DATABASE_PREPARED_STATEMENTS: 'false',
      DB_POOL_MAX: '1' } });
  });
  afterAll(async () => {
    await unnamed?.close();
  });

  it('runs every statement unnamed, so a pooler in transaction mode can serve it', async () => {
    const { db, preparedStatements } = unnamed.platform.database;
    expect(preparedStatements).toBe(false);
    const marker = `marker_${Date.now()}`;
    await db.transaction(async (tx) => {
      const { rows } = await executePrepared<{ n: number }>(tx,
        sql`select 1 + ${2}::int as n /* ${sql.raw(marker)} */`);
      expect(rows).toEqual([{ n: 3 }]);
      const named = await tx.execute<{ count: number }>(preparedWith(marker));
      expect(named.rows[0]!.count).toBe(0);
    });
    // The points service's own statements (reserve, capture, the balance read) too.
    const { accountId } = await unnamed.createAccount();
    const scope = { accountId, environment: 'test' as const };
    const reservation = await unnamed.platform.points.reserve({ ...scope,
      operation: 'taxInvoices.issue', points: 100 });
    await unnamed.platform.points.capture({ reservation, chargePoints: 100 });
    await unnamed.platform.points.getBalance(scope);
    const { rows } = await db.execute<{ count: number }>(sql`select count(*)::int as count
      from pg_prepared_statements where name like 'etax_%' or name like 'points_%'`);
    expect(rows[0]!.count).toBe(0);
  });
});
