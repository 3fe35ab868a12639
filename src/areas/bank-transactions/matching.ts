import { addDays } from '../../domain/business-days.ts';
import type { Scope } from '../../platform/scope.ts';
import type { IssuedInvoicesByTotals } from '../tax-invoices/index.ts';
import type { TransactionRow } from './store.ts';

// Matching hints (docs/bank-transactions.md § Matching hints): a deposit may pay an issued sales
// tax invoice of the same account and environment whose total equals the amount and whose
// recipient is the sender, written on the deposit's day or in the year before it. Names match
// after the legal form (주식회사, (주), ㈜, 유한회사, (유)) and spaces are left out, since banks
// print senders' names shortened. Hints only: nothing is marked paid.

export const MATCH_WINDOW_DAYS = 366;
// A deposit lists at most this many invoices, the oldest first.
export const MATCHES_PER_TRANSACTION_MAX = 10;

export type MatchedTaxInvoice = { issuanceKey: string; totalAmount: number; writeDate: string };

export function normalizedName(name: string): string {
  return name.normalize('NFC').replace(/주식회사|유한회사|\(주\)|\(유\)|㈜|㈲/g, '')
    .replace(/\s+/g, '').toLowerCase();
}

export async function matchDeposits(issuedByTotals: IssuedInvoicesByTotals, scope: Scope,
  rows: readonly TransactionRow[]): Promise<Map<string, MatchedTaxInvoice[]>> {
  const deposits = rows.filter((row) => row.direction === 'DEPOSIT' &&
    row.counterpartyName !== null && normalizedName(row.counterpartyName) !== '');
  const matches = new Map<string, MatchedTaxInvoice[]>();
  if (deposits.length === 0) return matches;
  const dates = deposits.map((row) => row.bookedDate).sort();
  const invoices = await issuedByTotals(scope, [...new Set(deposits.map((row) => row.amount))],
    addDays(dates[0]!, -MATCH_WINDOW_DAYS), dates.at(-1)!);
  if (invoices.length === 0) return matches;
  for (const row of deposits) {
    const name = normalizedName(row.counterpartyName!);
    const earliest = addDays(row.bookedDate, -MATCH_WINDOW_DAYS);
    const found = invoices.filter((invoice) => invoice.totalAmount === row.amount &&
      invoice.writeDate <= row.bookedDate && invoice.writeDate >= earliest &&
      normalizedName(invoice.recipientName ?? '') === name)
      .slice(0, MATCHES_PER_TRANSACTION_MAX)
      .map(({ issuanceKey, totalAmount, writeDate }) => ({ issuanceKey, totalAmount, writeDate }));
    if (found.length > 0) matches.set(row.id, found);
  }
  return matches;
}
