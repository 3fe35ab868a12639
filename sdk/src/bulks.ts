import { EtaxError } from './errors.js';
import { unwrap, type EtaxClient } from './client.js';
import type { paths } from './schema.js';

// Bulk issuance: up to 100 tax invoices or cash receipts in one request, each accepted or
// refused on its own. The bulk's reference id makes the request safe to send again: the same
// reference id with the same items answers the same bulk without acting twice. So unlike a single
// tax invoice, a bulk whose answer was lost is simply sent again, once, with the same id.

type TaxInvoiceBulkOperation = paths['/v1/taxInvoices:bulkIssue']['post'];
type CashReceiptBulkOperation = paths['/v1/cashReceipts:bulkIssue']['post'];
export type TaxInvoiceBulkItem =
  TaxInvoiceBulkOperation['requestBody']['content']['application/json']['items'][number];
export type CashReceiptBulkItem =
  CashReceiptBulkOperation['requestBody']['content']['application/json']['items'][number];
export type TaxInvoiceBulkAccepted =
  TaxInvoiceBulkOperation['responses'][202]['content']['application/json'];
export type CashReceiptBulkAccepted =
  CashReceiptBulkOperation['responses'][202]['content']['application/json'];
export type TaxInvoiceBulk = paths['/v1/taxInvoices/bulks/{bulkId}']['get']['responses'][200][
  'content']['application/json'];
export type CashReceiptBulk = paths['/v1/cashReceipts/bulks/{bulkId}']['get']['responses'][200][
  'content']['application/json'];

// Sends once more when no answer came (a network failure, not an error answer).
async function sentAgainIfLost<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof EtaxError) throw error;
    return send();
  }
}

export function bulkIssueTaxInvoices(client: EtaxClient, request: {
  clientReferenceId: string; items: TaxInvoiceBulkItem[];
}): Promise<TaxInvoiceBulkAccepted> {
  return sentAgainIfLost(() => unwrap(client.POST('/v1/taxInvoices:bulkIssue', {
    params: { header: { 'service-client-reference-id': request.clientReferenceId } },
    body: { items: request.items } })));
}

export function getTaxInvoiceBulk(client: EtaxClient, bulkId: string): Promise<TaxInvoiceBulk> {
  return unwrap(client.GET('/v1/taxInvoices/bulks/{bulkId}',
    { params: { path: { bulkId } } }));
}

export function bulkIssueCashReceipts(client: EtaxClient, request: {
  clientReferenceId: string; items: CashReceiptBulkItem[];
}): Promise<CashReceiptBulkAccepted> {
  return sentAgainIfLost(() => unwrap(client.POST('/v1/cashReceipts:bulkIssue', {
    params: { header: { 'service-client-reference-id': request.clientReferenceId } },
    body: { items: request.items } })));
}

export function getCashReceiptBulk(client: EtaxClient, bulkId: string): Promise<CashReceiptBulk> {
  return unwrap(client.GET('/v1/cashReceipts/bulks/{bulkId}',
    { params: { path: { bulkId } } }));
}
