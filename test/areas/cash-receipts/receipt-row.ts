import type { CashReceiptRow } from '../../../src/areas/cash-receipts/store.ts';

// A stored cash receipt, for tests of what is made from a row without a database.

const AT = new Date('2026-11-24T01:00:00Z');

export function receiptRow(overrides: Partial<CashReceiptRow> = {}): CashReceiptRow {
  return {
    issuanceKey: 'csr_example', accountId: 'acc', environment: 'live', apiKeyId: 'key',
    clientReferenceId: 'ref', kind: 'ISSUANCE', status: 'TRANSMITTED', issuerId: 'iss',
    merchantNumber: '1234567891', merchantName: '카페 이택스', merchantRepresentative: '홍길동',
    tradeDate: '2026-11-24', usage: 'INCOME_DEDUCTION', sealedIdentityNumber: null,
    maskedIdentityNumber: '010****5678', plaintextIdentityNumber: null, taxation: 'TAXABLE',
    tradeOption: 'GENERAL', supplyCost: 10_000, tax: 1_000, serviceFee: 0, totalAmount: 11_000,
    itemName: '커피', customer: null, canceledSupplyCost: 0, canceledTax: 0,
    canceledServiceFee: 0, canceledAmount: 0, cancelReason: null, originalIssuanceKey: null,
    originalApprovalNumber: null, originalTradeDate: null, approvalNumber: '123456789',
    failureCode: null, failureMessage: null, chargedPoints: 1, chargeEntryId: null,
    reservationId: null, issuedAt: AT, transmittedAt: AT, sequence: 1, createdAt: AT,
    updatedAt: AT, ...overrides,
  } as CashReceiptRow;
}
