import type { Locale } from './i18n/index.ts';

// How the dashboard writes numbers and times: amounts of money as `1,234,000원` and points as
// `1,234,000 P` (Korean grouping in both languages, as won are written everywhere), dates and
// times in Asia/Seoul whatever the server's zone.

const SEOUL = 'Asia/Seoul';

const GROUPED = new Intl.NumberFormat('ko-KR', { maximumFractionDigits: 0 });

export const formatNumber = (value: number) => GROUPED.format(value);
export const formatWon = (value: number) => `${GROUPED.format(value)}원`;
export const formatPoints = (value: number) => `${GROUPED.format(value)} P`;

const DATE = new Intl.DateTimeFormat('en-CA', { timeZone: SEOUL, year: 'numeric',
  month: '2-digit', day: '2-digit' });

// Seoul has kept UTC+9 all year since 1988; Intl's formatToParts took a tenth of a list page's
// time (50 rows, two times a row), this takes almost none.
const SEOUL_OFFSET_MS = 9 * 60 * 60 * 1000;
const SEOUL_FIXED_SINCE_MS = Date.UTC(1988, 11, 31);
const DATE_TIME = new Intl.DateTimeFormat('en-CA', { timeZone: SEOUL, year: 'numeric',
  month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

// `2026-11-27 19:05` in Seoul: one unambiguous shape in both languages.
export function formatDateTime(value: Date): string {
  const time = value.getTime();
  if (time >= SEOUL_FIXED_SINCE_MS) {
    const iso = new Date(time + SEOUL_OFFSET_MS).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  }
  const parts = Object.fromEntries(DATE_TIME.formatToParts(value).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

// The calendar date in Seoul, `YYYY-MM-DD`.
export const seoulDate = (value: Date) => DATE.format(value);

const WEEKDAYS: Record<Locale, string[]> = {
  ko: ['일', '월', '화', '수', '목', '금', '토'],
  en: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'],
};

// `2026-12-10 (목)` for a `YYYY-MM-DD` date.
export function formatDateWithWeekday(date: string, locale: Locale): string {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return `${date} (${WEEKDAYS[locale][weekday]})`;
}
