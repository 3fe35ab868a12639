import { sql } from 'drizzle-orm';
import type { Executor } from '../db/connect.ts';
import type { QueueBacklog } from './registry.ts';

// What the scrape reads from the database: one grouped statement per source, each bounded by
// the work that waits, never by the history kept.

type BacklogRow = { queue: string; waiting: number; oldestAgeSeconds: number };

// PostgreSQL's code for a table that does not exist.
const UNDEFINED_TABLE = '42P01';

function isUndefinedTable(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === UNDEFINED_TABLE;
}

// pg-boss jobs that are due (created or waiting for a retry, their start time passed) and not
// yet taken by a worker. None before pg-boss made its tables (the first start of a database).
export async function jobQueueBacklogs(executor: Executor): Promise<QueueBacklog[]> {
  const result = await executor.execute<BacklogRow>(sql`
    select name as queue, count(*)::int as waiting,
           coalesce(extract(epoch from now() - min(start_after)), 0)::float8 as "oldestAgeSeconds"
      from pgboss.job
     where state in ('created', 'retry') and start_after <= now()
     group by name`).catch((error: unknown) => {
    if (isUndefinedTable(error)) return { rows: [] as BacklogRow[] };
    throw error;
  });
  return result.rows.map((row) => ({ ...row,
    oldestAgeSeconds: Math.max(0, row.oldestAgeSeconds) }));
}

// Mails waiting for their send; counted up to a cap, so an outbox that nobody drains costs a
// bounded scan.
const MAIL_PENDING_COUNT_MAX = 100_000;

export async function mailOutboxPending(executor: Executor): Promise<number> {
  const result = await executor.execute<{ pending: number }>(sql`
    select count(*)::int as pending from (
      select 1 from mail_outbox where status = 'PENDING' limit ${MAIL_PENDING_COUNT_MAX}) pending`);
  return result.rows[0]?.pending ?? 0;
}
