// The business-day calendar and the issue deadline: weekends and the days of
// the holiday table are not business days, the deadline is the 10th of the month after the write
// date moved forward past non-business days, and dates are computed without time zone drift.
// The table itself is checked for shape: inside the covered years, sorted, unique, with every
// substitute day on a weekday, and with the lunar holidays where the Korean calendar puts them.
import { describe, expect, it } from 'vitest';
import {
  addDays,
  HOLIDAY_TABLE_YEARS,
  isBusinessDay,
  isCalendarDate,
  issueDeadline,
  listNonBusinessDays,
  nextBusinessDayOnOrAfter,
  seoulDate,
} from '../../src/domain/business-days.ts';

const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();

describe('the holiday table', () => {
  const days = listNonBusinessDays();

  it('covers 2024 to 2028 and holds only dates inside those years', () => {
    expect(HOLIDAY_TABLE_YEARS).toEqual({ first: 2024, last: 2028 });
    for (const { date } of days) {
      expect(isCalendarDate(date)).toBe(true);
      const year = Number(date.slice(0, 4));
      expect(year).toBeGreaterThanOrEqual(HOLIDAY_TABLE_YEARS.first);
      expect(year).toBeLessThanOrEqual(HOLIDAY_TABLE_YEARS.last);
    }
  });

  it('lists each date once, in order', () => {
    const dates = days.map(({ date }) => date);
    expect(new Set(dates).size).toBe(dates.length);
    expect([...dates].sort()).toEqual(dates);
  });

  it('puts every substitute and designated holiday on a weekday', () => {
    const moved = days.filter(({ name }) => /대체공휴일|임시공휴일/.test(name));
    expect(moved.length).toBeGreaterThan(15);
    for (const { date } of moved) expect([0, 6]).not.toContain(weekday(date));
  });

  it('has the fixed-date holidays of every covered year', () => {
    const dates = new Set(days.map(({ date }) => date));
    for (let year = HOLIDAY_TABLE_YEARS.first; year <= HOLIDAY_TABLE_YEARS.last; year += 1) {
      for (const monthDay of ['01-01', '03-01', '05-01', '05-05', '06-06', '08-15', '10-03',
        '10-09', '12-25']) {
        expect(dates.has(`${year}-${monthDay}`), `${year}-${monthDay}`).toBe(true);
      }
    }
  });

  it.each([
    // Seollal: three days around 음력 1/1; 2027 and 2028 a day after the Chinese New Year.
    ['2024-02-10', '설날'], ['2025-01-29', '설날'], ['2026-02-17', '설날'],
    ['2027-02-07', '설날'], ['2028-01-27', '설날'],
    ['2024-05-15', '부처님오신날'], ['2026-05-24', '부처님오신날'], ['2027-05-13', '부처님오신날'],
    ['2028-05-02', '부처님오신날'],
    ['2024-09-17', '추석'], ['2025-10-06', '추석'], ['2026-09-25', '추석'], ['2027-09-15', '추석'],
    ['2028-10-03', '추석, 개천절'],
  ])('names %s %s', (date, name) => {
    expect(days.find((day) => day.date === date)?.name).toBe(name);
  });

  // Recomputes the substitute days from the holidays by the rule of 관공서의 공휴일에 관한 규정
  // §3, so that a substitute day typed into the table by hand cannot disagree with it.
  it('has exactly the substitute days the rule gives', () => {
    const lunarGroups = ['설날', '추석'];
    const weekendRule = ['삼일절', '제헌절', '광복절', '개천절', '한글날', '어린이날',
      '부처님오신날', '성탄절'];
    const holidays = days.filter(({ name }) => !name.startsWith('대체공휴일'));
    const taken = new Set(holidays.map(({ date }) => date));
    const expected: string[] = [];
    for (const { date, name } of holidays) {
      const parts = name.split(', ');
      const ruled = parts.filter((part) => lunarGroups.some((group) => part.startsWith(group)) ||
        weekendRule.includes(part));
      const day = weekday(date);
      const onWeekend = ruled.some((part) =>
        day === 0 || (day === 6 && weekendRule.includes(part)));
      const displacedCount = (onWeekend ? 1 : 0) + Math.max(0, parts.length - 1);
      // A displaced Seollal or Chuseok day is made up after the last day of its three.
      let candidate = date;
      while (holidays.some((holiday) => holiday.date === addDays(candidate, 1) &&
        lunarGroups.some((group) => holiday.name.startsWith(group)) &&
        lunarGroups.some((group) => name.startsWith(group)))) candidate = addDays(candidate, 1);
      for (let count = 0; count < displacedCount; count += 1) {
        do candidate = addDays(candidate, 1);
        while ([0, 6].includes(weekday(candidate)) || taken.has(candidate));
        taken.add(candidate);
        expected.push(candidate);
      }
    }
    const substitutes = days.filter(({ name }) => name.startsWith('대체공휴일'));
    expect(substitutes.map(({ date }) => date)).toEqual(expected.sort());
  });

  it.each([
    '2024-04-10', '2025-06-03', '2026-06-03', '2028-04-12',
  ])('makes the election day %s a holiday', (date) => {
    expect(isBusinessDay(date)).toBe(false);
  });
});

