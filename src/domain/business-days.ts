import assert from 'node:assert/strict';

// Korean business days and the tax invoice issue deadline: an invoice may be
// issued up to the 10th of the month after its write date, and when that day is not a business
// day, up to the next one. Dates are `YYYY-MM-DD` strings. All arithmetic runs on UTC midnights,
// so the time zone of the machine never shifts a date. Imports nothing from the rest of the code.

// The years the holiday table covers. Outside them only Saturdays and Sundays are non-business
// days: lunar holidays, substitute days and elections cannot be derived by a simple rule, so
// a deadline computed for a later year may come a day or more early when a holiday falls on the
// 10th. Extend the table each year, when the Korea Astronomy and Space Science Institute (KASI)
// publishes its 월력요항 (calendar of public holidays) for the following year. Between releases
// an operator adds announced days (`etax holidays add`); the functions below take them as the
// `added` set, which the caller loads (src/areas/tax-invoices/holidays/).
export const HOLIDAY_TABLE_YEARS = { first: 2024, last: 2028 } as const;

// Days that are not business days besides Saturdays and Sundays, by date.
//
// What counts: the public holidays of 공휴일에 관한 법률 §2 and 관공서의 공휴일에 관한 규정 §2,
// their substitute days (대체공휴일, 규정 §3: Seollal and Chuseok days move when they fall on a
// Sunday or another holiday; Children's Day, the national days, Buddha's Birthday and Christmas
// also when they fall on a Saturday; New Year's Day and Memorial Day never move), election days
// of 공직선거법 §34, holidays the government designated (임시공휴일), and 근로자의 날 / 노동절
// (1 May). 1 May is not a public holiday, but 국세기본법 §5 moves a tax deadline that falls on it
// to the next day just as it does for a Saturday or a public holiday.
//
// Sources, checked 2026-11:
// - Lunar dates: KASI astro.kasi.re.kr/life/post/calendarData (2027: 음력 1/1 = 2027-02-07,
//   4/1 = 05-06, 8/1 = 09-01), KASI 월력요항 2025 and 2026 as reported by the press
//   (thegnnews.com/View.aspx?No=3273018), namu-wiki.com/w/2028년 (설날 2028-01-27, 추석
//   2028-10-03 on 개천절, substitute 10-05), cross-checked with ICU's `dangi` calendar. 2027 and
//   2028 Seollal fall a day after the Chinese New Year because KST is an hour ahead of China.
// - 2027 substitute days: dark.mir.pe/wiki/2027년 (02-09, 08-16, 10-04, 10-11, 12-27).
// - 제헌절 is a public holiday again from 2026 (공휴일에 관한 법률 amended 2026-01-29, promulgated
//   2026-02; seoul.co.kr 2026-01-29, gndnews1.com 2026-02-05). Its substitute day 2027-07-19
//   follows the rule for the other national days; the regulation's update was announced, not
//   yet seen in force.
// - Designated days: 2024-10-01 (국군의 날), 2025-01-27 (news1.kr/politics/pm-bai-comm/5659990).
//   2025-10-10 was proposed and not designated (mdaily.net/post/veXHq6z9).
// - Elections: 2024-04-10 (22nd National Assembly), 2025-06-03 (21st President, early),
//   2026-06-03 (9th local), 2028-04-12 (23rd National Assembly: the first Wednesday on or after
//   the 50th day before the term ends on 2028-05-29).
// Days designated later (임시공휴일) must be added here when they are announced; until the release
// that has them, an operator adds them with `etax holidays add`.
const NON_BUSINESS_DAYS: ReadonlyArray<readonly [date: string, name: string]> = [
  ['2024-01-01', '신정'],
  ['2024-02-09', '설날 전날'], ['2024-02-10', '설날'], ['2024-02-11', '설날 다음 날'],
  ['2024-02-12', '대체공휴일 (설날)'],
  ['2024-03-01', '삼일절'],
  ['2024-04-10', '제22대 국회의원 선거'],
  ['2024-05-01', '근로자의 날'],
  ['2024-05-05', '어린이날'], ['2024-05-06', '대체공휴일 (어린이날)'],
  ['2024-05-15', '부처님오신날'],
  ['2024-06-06', '현충일'],
  ['2024-08-15', '광복절'],
  ['2024-09-16', '추석 전날'], ['2024-09-17', '추석'], ['2024-09-18', '추석 다음 날'],
  ['2024-10-01', '임시공휴일 (국군의 날)'],
  ['2024-10-03', '개천절'],
  ['2024-10-09', '한글날'],
  ['2024-12-25', '성탄절'],

  ['2025-01-01', '신정'],
  ['2025-01-27', '임시공휴일'],
  ['2025-01-28', '설날 전날'], ['2025-01-29', '설날'], ['2025-01-30', '설날 다음 날'],
  ['2025-03-01', '삼일절'], ['2025-03-03', '대체공휴일 (삼일절)'],
  ['2025-05-01', '근로자의 날'],
  ['2025-05-05', '어린이날, 부처님오신날'], ['2025-05-06', '대체공휴일 (부처님오신날)'],
  ['2025-06-03', '제21대 대통령 선거'],
  ['2025-06-06', '현충일'],
  ['2025-08-15', '광복절'],
  ['2025-10-03', '개천절'],
  ['2025-10-05', '추석 전날'], ['2025-10-06', '추석'], ['2025-10-07', '추석 다음 날'],
  ['2025-10-08', '대체공휴일 (추석)'],
  ['2025-10-09', '한글날'],
  ['2025-12-25', '성탄절'],

  ['2026-01-01', '신정'],
  ['2026-02-16', '설날 전날'], ['2026-02-17', '설날'], ['2026-02-18', '설날 다음 날'],
  ['2026-03-01', '삼일절'], ['2026-03-02', '대체공휴일 (삼일절)'],
  ['2026-05-01', '노동절'],
  ['2026-05-05', '어린이날'],
  ['2026-05-24', '부처님오신날'], ['2026-05-25', '대체공휴일 (부처님오신날)'],
  ['2026-06-03', '제9회 전국동시지방선거'],
  ['2026-06-06', '현충일'],
  ['2026-07-17', '제헌절'],
  ['2026-08-15', '광복절'], ['2026-08-17', '대체공휴일 (광복절)'],
  ['2026-09-24', '추석 전날'], ['2026-09-25', '추석'], ['2026-09-26', '추석 다음 날'],
  ['2026-10-03', '개천절'], ['2026-10-05', '대체공휴일 (개천절)'],
  ['2026-10-09', '한글날'],
  ['2026-12-25', '성탄절'],

  ['2027-01-01', '신정'],
  ['2027-02-06', '설날 전날'], ['2027-02-07', '설날'], ['2027-02-08', '설날 다음 날'],
  ['2027-02-09', '대체공휴일 (설날)'],
  ['2027-03-01', '삼일절'],
  ['2027-05-01', '노동절'],
  ['2027-05-05', '어린이날'],
  ['2027-05-13', '부처님오신날'],
  ['2027-06-06', '현충일'],
  ['2027-07-17', '제헌절'], ['2027-07-19', '대체공휴일 (제헌절)'],
  ['2027-08-15', '광복절'], ['2027-08-16', '대체공휴일 (광복절)'],
  ['2027-09-14', '추석 전날'], ['2027-09-15', '추석'], ['2027-09-16', '추석 다음 날'],
  ['2027-10-03', '개천절'], ['2027-10-04', '대체공휴일 (개천절)'],
  ['2027-10-09', '한글날'], ['2027-10-11', '대체공휴일 (한글날)'],
  ['2027-12-25', '성탄절'], ['2027-12-27', '대체공휴일 (성탄절)'],

  ['2028-01-01', '신정'],
  ['2028-01-26', '설날 전날'], ['2028-01-27', '설날'], ['2028-01-28', '설날 다음 날'],
  ['2028-03-01', '삼일절'],
  ['2028-04-12', '제23대 국회의원 선거'],
  ['2028-05-01', '노동절'],
  ['2028-05-02', '부처님오신날'],
  ['2028-05-05', '어린이날'],
  ['2028-06-06', '현충일'],
  ['2028-07-17', '제헌절'],
  ['2028-08-15', '광복절'],
  ['2028-10-02', '추석 전날'], ['2028-10-03', '추석, 개천절'], ['2028-10-04', '추석 다음 날'],
  ['2028-10-05', '대체공휴일 (추석, 개천절)'],
  ['2028-10-09', '한글날'],
  ['2028-12-25', '성탄절'],
];

