import { bigint, timestamp } from 'drizzle-orm/pg-core';

// Column builders every schema file shares. Times are always timestamptz.

export const timestampTz = (name: string) => timestamp(name, { withTimezone: true });

export const createdAt = () => timestampTz('created_at').notNull().defaultNow();

// An amount in won: bigint, since sums of invoices outgrow an integer, read as a JavaScript
// number (exact up to Number.MAX_SAFE_INTEGER, far beyond any amount the API accepts).
export const won = (name: string) => bigint(name, { mode: 'number' });
