// The tax authority's cash-receipt service (docs/cash-receipts.md § Processing). A receipt, or a
// cancellation receipt naming the original's approval number and trade date, is first approved
// (the answer is a 9-digit approval number, a rejection, or `unavailable`, which the caller
// retries later), then transmitted (the next day in production). Two implementations exist:
// sandbox.ts for test keys and gateway.ts for live keys.
//
// Both calls are idempotent by issuance key: asking again after a crash between the call and
// recording its answer gives the same approval number, and transmitting again changes nothing.

export type ApprovalRequest = {
  issuanceKey: string;
  kind: 'ISSUANCE' | 'CANCELLATION';
  // The merchant's business registration number.
  merchantNumber: string;
  tradeDate: string;
  usage: 'INCOME_DEDUCTION' | 'EXPENSE_PROOF';
  identityNumber: string;
  taxation: 'TAXABLE' | 'TAX_FREE';
  tradeOption: 'GENERAL' | 'BOOKS_PERFORMANCES' | 'PUBLIC_TRANSPORT';
  supplyCost: number;
  tax: number;
  serviceFee: number;
  totalAmount: number;
  itemName: string;
  // A cancellation's original receipt; null for an issuance.
  original: { approvalNumber: string; tradeDate: string; reason: string } | null;
};

export type ApprovalResult =
  | { kind: 'approved'; approvalNumber: string }
  | { kind: 'rejected'; code: string; message: string }
  | { kind: 'unavailable' };

export type TransmissionResult = { kind: 'transmitted' } | { kind: 'unavailable' };

export type CashReceiptAuthority = {
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResult>;
  transmit(request: { issuanceKey: string; approvalNumber: string },
    signal: AbortSignal): Promise<TransmissionResult>;
};

export const APPROVAL_UNAVAILABLE: ApprovalResult = Object.freeze({ kind: 'unavailable' });
export const TRANSMISSION_UNAVAILABLE: TransmissionResult = Object.freeze({ kind: 'unavailable' });

export const CASH_RECEIPT_APPROVAL_NUMBER_PATTERN = /^[0-9]{9}$/;
