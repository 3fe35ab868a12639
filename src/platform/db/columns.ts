import { bigint, bigserial, timestamp } from 'drizzle-orm/pg-core';

// Column builders every schema file shares. Times are always timestamptz.

export const timestampTz = (name: string) => timestamp(name, { withTimezone: true });

export const createdAt = () => timestampTz('created_at').notNull().defaultNow();

export const updatedAt = () => timestampTz('updated_at').notNull().defaultNow();

// A list's paging order: a cursor is the last sequence of a page, so rows made in the same
// instant still have an order of their own.
export const pagingSequence = () => bigserial('sequence', { mode: 'number' }).notNull();

// An amount in won: bigint, since sums of invoices outgrow an integer, read as a JavaScript
// number (exact up to Number.MAX_SAFE_INTEGER, far beyond any amount the API accepts).
export const won = (name: string) => bigint(name, { mode: 'number' });

// What a document sent to an authority (a tax invoice, a cash receipt) records of its way: when
// it was issued and transmitted, its paging order and its row's own times.
export const transmittedDocumentTimes = () => ({
  issuedAt: timestampTz('issued_at'),
  transmittedAt: timestampTz('transmitted_at'),
  sequence: pagingSequence(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
