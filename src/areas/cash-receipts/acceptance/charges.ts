import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Tx } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { PointsService } from '../../../platform/points/service.ts';
import type * as store from '../store.ts';

// A receipt's price is debited in the transaction that records it (docs/points.md § Debited
// with the work), for issuances accepted in a batch and for cancellations alike.

// A receipt as accepted, before its charge is known.
export type UnchargedReceipt = Omit<store.NewCashReceiptRow,
  'chargedPoints' | 'chargeEntryId' | 'reservationId'>;

export type ReceiptToCharge = {
  row: UnchargedReceipt;
  operation: 'cashReceipts.issue' | 'cashReceipts.cancel';
  // 0: free, nothing is debited.
  priceInPoints: number;
  // The Trace-Id of the request that asked for the receipt.
  requestId: string | null;
};

// Debits the receipts' prices in one statement, in order, in the caller's transaction; answers
// per receipt the row to insert, with its charge, or the 402 or 409 that refused it.
export async function chargeReceipts(tx: Tx, points: Pick<PointsService, 'debitInTransaction'>,
  receipts: readonly ReceiptToCharge[]): Promise<Array<store.NewCashReceiptRow | ApiError>> {
  const paid = receipts.filter((receipt) => receipt.priceInPoints > 0);
  const debits = await points.debitInTransaction(tx, paid.map(({ row, operation,
    priceInPoints, requestId }) => ({ accountId: row.accountId,
    environment: row.environment as Environment, operation, points: priceInPoints, requestId,
    documentId: row.issuanceKey })));
  const debitOf = new Map(paid.map((receipt, index) => [receipt, debits[index]!]));
  return receipts.map((receipt) => {
    const debit = debitOf.get(receipt);
    if (debit instanceof ApiError) return debit;
    return { ...receipt.row, chargeEntryId: debit?.ledgerEntryId ?? null,
      chargedPoints: debit === undefined ? 0 : receipt.priceInPoints, reservationId: null };
  });
}
