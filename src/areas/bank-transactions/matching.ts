import { addDays } from '../../domain/business-days.ts';
import type { Scope } from '../../platform/scope.ts';
import type { CollectedSalesByTotals } from '../revenue-expenses/index.ts';
import type { IssuedInvoicesByTotals } from '../tax-invoices/index.ts';
import type { TransactionRow } from './store.ts';

// Matching hints (docs/bank-transactions.md § Matching hints): a deposit may pay a sales tax
// invoice of the same account and environment whose total equals the amount and whose recipient
// is the sender: one issued here, or one collected from the tax portal into the books. Names
// match after the legal form (주식회사, (주), ㈜, 유한회사, (유)) and spaces are left out, since
// banks print senders' names shortened. An invoice requesting payment (청구) is paid after it is
// written: on its write date or in the year after it. One issued as paid (영수) was written once
// the payment had come, up to a month before (a monthly invoice, 월합계, is written on the last day
// of the month for the month's supplies), or after it like any other. Hints only: nothing is
// marked paid.

const MATCH_WINDOW_DAYS = 366;
// How long before its write date a 영수 invoice's payment may have come.
const RECEIPT_LEAD_DAYS = 31;
// A deposit lists at most this many invoices, the oldest first.
const MATCHES_PER_TRANSACTION_MAX = 10;

export type MatchedTaxInvoice = { source: 'ISSUED_HERE' | 'COLLECTED';
  issuanceKey: string | null; approvalNumber: string | null; totalAmount: number;
  writeDate: string };

// Where the account's sales are: the tax-invoices area's, and the books' collected ones.
export type SalesByTotals = { issued: IssuedInvoicesByTotals; collected: CollectedSalesByTotals };

type Candidate = MatchedTaxInvoice & { recipientName: string; purpose: 'RECEIPT' | 'CLAIM' };

export function normalizedName(name: string): string {
  return name.normalize('NFC').replace(/주식회사|유한회사|\(주\)|\(유\)|㈜|㈲/g, '')
    .replace(/\s+/g, '').toLowerCase();
}

async function candidates(sales: SalesByTotals, scope: Scope, totals: number[], from: string,
  to: string): Promise<Candidate[]> {
  const [issued, collected] = await Promise.all([sales.issued({ scope, totals, from, to }),
    sales.collected(scope, totals, from, to)]);
  // A collected invoice's purpose is not in the books; it is taken as 청구.
  return [
    ...issued.map((invoice): Candidate => ({ source: 'ISSUED_HERE',
      issuanceKey: invoice.issuanceKey, approvalNumber: invoice.approvalNumber,
      totalAmount: invoice.totalAmount, writeDate: invoice.writeDate,
      recipientName: invoice.recipientName ?? '', purpose: invoice.purpose })),
    ...collected.map((invoice): Candidate => ({ source: 'COLLECTED', issuanceKey: null,
      approvalNumber: invoice.approvalNumber, totalAmount: invoice.totalAmount,
      writeDate: invoice.writeDate, recipientName: invoice.counterpartName, purpose: 'CLAIM' })),
  ].sort((a, b) => a.writeDate.localeCompare(b.writeDate));
}

export async function matchDeposits(sales: SalesByTotals, scope: Scope,
  rows: readonly TransactionRow[]): Promise<Map<string, MatchedTaxInvoice[]>> {
  const deposits = rows.filter((row) => row.direction === 'DEPOSIT' &&
    row.counterpartyName !== null && normalizedName(row.counterpartyName) !== '');
  const matches = new Map<string, MatchedTaxInvoice[]>();
  if (deposits.length === 0) return matches;
  const dates = deposits.map((row) => row.bookedDate).sort();
  const invoices = await candidates(sales, scope, [...new Set(deposits.map((row) => row.amount))],
    addDays(dates[0]!, -MATCH_WINDOW_DAYS), addDays(dates.at(-1)!, RECEIPT_LEAD_DAYS));
  if (invoices.length === 0) return matches;
  for (const row of deposits) {
    const name = normalizedName(row.counterpartyName!);
    const earliest = addDays(row.bookedDate, -MATCH_WINDOW_DAYS);
    const latest = { CLAIM: row.bookedDate,
      RECEIPT: addDays(row.bookedDate, RECEIPT_LEAD_DAYS) };
    const found = invoices.filter((invoice) => invoice.totalAmount === row.amount &&
      invoice.writeDate <= latest[invoice.purpose] && invoice.writeDate >= earliest &&
      normalizedName(invoice.recipientName) === name)
      .slice(0, MATCHES_PER_TRANSACTION_MAX)
      .map(({ source, issuanceKey, approvalNumber, totalAmount, writeDate }) =>
        ({ source, issuanceKey, approvalNumber, totalAmount, writeDate }));
    if (found.length > 0) matches.set(row.id, found);
  }
  return matches;
}
