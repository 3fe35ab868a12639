import { bulkBody, bulkSchemas } from '../../../platform/bulks/schemas.ts';
import { TAX_INVOICE_STATUSES } from '../schemas.ts';

// The schemas of tax invoice bulk issuance (docs/bulk-issuance.md): each item's `document` is
// the body of POST /v1/taxInvoices/issue, checked per item.

export const BulkIssueBody = bulkBody('tax invoice');
export const { Accepted: TaxInvoiceBulkAccepted, Bulk: TaxInvoiceBulk,
  Page: TaxInvoiceBulkPage } = bulkSchemas({ title: 'TaxInvoiceBulk', what: 'tax invoice',
  states: TAX_INVOICE_STATUSES });
