import type { AmendmentReason, Invoice, TaxType } from '../schemas.ts';

// What the PDF shows of a document: the facts of the form, read from its row by the retrieval
// service. A file of its own because the layout files and render.ts all read it, and render.ts
// imports the layout.

export type PdfInput = {
  issuanceKey: string;
  environment: 'test' | 'live';
  status: string;
  ntsTransactionId: string | null;
  issuedAt: Date | null;
  taxType: TaxType;
  totals: { supplyCost: number; tax: number; total: number };
  amendment: { reason: AmendmentReason; originalNtsTransactionId: string | null } | null;
  invoice: Invoice;
  // Issued late (지연발급): the footer says so.
  lateIssuance?: boolean;
};
