import assert from 'node:assert/strict';
import { amendmentReasonOfCode, type AmendmentReason } from '../schemas.ts';
import type { TaxInvoiceRow } from '../store.ts';
import type { PdfInput } from './input.ts';

// What the PDF shows of a stored document: the same for the retrieval routes and the PDF
// attached to the invoice's mail.
export function pdfInputOfRow(row: TaxInvoiceRow): PdfInput {
  const reason: AmendmentReason | undefined = row.amendmentReason === null ? undefined
    : amendmentReasonOfCode(row.amendmentReason);
  assert(row.amendmentReason === null || reason !== undefined, 'a stored reason code is known');
  return {
    issuanceKey: row.issuanceKey,
    environment: row.environment as PdfInput['environment'],
    status: row.status,
    ntsTransactionId: row.ntsTransactionId,
    issuedAt: row.issuedAt,
    taxType: row.taxType,
    totals: { supplyCost: row.supplyCostTotal, tax: row.taxTotal, total: row.totalAmount },
    amendment: reason === undefined ? null : {
      reason,
      originalNtsTransactionId: row.originalNtsTransactionId,
    },
    invoice: row.invoice,
    lateIssuance: row.lateIssuance,
  };
}
