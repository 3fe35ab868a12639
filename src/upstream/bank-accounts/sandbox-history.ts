import { createHash } from 'node:crypto';
import { addDays, isBusinessDay } from '../../domain/business-days.ts';
import type { BankStatementLine } from './index.ts';

// The statement of a sandbox bank account (docs/sandbox.md § Bank transactions), made from the
// bank code and the account number alone, so the same account always has the same history, and
// from the clock: a line exists once its booking time has passed, so the history grows with
// time and a later sync finds new lines.
//
//   - The history starts on HISTORY_START with an opening balance drawn from the seed. Each
//     business day holds 3 to 7 lines (weekends and holidays 0 to 2): card settlements from card
//     companies, transfers from customers and to suppliers with Korean business names, transfer
//     fees, and on the 25th (or the business day before it) the salaries. Account numbers that
//     start with 777 are busy accounts of 100 to 130 lines a day, every day.
//   - Every seventh day holds legitimate twins: two deposits of the same customer, the same
//     amount, booked in the same minute.
//   - The bank corrects one line a business day: its first line, a transfer from a customer, is
//     listed with the sender's name as the bank abbreviated it until 24 hours after its
//     booking, then with the full name and the memo 타행이체(정정). Amounts and balances never
//     change.
//   - Banks 045 (새마을금고) and 048 (신협) list lines without their time.

const HISTORY_START = '2025-01-01';
const SEOUL_OFFSET_MS = 9 * 3_600_000;
const CORRECTION_DELAY_MS = 24 * 3_600_000;
const TWIN_EVERY_DAYS = 7;
const DATES_WITHOUT_TIME = new Set(['045', '048']);

// Customers are companies (주식회사): the abbreviated name of a corrected line always differs.
const CUSTOMERS = ['주식회사 한빛상사', '(주)대한물산', '주식회사 청솔유통', '주식회사 다온테크',
  '(주)새벽소프트', '(주)누리식품', '주식회사 가람인쇄', '주식회사 온길물류', '(주)바른건설',
  '주식회사 하늘정보통신'];
const SUPPLIERS = ['(주)서울종합상사', '주식회사 미래포장', '동해물류', '(주)한결전자',
  '푸른사무기기', '주식회사 세움인테리어'];
const CARD_COMPANIES = ['신한카드', 'KB국민카드', '삼성카드', '현대카드', '롯데카드', 'BC카드'];
const EMPLOYEES = ['김민준', '이서연', '박지호', '최유진', '정하준'];
const BRANCHES = ['본점영업부', '강남역지점', '여의도지점', '판교테크노밸리지점', '인터넷뱅킹',
  '모바일뱅킹'];

function digest(...parts: string[]): Buffer {
  return createHash('sha256').update(parts.join('\u0000')).digest();
}

// mulberry32: a small, fast generator; one per day, seeded from the account and the day.
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!,
  };
}

// The name the bank shows until it corrects the line: its first eight characters, without the
// legal form, the way transfer memos are cut.
const abbreviated = (name: string) =>
  name.replace(/^주식회사 |^\(주\)/, '').slice(0, 8);

type Draft = Omit<BankStatementLine, 'bookedDate' | 'sequence' | 'bookedTime' | 'balanceAfter'>
  & { second: number; corrected?: { counterpartyName: string; memo: string } };

