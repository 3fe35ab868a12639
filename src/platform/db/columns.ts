import { timestamp } from 'drizzle-orm/pg-core';

// Column builders every schema file shares. Times are always timestamptz.

export const timestampTz = (name: string) => timestamp(name, { withTimezone: true });

export const createdAt = () => timestampTz('created_at').notNull().defaultNow();
