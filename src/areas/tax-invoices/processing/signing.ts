import { canonicalJson } from '../../../domain/canonical-json.ts';
import type { TaxInvoiceRow } from '../store.ts';

// What an issuer signed when a tax invoice was issued before the standard XML (../xml/): the
// document in canonical JSON (RFC 8785) with the facts that make it this document (its issuance
// key, tax type and totals, and for an amendment the reason and the original's approval number),
// under RSA PKCS#1 v1.5 over SHA-256. Documents issued since are signed as the standard XML;
// those issued before, and still waiting to be transmitted, are transmitted with this document
// and the signature they carry.

const SIGNED_DOCUMENT_VERSION = 'etax-tax-invoice/1';

export function canonicalDocument(row: TaxInvoiceRow): string {
  return canonicalJson({
    version: SIGNED_DOCUMENT_VERSION,
    issuanceKey: row.issuanceKey,
    taxType: row.taxType,
    totals: { supplyCost: row.supplyCostTotal, tax: row.taxTotal, total: row.totalAmount },
    amendment: row.amendmentReason === null ? null : {
      reasonCode: row.amendmentReason,
      originalNtsTransactionId: row.originalNtsTransactionId,
    },
    invoice: row.invoice,
  });
}
