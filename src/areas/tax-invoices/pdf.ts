// Placeholder until the renderer lands.
import type { AmendmentReason, Invoice } from './invoice-schema.ts';
export type PdfInput = {
  issuanceKey: string; environment: 'test' | 'live'; status: string;
  ntsTransactionId: string | null; issuedAt: Date | null; taxType: 'TAXABLE' | 'TAX_FREE';
  totals: { supplyCost: number; tax: number; total: number };
  amendment: { reason: AmendmentReason; originalNtsTransactionId: string | null } | null;
  invoice: Invoice;
};
export async function renderTaxInvoicePdf(input: PdfInput): Promise<Buffer> {
  return Buffer.from(`%PDF-1.4 ${input.issuanceKey}`);
}
