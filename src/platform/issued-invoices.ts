import type { Executor } from './db/connect.ts';
import type { Scope } from './scope-types.ts';

// What the tax-invoices area tells the revenue and expense books when a tax invoice issued
// through etax gets its approval number, in the same transaction (docs/revenue-expense.md § What
// the feed holds): the books record it as a sale of the issuing account and as a purchase of the
// accounts connected to the recipient's business. The revenue-expenses area implements it.

type IssuedInvoiceParty = { businessRegistrationNumber: string; name: string };

export type IssuedInvoiceChange = {
  // The account and environment that issued it.
  scope: Scope;
  issuanceKey: string;
  approvalNumber: string;
  writeDate: string;
  issueDate: string;
  supplier: IssuedInvoiceParty;
  recipient: IssuedInvoiceParty;
  // The trustee that issued it in the supplier's name (위수탁), or null. Its sale is then the
  // supplier's, not the issuing account's.
  broker: IssuedInvoiceParty | null;
  supplyCost: number;
  tax: number;
  totalAmount: number;
  taxType: 'TAXABLE' | 'ZERO_RATED' | 'TAX_FREE';
  amendment: { reason: number; originalApprovalNumber: string } | null;
  status: 'TRANSMITTED';
  late: boolean;
};

export type RecordIssuedInvoices = (
  executor: Executor,
  changes: readonly IssuedInvoiceChange[],
) => Promise<void>;