function dayDrafts(seedKey: string, date: string, busy: boolean, dayIndex: number): Draft[] {
  const random = generator(digest(seedKey, date).readUInt32BE(0));
  const business = isBusinessDay(date);
  const count = busy ? random.int(100, 130) : business ? random.int(3, 7) : random.int(0, 2);
  const open = busy ? 0 : 9 * 3600;
  const close = busy ? 86_399 : 18 * 3600;
  const drafts: Draft[] = [];
  let correctedOne = false;
  for (let index = 0; index < count; index += 1) {
    // The first line of a business day is a customer's transfer in its first ten minutes: the
    // one the bank corrects.
    const opening = index === 0 && business;
    const second = opening ? random.int(open, open + 600) : random.int(open + 601, close);
    const kind = opening ? 0.5 : random.next();
    const branch = random.pick(BRANCHES);
    if (kind < 0.3 && business) {
      drafts.push({ second, direction: 'DEPOSIT', amount: random.int(50, 2_000) * 1_000,
        counterpartyName: random.pick(CARD_COMPANIES), memo: '카드대금입금', branch });
    } else if (kind < 0.65) {
      const name = random.pick(CUSTOMERS);
      const amount = random.int(10, 5_000) * 1_100;
      if (!correctedOne) {
        correctedOne = true;
        drafts.push({ second, direction: 'DEPOSIT', amount, counterpartyName: abbreviated(name),
          memo: '타행이체', branch, corrected: { counterpartyName: name, memo: '타행이체(정정)' } });
      } else {
        drafts.push({ second, direction: 'DEPOSIT', amount, counterpartyName: name,
          memo: '인터넷입금', branch });
      }
    } else if (kind < 0.9) {
      drafts.push({ second, direction: 'WITHDRAWAL', amount: random.int(10, 3_000) * 1_000,
        counterpartyName: random.pick(SUPPLIERS), memo: '인터넷이체', branch });
      drafts.push({ second, direction: 'WITHDRAWAL', amount: random.pick([500, 1_000]),
        counterpartyName: null, memo: '이체수수료', branch });
      index += 1;
    } else {
      drafts.push({ second, direction: 'WITHDRAWAL', amount: random.int(1, 300) * 1_000,
        counterpartyName: random.pick(['한국전력공사', 'KT', '서울도시가스', '국민건강보험공단']),
        memo: '자동이체', branch: null });
    }
  }
  if (date === salaryDay(date)) {
    for (const employee of EMPLOYEES) {
      drafts.push({ second: 10 * 3600, direction: 'WITHDRAWAL',
        amount: random.int(2_800, 4_500) * 1_000, counterpartyName: employee, memo: '급여',
        branch: '본점영업부' });
    }
  }
  if (dayIndex % TWIN_EVERY_DAYS === 3) {
    const name = random.pick(CUSTOMERS);
    const amount = random.int(10, 900) * 1_100;
    const second = Math.floor(random.int(open + 660, close) / 60) * 60;
    for (let twin = 0; twin < 2; twin += 1) {
      drafts.push({ second, direction: 'DEPOSIT', amount, counterpartyName: name,
        memo: '인터넷입금', branch: '인터넷뱅킹' });
    }
  }
  // Booking order: by time, and the order drawn for lines of the same second.
  return drafts.map((draft, order) => ({ draft, order }))
    .sort((a, b) => a.draft.second - b.draft.second || a.order - b.order)
    .map(({ draft }) => draft);
}

// Salaries are paid on the 25th, or on the last business day before it.
function salaryDay(date: string): string {
  let day = `${date.slice(0, 8)}25`;
  while (!isBusinessDay(day)) day = addDays(day, -1);
  return day;
}

const clock = (second: number) => [Math.floor(second / 3600), Math.floor(second / 60) % 60,
  second % 60].map((part) => String(part).padStart(2, '0')).join(':');

// The instant a line of `date` at `second` (Korea) was booked.
const bookedInstant = (date: string, second: number) =>
  Date.parse(`${date}T00:00:00Z`) - SEOUL_OFFSET_MS + second * 1_000;

export type SandboxStatement = { balance: number; lines: BankStatementLine[] };

// The lines booked from `from` to `to` (Korea days, both included) and booked by `now`, and the
// balance at `now`.
export function sandboxStatement(bankCode: string, accountNumber: string, from: string,
  to: string, now: Date): SandboxStatement {
  const seedKey = `${bankCode}:${accountNumber}`;
  const busy = accountNumber.startsWith('777');
  const withTime = !DATES_WITHOUT_TIME.has(bankCode);
  let balance = 5_000_000 + (digest(seedKey, 'opening').readUInt32BE(0) % 45_000) * 1_000;
  const lines: BankStatementLine[] = [];
  const nowMs = now.getTime();
  for (let date = HISTORY_START, dayIndex = 0; ; date = addDays(date, 1), dayIndex += 1) {
    if (bookedInstant(date, 0) > nowMs) break;
    const listed = date >= from && date <= to;
    let sequence = 0;
    for (const draft of dayDrafts(seedKey, date, busy, dayIndex)) {
      const bookedMs = bookedInstant(date, draft.second);
      if (bookedMs > nowMs) break;
      // Withdrawals never take the balance below zero: the bank refuses them.
      if (draft.direction === 'WITHDRAWAL' && draft.amount > balance) continue;
      balance += draft.direction === 'DEPOSIT' ? draft.amount : -draft.amount;
      sequence += 1;
      if (!listed) continue;
      const corrected = draft.corrected !== undefined && nowMs >= bookedMs + CORRECTION_DELAY_MS;
      lines.push({
        bookedDate: date, sequence, bookedTime: withTime ? clock(draft.second) : null,
        direction: draft.direction, amount: draft.amount, balanceAfter: balance,
        counterpartyName: corrected ? draft.corrected!.counterpartyName : draft.counterpartyName,
        memo: corrected ? draft.corrected!.memo : draft.memo, branch: draft.branch,
      });
    }
  }
  return { balance, lines };
}
