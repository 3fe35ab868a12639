import { date, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt } from '../../../platform/db/columns.ts';

// Non-business days an operator added to the built-in holiday table (src/domain/business-days.ts)
// without a release: temporary holidays are designated a few days ahead, and the table ends with
// the last year published when it was written. Managed with `etax holidays add|list|remove`.
export const operatorHolidays = pgTable('operator_holidays', {
  date: date('date', { mode: 'string' }).primaryKey(),
  name: text('name').notNull(),
  createdAt: createdAt(),
});
