import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../domain/canonical-json.ts';
import type { IssuerSigner } from '../../issuers/index.ts';
import type { TaxInvoiceRow } from '../store.ts';

// What an issuer signs when a tax invoice is issued: the document in canonical JSON (RFC 8785),
// so the same invoice always gives the same bytes, with the facts that make it this document
// (its issuance key, tax type and totals, and for an amendment the reason and the original's
// approval number). The signature is RSA PKCS#1 v1.5 over SHA-256 under the issuer's registered
// joint certificate (../../issuers/signing.ts); anyone holding the certificate can verify it
// (docs/tax-invoices.md § Signature).

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

type SignedDocument = {
  document: string;
  // SHA-256 of the document, hex.
  digest: string;
  // base64
  signature: string;
  certificate: string;
};

export function signDocument(row: TaxInvoiceRow, signer: IssuerSigner): SignedDocument {
  const document = canonicalDocument(row);
  const bytes = Buffer.from(document, 'utf8');
  return {
    document,
    digest: createHash('sha256').update(bytes).digest('hex'),
    signature: signer.sign(bytes).toString('base64'),
    certificate: signer.certificate.toString('base64'),
  };
}
