// The sandbox bank's statements (docs/sandbox.md § Bank transactions): the same account always
// has the same history, it grows with the clock, balances chain, one line a day is corrected
// after 24 hours, every seventh day holds legitimate twins, and the documented failing accounts
// fail.
import { describe, expect, it } from 'vitest';
import { sandboxStatement } from '../../../src/upstream/bank-accounts/sandbox-history.ts';
import { createSandboxBankAccountPortal } from '../../../src/upstream/bank-accounts/sandbox.ts';

const NOW = new Date('2026-11-20T03:00:00Z'); // 12:00 in Korea
const statement = (now = NOW, from = '2026-10-01', to = '2026-11-20', number = '110123456789') =>
  sandboxStatement('004', number, from, to, now);

describe('sandbox history', () => {
  it('is deterministic for an account and differs across accounts', () => {
    expect(statement()).toEqual(statement());
    expect(statement().lines).not.toEqual(statement(NOW, '2026-10-01', '2026-11-20',
      '110123456788').lines);
    expect(sandboxStatement('088', '110123456789', '2026-10-01', '2026-11-20', NOW))
      .not.toEqual(statement());
  });

  it('looks like a business account: card settlements, transfers, fees, salaries', () => {
    const { lines } = statement();
    const memos = new Set(lines.map((line) => line.memo));
    for (const memo of ['카드대금입금', '인터넷입금', '인터넷이체', '이체수수료', '급여']) {
      expect(memos, memo).toContain(memo);
    }
    expect(lines.some((line) => /카드$/.test(line.counterpartyName ?? ''))).toBe(true);
    expect(lines.every((line) => line.amount > 0 && Number.isInteger(line.amount))).toBe(true);
    expect(lines.every((line) => /^\d{2}:\d{2}:\d{2}$/.test(line.bookedTime!))).toBe(true);
  });

  it('lists lines in booking order with sequences from 1 per day and chained balances', () => {
    const { lines, balance } = statement();
    const byDay = new Map<string, number[]>();
    for (const line of lines) byDay.set(line.bookedDate, [...(byDay.get(line.bookedDate) ?? []),
      line.sequence]);
    for (const sequences of byDay.values()) {
      expect(sequences).toEqual(sequences.map((_, index) => index + 1));
    }
    for (let index = 1; index < lines.length; index += 1) {
      const line = lines[index]!;
      const signed = line.direction === 'DEPOSIT' ? line.amount : -line.amount;
      expect(line.balanceAfter).toBe(lines[index - 1]!.balanceAfter! + signed);
      expect(line.balanceAfter).toBeGreaterThanOrEqual(0);
    }
    expect(balance).toBe(lines.at(-1)!.balanceAfter);
  });

  it('grows with time: later the same days hold the same lines and more', () => {
    const early = statement(NOW, '2026-11-19', '2026-11-20');
    const later = statement(new Date(NOW.getTime() + 6 * 3_600_000), '2026-11-19', '2026-11-20');
    expect(later.lines.length).toBeGreaterThan(early.lines.length);
    const key = (line: { bookedDate: string; sequence: number }) =>
      `${line.bookedDate}:${line.sequence}`;
    const laterByKey = new Map(later.lines.map((line) => [key(line), line]));
    for (const line of early.lines) {
      expect(laterByKey.get(key(line))?.amount, key(line)).toBe(line.amount);
    }
    // Nothing is booked after the clock.
    const todays = early.lines.filter((line) => line.bookedDate === '2026-11-20');
    expect(todays.every((line) => line.bookedTime! <= '12:00:00')).toBe(true);
  });

  it('corrects one line a business day 24 hours after booking, keeping its amount and place',
    () => {
    // 2026-11-19 18:30 in Korea: every line of that Thursday is booked, none is corrected yet.
    const evening = new Date('2026-11-19T09:30:00Z');
    const before = statement(evening, '2026-11-19', '2026-11-19');
    const after = statement(new Date(evening.getTime() + 86_400_000), '2026-11-19', '2026-11-19');
    const changed = after.lines.filter((line, index) =>
      JSON.stringify(line) !== JSON.stringify(before.lines[index]));
    expect(changed).toHaveLength(1);
    const [corrected] = changed;
    const original = before.lines[corrected!.sequence - 1]!;
    expect(corrected!.memo).toBe('타행이체(정정)');
    expect(original.memo).toBe('타행이체');
    expect(corrected!.counterpartyName).toContain(original.counterpartyName!);
    expect(corrected!.amount).toBe(original.amount);
    expect(corrected!.balanceAfter).toBe(original.balanceAfter);
  });

  it('holds legitimate twins: same amount, minute and sender, two sequences', () => {
    const { lines } = statement();
    const twins = lines.filter((line, index) => index > 0 && (() => {
      const previous = lines[index - 1]!;
      return previous.bookedDate === line.bookedDate && previous.amount === line.amount &&
        previous.counterpartyName === line.counterpartyName &&
        previous.bookedTime!.slice(0, 5) === line.bookedTime!.slice(0, 5);
    })());
    expect(twins.length).toBeGreaterThanOrEqual(6);
  });

  it('gives no time for banks 045 and 048, and a hundred lines a day for busy accounts', () => {
    const { lines } = sandboxStatement('045', '110123456789', '2026-11-01', '2026-11-10', NOW);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line.bookedTime === null)).toBe(true);
    const busy = sandboxStatement('004', '7771234567', '2026-11-10', '2026-11-10', NOW);
    expect(busy.lines.length).toBeGreaterThanOrEqual(100);
  });
});

describe('sandbox bank', () => {
  const bank = createSandboxBankAccountPortal({ now: () => NOW });
  const credentials = (accountNumber: string, password = 'secret') =>
    ({ bankCode: '004', accountNumber, userId: 'owner', password });
  const range = { from: '2026-11-01', to: '2026-11-20' };

  it('lists the history with the balance and the holder', async () => {
    const answer = await bank.transactions(credentials('110123456789'), range,
      new AbortController().signal);
    expect(answer).toMatchObject({ kind: 'listed', holderName: '샌드박스 예금주' });
    if (answer.kind !== 'listed') return;
    expect(answer.lines).toEqual(sandboxStatement('004', '110123456789', range.from, range.to,
      NOW).lines);
  });

  it('fails the documented accounts', async () => {
    const signal = new AbortController().signal;
    expect(await bank.transactions(credentials('110123456789', 'wrong-password'), range, signal))
      .toMatchObject({ kind: 'failed', code: 'INVALID_CREDENTIALS' });
    expect(await bank.transactions(credentials('1101230000'), range, signal))
      .toMatchObject({ kind: 'failed', code: 'ACCOUNT_NOT_FOUND' });
    expect(await bank.login(credentials('1101239001'), signal))
      .toMatchObject({ kind: 'connected' });
    expect(await bank.transactions(credentials('1101239001'), range, signal))
      .toMatchObject({ kind: 'failed', code: 'INVALID_CREDENTIALS' });
    const started = Date.now();
    expect(await bank.transactions(credentials('1101239002'), range, AbortSignal.timeout(100)))
      .toEqual({ kind: 'unavailable' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });
});
