import type { Invoice } from './invoice-schema.ts';

// Placeholder until the validation rules land: totals and tax type only.
export type AmountRule = 'forward' | 'amendment';
export type ValidationContext = {
  today: string;
  supplier: { identificationNumber: string; taxRegistrationId: string | null };
  amounts: AmountRule;
  deadline: 'enforced' | 'ignored';
};
export type ValidatedInvoice = {
  invoice: Invoice;
  taxType: 'TAXABLE' | 'TAX_FREE';
  totals: { supplyCost: number; tax: number; total: number };
  issueDeadline: string;
  counterpartNumber: string;
};
export function computeTotals(items: Invoice['items']): ValidatedInvoice['totals'] {
  const supplyCost = items.reduce((sum, item) => sum + item.supplyCost, 0);
  const tax = items.reduce((sum, item) => sum + (item.tax ?? 0), 0);
  return { supplyCost, tax, total: supplyCost + tax };
}
export function validateInvoice(invoice: Invoice, context: ValidationContext): ValidatedInvoice {
  void context;
  return {
    invoice,
    taxType: invoice.items.every((item) => item.tax === null) ? 'TAX_FREE' : 'TAXABLE',
    totals: computeTotals(invoice.items),
    issueDeadline: invoice.date,
    counterpartNumber: invoice.supplied.identificationNumber,
  };
}
