// The hand-kept holiday table against the Korean rules of the `date-holidays` package, for every
// year the table covers. The package is a second, independent reading of the same law; where it
// and the table disagree, the table is right for tax deadlines, and each difference is kept here
// on purpose (docs/tax-invoices.md § Holidays the table does not know):
//
// - 설날: the package makes the holiday 설날 and the two days after it; the law makes it the day
//   before, 설날 and the day after (공휴일에 관한 법률 §2). So the package lacks each 설날 전날 and
//   has the day after 설날 다음 날 (a substitute day in the table in 2024 and 2027, where both
//   agree).
// - 1 May (근로자의 날 / 노동절) is not a public holiday, but 국세기본법 §5 moves a tax deadline
//   that falls on it, so the table lists it.
// - Election days (공직선거법 §34) and designated days (임시공휴일) are not in the package.
//
// Everything else — the solar holidays, the lunar dates of 설날, 부처님오신날 and 추석, every
// substitute day and 제헌절 from 2026 — agrees. A difference not listed below fails the test:
// either the table or the package changed, and the change must be checked against the sources
// in src/domain/business-days.ts.
import Holidays from 'date-holidays';
import { describe, expect, it } from 'vitest';
import { HOLIDAY_TABLE_YEARS, listNonBusinessDays } from '../../src/domain/business-days.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const SEOUL_OFFSET_MS = 9 * 60 * 60 * 1000;

const ONLY_IN_TABLE = [
  // 설날 전날
  '2024-02-09', '2025-01-28', '2026-02-16', '2027-02-06', '2028-01-26',
  // 1 May
  '2024-05-01', '2025-05-01', '2026-05-01', '2027-05-01', '2028-05-01',
  // Elections
  '2024-04-10', '2025-06-03', '2026-06-03', '2028-04-12',
  // Designated days
  '2024-10-01', '2025-01-27',
].sort();

// The second day after 설날, where it is not a substitute day.
const ONLY_IN_PACKAGE = ['2025-01-31', '2026-02-19', '2028-01-29'];

// The package's public holidays of the covered years, one date per day of each (설날 and 추석
// span three), as Seoul dates.
function packageHolidays(): Set<string> {
  const calendar = new Holidays('KR');
  const dates = new Set<string>();
  for (let year = HOLIDAY_TABLE_YEARS.first; year <= HOLIDAY_TABLE_YEARS.last; year += 1) {
    for (const holiday of calendar.getHolidays(year)) {
      if (holiday.type !== 'public') continue;
      for (let time = holiday.start.getTime(); time < holiday.end.getTime(); time += DAY_MS) {
        dates.add(new Date(time + SEOUL_OFFSET_MS).toISOString().slice(0, 10));
      }
    }
  }
  return dates;
}

describe('the holiday table against date-holidays', () => {
  it('differs only by the days kept on purpose', () => {
    const table = new Set(listNonBusinessDays().map((day) => day.date));
    const reference = packageHolidays();
    expect(reference.size).toBeGreaterThan(60);
    expect([...table].filter((date) => !reference.has(date)).sort()).toEqual(ONLY_IN_TABLE);
    expect([...reference].filter((date) => !table.has(date)).sort()).toEqual(ONLY_IN_PACKAGE);
  });
});