const NON_BUSINESS_DATES: ReadonlySet<string> = new Set(NON_BUSINESS_DAYS.map(([date]) => date));

// The table as data, for tests and documentation.
export function listNonBusinessDays(): ReadonlyArray<{ date: string; name: string }> {
  return NON_BUSINESS_DAYS.map(([date, name]) => ({ date, name }));
}

// The deadline is the 10th of the next month.
const ISSUE_DEADLINE_DAY_OF_MONTH = 10;
// The longest run of non-business days in the table is 7 (2025-10-03 to 10-09); a run this long
// means the table or the arithmetic is broken.
const NON_BUSINESS_RUN_DAYS_MAX = 31;
// The final VAT return is due on the 25th of the month after the tax period ends.
const VAT_RETURN_DAY_OF_MONTH = 25;
// Korea has kept UTC+9 all year since 1988 (no daylight saving time), so a fixed offset gives
// the Seoul date without depending on the time zone data of the machine.
const SEOUL_OFFSET_MS = 9 * 60 * 60 * 1000;
const DATE_PATTERN = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

type CalendarDate = { year: number; month: number; day: number };

function parse(date: string): CalendarDate | null {
  const match = DATE_PATTERN.exec(date);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

function parseOrFail(date: string): CalendarDate {
  const parsed = parse(date);
  assert(parsed !== null, `not a calendar date: ${JSON.stringify(date)}`);
  return parsed;
}

function daysInMonth(year: number, month: number): number {
  return utcDate({ year, month: month + 1, day: 0 }).getUTCDate();
}

// Date.UTC reads years 0–99 as 1900–1999; setUTCFullYear takes the year as written.
function utcDate({ year, month, day }: CalendarDate): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date;
}