describe('isBusinessDay', () => {
  it.each([
    ['2026-11-20', true], // Friday
    ['2026-11-21', false], // Saturday
    ['2026-11-22', false], // Sunday
    ['2026-10-05', false], // Monday, substitute for 개천절 on a Saturday
    ['2026-09-24', false], // Thursday, the day before Chuseok
    ['2026-09-28', true], // Monday: Chuseok ended on a Saturday, which moves nothing
    ['2025-01-27', false], // Monday designated a holiday
    ['2025-10-10', true], // Friday proposed as a holiday and not designated
    ['2026-05-01', false], // 노동절: tax deadlines move past it (국세기본법 §5)
    ['2026-06-05', true], // Friday before 현충일 on a Saturday, which has no substitute
  ])('returns %s → %s', (date, expected) => {
    expect(isBusinessDay(date)).toBe(expected);
  });

  it('counts only weekends outside the covered years', () => {
    expect(isBusinessDay('2029-01-01')).toBe(true); // Monday, New Year's Day not in the table
    expect(isBusinessDay('2023-12-25')).toBe(true);
    expect(isBusinessDay('2029-01-06')).toBe(false); // Saturday
  });

  it('refuses a string that is not a calendar date', () => {
    expect(() => isBusinessDay('2026-02-29')).toThrow(/not a calendar date/);
    expect(() => isBusinessDay('2026-1-05')).toThrow(/not a calendar date/);
  });
});

describe('nextBusinessDayOnOrAfter', () => {
  it.each([
    ['2026-11-20', '2026-11-20'],
    ['2026-11-21', '2026-11-23'],
    ['2025-10-03', '2025-10-10'], // the seven-day Chuseok run of 2025
    ['2028-09-30', '2028-10-06'], // Chuseok on 개천절 with its substitute day
    ['2027-12-25', '2027-12-28'],
  ])('moves %s to %s', (date, expected) => {
    expect(nextBusinessDayOnOrAfter(date)).toBe(expected);
  });
});

describe('issueDeadline', () => {
  it.each([
    ['2026-11-20', '2026-12-10', 'exactly on the 10th, a Thursday'],
    ['2026-11-01', '2026-12-10', 'the first of the month has the same deadline'],
    ['2026-11-30', '2026-12-10', 'the last of the month has the same deadline'],
    ['2026-09-15', '2026-10-12', 'past the weekend of Saturday 10-10'],
    ['2026-12-31', '2027-01-11', 'into the next year, past Sunday 01-10'],
    ['2024-01-31', '2024-02-13', 'past Seollal and its substitute day'],
    ['2027-09-01', '2027-10-12', 'past Sunday and the substitute day for 한글날'],
    ['2028-02-29', '2028-03-10', 'from a leap day'],
    ['2029-01-15', '2029-02-12', 'outside the table: past the weekend only'],
  ])('moves %s to %s (%s)', (writeDate, expected) => {
    expect(issueDeadline(writeDate)).toBe(expected);
    expect(isBusinessDay(expected)).toBe(true);
  });
});

describe('addDays and isCalendarDate', () => {
  it('crosses months, years and leap days', () => {
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2027-02-28', 1)).toBe('2027-03-01');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
  });

  it('keeps years below 100 as written', () => {
    expect(addDays('0099-12-31', 1)).toBe('0100-01-01');
  });

  it.each([
    ['2026-02-28', true], ['2028-02-29', true], ['2026-02-29', false], ['2100-02-29', false],
    ['2026-04-31', false], ['2026-13-01', false], ['2026-00-10', false], ['2026-1-1', false],
    ['2026-01-01T00:00:00Z', false], ['0000-01-01', false], ['0001-01-01', true],
  ])('isCalendarDate(%s) is %s', (date, expected) => {
    expect(isCalendarDate(date)).toBe(expected);
  });
});

describe('seoulDate', () => {
  it('turns to the next day at 15:00 UTC, Seoul midnight', () => {
    expect(seoulDate(new Date('2026-11-21T14:59:59.999Z'))).toBe('2026-11-21');
    expect(seoulDate(new Date('2026-11-21T15:00:00.000Z'))).toBe('2026-11-22');
    expect(seoulDate(new Date('2026-12-31T15:00:00.000Z'))).toBe('2027-01-01');
  });

  it('refuses an invalid Date', () => {
    expect(() => seoulDate(new Date('not a date'))).toThrow(/valid Date/);
  });
});
