// The matching hints rule (docs/bank-transactions.md § Matching hints): a deposit names the
// sales invoices of its amount (issued here, or collected from the tax portal into the books)
// whose recipient is the sender once the legal form and spaces are left out, written on its day
// or in the year before, or for one issued as paid (영수) up to a month after it; withdrawals and
// nameless deposits never.
import { describe, expect, it } from 'vitest';
import {
  matchDeposits,
  normalizedName,
  type SalesByTotals,
} from '../../../src/areas/bank-transactions/matching.ts';
import type { TransactionRow } from '../../../src/areas/bank-transactions/store.ts';

const scope = { accountId: 'acc_1', environment: 'test' as const };

function row(id: string, fields: Partial<TransactionRow>): TransactionRow {
  return { id, bankAccountId: 'bac_1', ...scope, bookedDate: '2026-11-20', sequence: 1,
    bookedTime: null, direction: 'DEPOSIT', amount: 110_000, balanceAfter: null,
    counterpartyName: '한빛상사', memo: null, branch: null, contentHash: '',
    changedAt: new Date(), createdAt: new Date(), ...fields };
}

const invoice = (issuanceKey: string, recipientName: string, writeDate = '2026-11-10',
  totalAmount = 110_000, purpose: 'RECEIPT' | 'CLAIM' = 'CLAIM') => ({ issuanceKey,
  totalAmount, writeDate, recipientName, purpose, approvalNumber: `${issuanceKey}-nts` });
const noCollected = async () => [];
const issuedOnly = (issued: SalesByTotals['issued']): SalesByTotals =>
  ({ issued, collected: noCollected });

describe('normalizedName', () => {
  it('leaves out the legal form and spaces', () => {
    for (const name of ['주식회사 한빛상사', '(주)한빛상사', '㈜ 한빛상사', '한빛 상사',
      '한빛상사 주식회사']) {
      expect(normalizedName(name), name).toBe('한빛상사');
    }
    expect(normalizedName('유한회사 ABC')).toBe('abc');
    expect(normalizedName('한빛상회')).not.toBe('한빛상사');
  });
});

describe('matchDeposits', () => {
  it('names the invoices of the amount and sender, in the window', async () => {
    const asked: unknown[] = [];
    const matches = await matchDeposits(issuedOnly(async (...args) => {
      asked.push(args);
      return [invoice('txi_a', '주식회사 한빛상사'), invoice('txi_b', '(주)대한물산'),
        invoice('txi_c', '한빛상사', '2026-11-21'), invoice('txi_d', '한빛상사', '2025-11-18'),
        invoice('txi_e', '한빛상사', '2026-11-01', 220_000)];
    }), scope, [row('btx_1', {}), row('btx_2', { direction: 'WITHDRAWAL' }),
      row('btx_3', { counterpartyName: null }), row('btx_4', { amount: 220_000 })]);
    expect(asked).toEqual([[{ scope, totals: [110_000, 220_000], from: '2025-11-19',
      to: '2026-12-21' }]]);
    expect(matches.get('btx_1')).toEqual([{ source: 'ISSUED_HERE', issuanceKey: 'txi_a',
      approvalNumber: 'txi_a-nts', totalAmount: 110_000, writeDate: '2026-11-10' }]);
    expect(matches.get('btx_4')?.map((match) => match.issuanceKey)).toEqual(['txi_e']);
    expect(matches.has('btx_2')).toBe(false);
    expect(matches.has('btx_3')).toBe(false);
  });

  it('asks nothing for a page without deposits', async () => {
    const matches = await matchDeposits({ issued: async () => {
      throw new Error('asked');
    }, collected: async () => {
      throw new Error('asked');
    } }, scope, [row('btx_1', { direction: 'WITHDRAWAL' })]);
    expect(matches.size).toBe(0);
  });

  it('names an invoice issued as paid (영수) written up to a month after the deposit, and a ' +
    '청구 one only on or before it', async () => {
    const matches = await matchDeposits(issuedOnly(async () => [
      invoice('txi_claim_after', '한빛상사', '2026-11-30'),
      invoice('txi_receipt_month_end', '한빛상사', '2026-11-30', 110_000, 'RECEIPT'),
      invoice('txi_receipt_too_late', '한빛상사', '2026-12-22', 110_000, 'RECEIPT'),
      invoice('txi_receipt_before', '한빛상사', '2026-11-02', 110_000, 'RECEIPT'),
    ]), scope, [row('btx_1', {})]);
    expect(matches.get('btx_1')?.map((match) => match.issuanceKey))
      .toEqual(['txi_receipt_before', 'txi_receipt_month_end']);
  });

  it('names sales collected from the tax portal beside those issued here, oldest first',
    async () => {
      const asked: unknown[] = [];
      const matches = await matchDeposits({
        issued: async () => [invoice('txi_here', '한빛상사', '2026-11-15')],
        collected: async (...args) => {
          asked.push(args);
          return [{ approvalNumber: '2026110541000000portal01', totalAmount: 110_000,
            writeDate: '2026-11-05', counterpartName: '(주)한빛상사' },
          { approvalNumber: '2026110641000000portal02', totalAmount: 110_000,
            writeDate: '2026-11-06', counterpartName: '대한물산' },
          { approvalNumber: '2026112541000000portal03', totalAmount: 110_000,
            writeDate: '2026-11-25', counterpartName: '한빛상사' }];
        } }, scope, [row('btx_1', {})]);
      expect(asked).toEqual([[scope, [110_000], '2025-11-19', '2026-12-21']]);
      expect(matches.get('btx_1')).toEqual([
        { source: 'COLLECTED', issuanceKey: null, approvalNumber: '2026110541000000portal01',
          totalAmount: 110_000, writeDate: '2026-11-05' },
        { source: 'ISSUED_HERE', issuanceKey: 'txi_here', approvalNumber: 'txi_here-nts',
          totalAmount: 110_000, writeDate: '2026-11-15' }]);
    });
});