function format(date: Date): string {
  const year = String(date.getUTCFullYear()).padStart(4, '0');
  const month = String(date.getUTCMonth() + 1).padStart(2, '0');
  const day = String(date.getUTCDate()).padStart(2, '0');
  const formatted = `${year}-${month}-${day}`;
  assert(DATE_PATTERN.test(formatted));
  return formatted;
}

// True for `YYYY-MM-DD` naming a day that exists (no 2026-02-29, no 2026-04-31, no year 0).
export function isCalendarDate(date: string): boolean {
  const parsed = parse(date);
  return parsed !== null && parsed.year >= 1;
}

// The date `days` days after `date` (before it when negative).
export function addDays(date: string, days: number): string {
  assert(Number.isSafeInteger(days));
  const parsed = parseOrFail(date);
  return format(utcDate({ ...parsed, day: parsed.day + days }));
}

// Non-business days an operator added to the table, as `YYYY-MM-DD` dates.
export type AddedHolidays = ReadonlySet<string>;
export const NO_ADDED_HOLIDAYS: AddedHolidays = new Set();

export function isBusinessDay(date: string, added: AddedHolidays = NO_ADDED_HOLIDAYS): boolean {
  const weekday = utcDate(parseOrFail(date)).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !NON_BUSINESS_DATES.has(date) && !added.has(date);
}

export function nextBusinessDayOnOrAfter(
  date: string,
  added: AddedHolidays = NO_ADDED_HOLIDAYS,
): string {
  let candidate = date;
  for (let step = 0; step <= NON_BUSINESS_RUN_DAYS_MAX; step += 1) {
    if (isBusinessDay(candidate, added)) return candidate;
    candidate = addDays(candidate, 1);
  }
  assert.fail(`no business day within ${NON_BUSINESS_RUN_DAYS_MAX} days of ${date}`);
}

