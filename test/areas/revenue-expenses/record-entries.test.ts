// Recording book entries of many scopes in one call (what a batch of transmitted tax invoices
// does): each scope's positions continue from its own counter, an unchanged invoice keeps its
// position, a changed one moves to the end, and the counts are per group.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  readFeed,
  recordEntries,
  recordEntriesOfScopes,
  type BookEntry,
} from '../../../src/areas/revenue-expenses/store.ts';
import type { Scope } from '../../../src/platform/scope.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

function entry(serial: number, direction: BookEntry['direction'], totalAmount = 11_000):
  BookEntry {
  return { direction, source: 'ISSUED_HERE', approvalNumber:
    `2026112441${String(serial).padStart(14, '0')}`, issuanceKey: `txi_${serial}`,
  writeDate: '2026-11-24', issueDate: '2026-11-24', counterpartNumber: '2208162517',
  counterpartName: '주식회사 상대', supplyCost: totalAmount - 1_000, tax: 1_000, totalAmount,
  taxType: 'TAXABLE', amendmentReason: null, originalApprovalNumber: null,
  status: 'TRANSMITTED', late: false };
}

async function positions(scope: Scope) {
  const rows = await readFeed(app.platform.database.db, scope, 0, 100, {});
  return rows.map((row) => [row.direction, row.approvalNumber.slice(-3), row.changeSequence]);
}

describe('recording the entries of many scopes at once', () => {
  it('gives each scope its own next positions and counts each group', async () => {
    const scopes = await Promise.all([1, 2, 3].map(async () => ({
      accountId: (await app.createAccount()).accountId, environment: 'test' as const })));
    const [first, second, third] = scopes as [Scope, Scope, Scope];
    const db = app.platform.database.db;
    // The first scope already has two positions.
    await db.transaction((tx) => recordEntries(tx, first, [entry(1, 'SALES'),
      entry(2, 'SALES')], new Date()));
    const counts = await db.transaction((tx) => recordEntriesOfScopes(tx, [
      // Unchanged, changed, new, and the new one twice.
      { scope: first, entries: [entry(1, 'SALES'), entry(2, 'SALES', 22_000),
        entry(3, 'SALES'), entry(3, 'SALES')] },
      { scope: second, entries: [entry(3, 'PURCHASE'), entry(4, 'PURCHASE')] },
      { scope: third, entries: [] },
    ], new Date()));
    expect(counts).toEqual([{ inserted: 1, updated: 1, unchanged: 1 },
      { inserted: 2, updated: 0, unchanged: 0 }, { inserted: 0, updated: 0, unchanged: 0 }]);
    expect(await positions(first)).toEqual([['SALES', '001', 1], ['SALES', '002', 3],
      ['SALES', '003', 4]]);
    expect(await positions(second)).toEqual([['PURCHASE', '003', 1], ['PURCHASE', '004', 2]]);
    expect(await positions(third)).toEqual([]);
    // The counters moved on: a later write continues after them.
    await db.transaction((tx) => recordEntriesOfScopes(tx, [
      { scope: second, entries: [entry(5, 'PURCHASE')] },
      { scope: first, entries: [entry(5, 'SALES')] }], new Date()));
    expect((await positions(first)).at(-1)).toEqual(['SALES', '005', 5]);
    expect((await positions(second)).at(-1)).toEqual(['PURCHASE', '005', 3]);
  });
});

describe('the sales collected from the tax portal, for the bank matching hints', () => {
  it('are the scope\'s collected sales of the totals in the date range, oldest first', async () => {
    const scope = { accountId: (await app.createAccount()).accountId,
      environment: 'test' as const };
    const other = { ...scope, environment: 'live' as const };
    const collected = (serial: number, writeDate: string, totalAmount = 11_000,
      direction: BookEntry['direction'] = 'SALES'): BookEntry => ({ ...entry(serial, direction,
      totalAmount), source: 'COLLECTED', issuanceKey: null, writeDate });
    const db = app.platform.database.db;
    await db.transaction((tx) => recordEntries(tx, scope, [
      collected(11, '2026-11-20'), collected(12, '2026-11-05'),
      collected(13, '2026-11-06', 22_000), collected(14, '2026-11-07', 11_000, 'PURCHASE'),
      collected(15, '2026-10-01'), entry(16, 'SALES')], new Date()));
    await db.transaction((tx) => recordEntries(tx, other, [collected(17, '2026-11-10')],
      new Date()));
    const found = await app.revenueExpenses.collectedSalesByTotals(scope, [11_000],
      '2026-11-01', '2026-11-30');
    expect(found.map((row) => [row.approvalNumber.slice(-2), row.writeDate])).toEqual([
      ['12', '2026-11-05'], ['11', '2026-11-20']]);
    expect(found[0]).toMatchObject({ totalAmount: 11_000, counterpartName: '주식회사 상대' });
    expect(await app.revenueExpenses.collectedSalesByTotals(scope, [], '2026-11-01',
      '2026-11-30')).toEqual([]);
  });
});
