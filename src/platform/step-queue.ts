import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { timestampTz } from './db/columns.ts';
import type { Executor } from './db/connect.ts';
import { executePrepared } from './db/prepared.ts';

// The SQL of a due-work queue that is an area's own table (docs/architecture.md § Background
// work: `tax_invoice_steps`, `cash_receipt_steps`): one row per document with a step to run,
// keyed by its issuance key, with the step, when it is due (`due_at`), its attempt and a lease
// (`leased_until`), and beside it the lease function `<table>_lease` its migration defines.
// Adding a document's step is the area's own statement, written with the document's change.

export type LeasedStep = { issuanceKey: string; attemptNumber: number };

// The queue's table, for the area's tables.ts: one row per document with a step still to run,
// when it is due, its attempt and its lease. The row is written in the same transaction as the
// document's status and deleted once the document is decided; no foreign key, whose check would
// cost a lookup per accepted document.
export function stepQueueTable<Step extends string>(table: string, steps: readonly Step[]) {
  const known = sql.raw(steps.map((step) => `'${step}'`).join(', '));
  return pgTable(
    table,
    {
      issuanceKey: text('issuance_key').primaryKey(),
      step: text('step').$type<Step>().notNull(),
      dueAt: timestampTz('due_at').notNull(),
      attemptNumber: integer('attempt_number').notNull().default(1),
      // Until when a worker holds the step; a worker that dies lets it run out, and the step is
      // taken up again.
      leasedUntil: timestampTz('leased_until'),
    },
    (columns) => [
      index(`${table}_due_idx`).on(columns.step, columns.dueAt),
      check(`${table}_step_known`, sql`${columns.step} in (${known})`),
      check(`${table}_attempt_positive`, sql`${columns.attemptNumber} >= 1`),
    ],
  );
}

export type StepBacklog = { queue: string; waiting: number; oldestAgeSeconds: number };

export function createStepQueue<Step extends string>(table: string) {
  const queue = sql.identifier(table);
  const lease = sql.identifier(`${table}_lease`);
  return {
    // Takes up to `limit` steps of kind `step` that are due at `now` and that no worker holds,
    // oldest due first, and holds them until `leasedUntil`; steps another worker is taking at
    // the same moment are skipped, not waited for. The lease function changes no indexed column
    // of the narrow row, which is rewritten in place; its migration says how it is planned.
    async leaseDue(db: Executor, input: { step: Step; now: Date; leasedUntil: Date;
      limit: number }): Promise<LeasedStep[]> {
      const { rows } = await executePrepared<{ issuance_key: string; attempt_number: number }>(
        db, sql`select issuance_key, attempt_number
          from ${lease}(${input.step}, ${input.now.toISOString()}::timestamptz,
            ${input.leasedUntil.toISOString()}::timestamptz, ${input.limit}::integer)`);
      return rows.map((row) => ({ issuanceKey: row.issuance_key,
        attemptNumber: row.attempt_number }));
    },

    // Puts a document's step off until `dueAt`, as attempt `attemptNumber`, if that is still its
    // step; the lease ends. Answers whether it was.
    async postpone(tx: Executor, input: { issuanceKey: string; step: Step;
      attemptNumber: number; dueAt: Date }): Promise<boolean> {
      const { rows } = await executePrepared<{ issuance_key: string }>(tx, sql`update ${queue}
        set attempt_number = ${input.attemptNumber}::integer,
            due_at = ${input.dueAt.toISOString()}::timestamptz, leased_until = null
        where issuance_key = ${input.issuanceKey} and step = ${input.step}
        returning issuance_key`);
      return rows.length === 1;
    },

    // Ends the steps of documents that are decided (transmitted, failed, canceled) or that
    // moved on without them.
    async endSteps(tx: Executor, issuanceKeys: readonly string[]): Promise<void> {
      if (issuanceKeys.length === 0) return;
      await executePrepared(tx, sql`delete from ${queue}
        where issuance_key = any(${sql.param([...issuanceKeys])}::text[])`);
    },

    // The steps due now and not held by a worker, per step, for the metrics: the due index
    // bounds the scan by the rows due.
    async backlogs(executor: Executor): Promise<StepBacklog[]> {
      const result = await executor.execute<{ step: string; waiting: number; oldest: number }>(
        sql`select step, count(*)::int as waiting,
               extract(epoch from now() - min(due_at))::float8 as oldest
          from ${queue}
         where due_at <= now() and (leased_until is null or leased_until < now())
         group by step`);
      return result.rows.map((row) => ({ queue: `${table}.${row.step}`,
        waiting: row.waiting, oldestAgeSeconds: Math.max(0, row.oldest) }));
    },
  };
}