// The latest write date whose deadline (in the next month) is still a date of the year 9999:
// dates are written with four-digit years.
export const DEADLINE_WRITE_DATE_MAX = '9999-11-30';

// The last day a tax invoice with this write date may be issued.
export function issueDeadline(
  writeDate: string,
  added: AddedHolidays = NO_ADDED_HOLIDAYS,
): string {
  assert(writeDate <= DEADLINE_WRITE_DATE_MAX, `no four-digit deadline for ${writeDate}`);
  const { year, month } = parseOrFail(writeDate);
  const tenth = format(utcDate({ year, month: month + 1, day: ISSUE_DEADLINE_DAY_OF_MONTH }));
  const deadline = nextBusinessDayOnOrAfter(tenth, added);
  assert(deadline > writeDate);
  return deadline;
}

// The final VAT return deadline (확정신고기한) of the tax period of a supply written on
// `writeDate`: 25 July for the first period (January–June), 25 January of the next year for the
// second (July–December), 부가가치세법 §3 and §49; moved to the next business day by
// 국세기본법 §5 like every tax deadline. A tax invoice issued after its issue deadline but by this
// day is a late issuance (지연발급, 부가가치세법 §60②); after it, it is not issued at all. Null
// when the day would fall past the year 9999.
export function vatReturnDeadline(
  writeDate: string,
  added: AddedHolidays = NO_ADDED_HOLIDAYS,
): string | null {
  const { year, month } = parseOrFail(writeDate);
  const firstPeriod = month <= 6;
  if (!firstPeriod && year >= 9999) return null;
  const due = firstPeriod ? { year, month: 7, day: VAT_RETURN_DAY_OF_MONTH }
    : { year: year + 1, month: 1, day: VAT_RETURN_DAY_OF_MONTH };
  return nextBusinessDayOnOrAfter(format(utcDate(due)), added);
}

// The 25th of the month after the end of the year (of twelve months, ending with
// `yearEndMonth`, 1–12) in which `writeDate` falls, moved to the next business day: the late
// window of a supply whose period is a whole year. 25 January of the next year for a calendar
// year (yearEndMonth 12): a simplified taxpayer's VAT period (부가가치세법 §5①2, return by §67),
// an individual's business year (소득세법 §5); the month after a corporation's fiscal year
// (법인세법 §6) otherwise. A tax-exempt invoice (계산서) issued late by that day is a late
// issuance (법인세법 §75의8①4, 소득세법 §81의10①4). Null when the day would fall past the year
// 9999.
export function yearEndReturnDeadline(
  writeDate: string,
  yearEndMonth: number,
  added: AddedHolidays = NO_ADDED_HOLIDAYS,
): string | null {
  assert(Number.isInteger(yearEndMonth) && yearEndMonth >= 1 && yearEndMonth <= 12,
    'yearEndMonth is a month, 1 to 12');
  const { year, month } = parseOrFail(writeDate);
  const endYear = month <= yearEndMonth ? year : year + 1;
  // The 25th of the month after the year's last month: January of the next year after December.
  const due = yearEndMonth === 12 ? { year: endYear + 1, month: 1 }
    : { year: endYear, month: yearEndMonth + 1 };
  if (due.year > 9999) return null;
  return nextBusinessDayOnOrAfter(format(utcDate({ ...due, day: VAT_RETURN_DAY_OF_MONTH })),
    added);
}

// Today's date in Seoul: the date the tax authority reads write dates and deadlines in.
export function seoulDate(now: Date): string {
  const time = now.getTime();
  assert(Number.isFinite(time), 'seoulDate needs a valid Date');
  return format(new Date(time + SEOUL_OFFSET_MS));
}

// The last day whose holidays are known: the end of the table's last year, or of a later year in
// which an operator added a day. An operator who enters a year's announced holidays enters all
// of them, so one added day counts for its whole year.
export function holidaysKnownThrough(added: AddedHolidays): string {
  let year: number = HOLIDAY_TABLE_YEARS.last;
  for (const date of added) year = Math.max(year, parseOrFail(date).year);
  return `${String(year).padStart(4, '0')}-12-31`;
}
