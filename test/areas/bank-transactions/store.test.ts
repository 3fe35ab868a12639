// store.upsertLines, the dedup rule of docs/bank-transactions.md § Identity: a statement line is
// (bank account, booking day, the bank's sequence in the day). The same content is unchanged, new
// content at the same place updates the row and keeps its id, twins at two places are two rows,
// and nothing crosses bank accounts (run this file with DATABASE_URL for PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as store from '../../../src/areas/bank-transactions/store.ts';
import type { BankStatementLine } from '../../../src/upstream/bank-accounts/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

let app: TestApp;
const scope = { accountId: 'acc_store_test', environment: 'test' as const };
const at = new Date('2026-11-20T01:00:00.000Z');
const later = new Date('2026-11-21T01:00:00.000Z');

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.platform.database.db;
const twin = (sequence: number): BankStatementLine => ({ bookedDate: '2026-11-20', sequence,
  bookedTime: '10:15:00', direction: 'DEPOSIT', amount: 55_000, balanceAfter: 1_000_000 +
    sequence * 55_000, counterpartyName: '주식회사 한빛상사', memo: '인터넷입금',
  branch: '인터넷뱅킹' });
const upsert = (account: string, lines: BankStatementLine[], when = at) =>
  db().transaction((tx) => store.upsertLines(tx, scope, account, lines, when));
const rows = (account: string) => db().transaction((tx) =>
  store.readTransactions(tx, scope, account, null, 100, {}));

describe('upsertLines', () => {
  it('keeps twins apart, leaves the same lines alone and corrects in place', async () => {
    const created = await upsert('bac_store_a', [twin(1), twin(2)]);
    expect(created).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    const [first, second] = await rows('bac_store_a');
    expect(created.createdIds).toEqual([first!.id, second!.id]);
    expect(first!.id).not.toBe(second!.id);

    expect(await upsert('bac_store_a', [twin(1), twin(2)], later))
      .toMatchObject({ created: 0, updated: 0, unchanged: 2, createdIds: [] });
    expect(await rows('bac_store_a')).toEqual([first, second]);

    const corrected = { ...twin(2), memo: '인터넷입금(정정)' };
    expect(await upsert('bac_store_a', [twin(1), corrected, twin(3)], later))
      .toMatchObject({ created: 1, updated: 1, unchanged: 1 });
    const after = await rows('bac_store_a');
    expect(after.map((row) => row.sequence)).toEqual([1, 2, 3]);
    expect(after[0]).toEqual(first);
    expect(after[1]).toMatchObject({ id: second!.id, memo: '인터넷입금(정정)',
      changedAt: later, createdAt: second!.createdAt });
  });

  it('keeps the same line of another bank account apart', async () => {
    expect(await upsert('bac_store_b', [twin(1)])).toMatchObject({ created: 1 });
    expect(await rows('bac_store_b')).toHaveLength(1);
    expect(await rows('bac_store_a')).toHaveLength(3);
  });
});
