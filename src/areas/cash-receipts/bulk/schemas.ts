import { bulkBody, bulkSchemas } from '../../../platform/bulks/schemas.ts';
import { CASH_RECEIPT_STATUSES } from '../schemas.ts';

// The schemas of cash receipt bulk issuance (docs/bulk-issuance.md): each item's `document` is
// the body of POST /v1/cashReceipts/issue, checked per item.

export const BulkIssueBody = bulkBody('cash receipt');
export const { Accepted: CashReceiptBulkAccepted, Bulk: CashReceiptBulk,
  Page: CashReceiptBulkPage } = bulkSchemas({ title: 'CashReceiptBulk', what: 'cash receipt',
  states: CASH_RECEIPT_STATUSES });
