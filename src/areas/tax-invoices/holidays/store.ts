import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../../../platform/db/connect.ts';
import { operatorHolidays } from './tables.ts';

// Reads and writes of the operator's holidays.

export type OperatorHoliday = { date: string; name: string };

export async function listHolidays(db: Executor): Promise<OperatorHoliday[]> {
  return db.select({ date: operatorHolidays.date, name: operatorHolidays.name })
    .from(operatorHolidays).orderBy(asc(operatorHolidays.date));
}

// Adds the day, or renames it when it is already there: adding the same day twice is harmless.
// A holiday's name is shown in listings only; 100 characters fit any official name.
export const HOLIDAY_NAME_LENGTH_MAX = 100;

export async function addHoliday(db: Executor, holiday: OperatorHoliday): Promise<void> {
  await db.insert(operatorHolidays).values(holiday).onConflictDoUpdate({
    target: operatorHolidays.date, set: { name: holiday.name } });
}

// False when the day was not added.
export async function removeHoliday(db: Executor, date: string): Promise<boolean> {
  const removed = await db.delete(operatorHolidays).where(eq(operatorHolidays.date, date))
    .returning({ date: operatorHolidays.date });
  return removed.length > 0;
}
