import type { Logger } from 'pino';
import {
  addDays,
  holidaysKnownThrough,
  seoulDate,
  type AddedHolidays,
} from '../../../domain/business-days.ts';
import type { Db } from '../../../platform/db/connect.ts';
import { listHolidays } from './store.ts';

// The operator's holidays as every deadline computation of this process sees them. Deadlines are
// computed on every issuance, so the days are not read per request: the process keeps a copy and
// reads the table again when the copy is older than HOLIDAYS_REFRESH_MS. A day added or removed
// with `etax holidays` (another process) reaches every running server within that time
// (docs/tax-invoices.md § Holidays the table does not know).

// A minute: an announced holiday is days away, and one small query a minute per process is
// nothing.
export const HOLIDAYS_REFRESH_MS = 60_000;
// The warning at start: deadlines this far ahead must be computed from known holidays.
const COVERAGE_DAYS_MIN = 366;

export type HolidayCalendar = {
  // The operator's days, read again when the copy is stale.
  added(): Promise<AddedHolidays>;
  // Warns once when the known holidays end within the next twelve months.
  warnWhenEndingSoon(): Promise<void>;
};

export function createHolidayCalendar(deps: { db: Db; now: () => Date; log: Logger }):
  HolidayCalendar {
  let copy: { days: AddedHolidays; readAt: number } | null = null;
  // One read at a time: requests that find the copy stale together share it.
  let reading: Promise<AddedHolidays> | null = null;

  async function read(): Promise<AddedHolidays> {
    const rows = await listHolidays(deps.db);
    const days: AddedHolidays = new Set(rows.map((row) => row.date));
    copy = { days, readAt: deps.now().getTime() };
    return days;
  }

  async function added(): Promise<AddedHolidays> {
    if (copy !== null && deps.now().getTime() - copy.readAt < HOLIDAYS_REFRESH_MS) {
      return copy.days;
    }
    reading ??= read().finally(() => { reading = null; });
    return reading;
  }

  async function warnWhenEndingSoon(): Promise<void> {
    const knownThrough = holidaysKnownThrough(await added());
    const needed = addDays(seoulDate(deps.now()), COVERAGE_DAYS_MIN);
    if (knownThrough >= needed) return;
    deps.log.warn({ knownThrough }, `holidays are known only through ${knownThrough}: ` +
      'issue deadlines after it ignore lunar, substitute and designated holidays. Add the ' +
      'announced days with `etax holidays add <YYYY-MM-DD> --name <name>` (docs/tax-invoices.md)');
  }

  return { added, warnWhenEndingSoon };
}
