import type { Config } from '../config.ts';
import { isCalendarDate } from '../domain/business-days.ts';
import {
  addHoliday,
  HOLIDAY_NAME_LENGTH_MAX,
  HOLIDAYS_REFRESH_MS,
  listHolidays,
  removeHoliday,
} from '../areas/tax-invoices/index.ts';
import { withPlatform } from './admin.ts';
import { CliError, printResult } from './output.ts';

// `etax holidays add|list|remove`: the days the operator adds to the built-in holiday table
// (docs/tax-invoices.md § Holidays the table does not know). Running servers read them again
// within HOLIDAYS_REFRESH_MS, so the commands say when a change takes effect.

const TAKES_EFFECT = `running servers use it within ${HOLIDAYS_REFRESH_MS / 1000} seconds`;

function parseDate(raw: string): string {
  if (!isCalendarDate(raw)) throw new CliError('the date must be a calendar date, YYYY-MM-DD');
  return raw;
}

export async function add(config: Config, rawDate: string, options: { name: string;
  json?: boolean }) {
  const date = parseDate(rawDate);
  const name = options.name.trim();
  if (name.length === 0 || name.length > HOLIDAY_NAME_LENGTH_MAX) {
    throw new CliError(`--name must be 1 to ${HOLIDAY_NAME_LENGTH_MAX} characters`);
  }
  await withPlatform(config, (platform) => addHoliday(platform.database.db, { date, name }));
  printResult(Boolean(options.json), { date, name }, `added ${date} ${name}; ${TAKES_EFFECT}`);
}

export async function list(config: Config, options: { json?: boolean }) {
  const holidays = await withPlatform(config, (platform) => listHolidays(platform.database.db));
  printResult(Boolean(options.json), { holidays },
    holidays.length === 0 ? 'no holidays added'
      : holidays.map((holiday) => `${holiday.date} ${holiday.name}`).join('\n'));
}

export async function remove(config: Config, rawDate: string, options: { json?: boolean }) {
  const date = parseDate(rawDate);
  const removed = await withPlatform(config, (platform) =>
    removeHoliday(platform.database.db, date));
  if (!removed) throw new CliError(`${date} is not an added holiday`);
  printResult(Boolean(options.json), { removed: date }, `removed ${date}; ${TAKES_EFFECT}`);
}
