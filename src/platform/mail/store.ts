import { and, desc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/connect.ts';
import { insertJsonRows } from '../db/json-rows.ts';
import { executePrepared } from '../db/prepared.ts';
import { mailOutbox, type MailStatus } from './tables.ts';

// SQL of the mail outbox. Status changes are conditional on PENDING, so a send job that runs
// twice (a retry after a crash) finds the mail already settled and changes nothing.

export type MailRow = typeof mailOutbox.$inferSelect;
type NewMailRow = typeof mailOutbox.$inferInsert;

export async function insertMail(tx: Executor, row: NewMailRow): Promise<MailRow> {
  const [inserted] = await tx.insert(mailOutbox).values(row).returning();
  return inserted!;
}

// A batch's mails in one statement, as one JSON parameter (db/json-rows.ts): a batch of
// transmitted documents queues a mail each, and drizzle would build every column of every mail
// as a parameter of its own, then read each whole row back. Answers how many were inserted.
export async function insertMails(tx: Executor, rows: NewMailRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await executePrepared(tx, insertJsonRows(mailOutbox, rows));
  return result.rowCount ?? 0;
}

export async function findMail(tx: Executor, id: string): Promise<MailRow | null> {
  const [row] = await tx.select().from(mailOutbox).where(eq(mailOutbox.id, id)).limit(1);
  return row ?? null;
}

// Claims a PENDING mail for one attempt: sets its lease unless another attempt holds it. Null
// when the mail is not PENDING or is leased; the one row when this attempt may send it.
export async function claimMail(tx: Executor, id: string, leaseSeconds: number):
  Promise<MailRow | null> {
  const [claimed] = await tx.update(mailOutbox)
    .set({ leaseUntil: sql`now() + make_interval(secs => ${leaseSeconds})`,
      updatedAt: sql`now()` })
    .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'PENDING'),
      or(isNull(mailOutbox.leaseUntil), lte(mailOutbox.leaseUntil, sql`now()`))))
    .returning();
  return claimed ?? null;
}

// PENDING → `status`, with the columns that go with it; false when the mail is not PENDING.
export async function settleMail(
  tx: Executor,
  id: string,
  change: { status: Exclude<MailStatus, 'PENDING'> } &
    Partial<Pick<NewMailRow, 'messageId' | 'sentAt' | 'lastError' | 'attemptCount'>>,
): Promise<boolean> {
  const settled = await tx.update(mailOutbox)
    .set({ ...change, leaseUntil: null, updatedAt: sql`now()` })
    .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'PENDING')))
    .returning({ id: mailOutbox.id });
  return settled.length === 1;
}

// Counts a failed attempt of a PENDING mail that will be tried again, and ends its lease.
export async function recordAttemptFailure(
  tx: Executor,
  id: string,
  change: { attemptCount: number; lastError: string },
): Promise<boolean> {
  const updated = await tx.update(mailOutbox)
    .set({ ...change, leaseUntil: null, updatedAt: sql`now()` })
    .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'PENDING')))
    .returning({ id: mailOutbox.id });
  return updated.length === 1;
}

// The newest mails first, optionally only those in `statuses`.
export async function listMails(
  tx: Executor,
  options: { limit: number; statuses?: readonly MailStatus[] | undefined },
): Promise<MailRow[]> {
  const where = options.statuses?.length
    ? inArray(mailOutbox.status, [...options.statuses]) : undefined;
  return tx.select().from(mailOutbox).where(where)
    .orderBy(desc(mailOutbox.sequence)).limit(options.limit);
}
