import { EtaxError } from './errors.js';
import { unwrap, type EtaxClient } from './client.js';
import type { paths } from './schema.js';

// Drafts (docs/drafts.md): bodies saved to issue later, and their issue, which acts once per
// reference id, so that an issue whose answer was lost is simply sent again.

export type SavedTaxInvoiceDraft = paths['/v1/taxInvoices/drafts/{draftId}']['get'][
  'responses'][200]['content']['application/json'];
export type SavedCashReceiptDraft = paths['/v1/cashReceipts/drafts/{draftId}']['get'][
  'responses'][200]['content']['application/json'];
export type TaxInvoiceDraftBody = paths['/v1/taxInvoices/drafts']['post']['requestBody'][
  'content']['application/json'];
export type CashReceiptDraftBody = paths['/v1/cashReceipts/drafts']['post']['requestBody'][
  'content']['application/json'];

// Saves a tax invoice draft; `supplierKey` may be given now or later.
export function saveTaxInvoiceDraft(client: EtaxClient, request: { body: TaxInvoiceDraftBody;
  supplierKey?: string }): Promise<SavedTaxInvoiceDraft> {
  const header = request.supplierKey === undefined ? {}
    : { 'supplier-key': request.supplierKey };
  return unwrap(client.POST('/v1/taxInvoices/drafts', { params: { header },
    body: request.body }));
}

export function saveCashReceiptDraft(client: EtaxClient, request: { body: CashReceiptDraftBody;
  supplierKey?: string }): Promise<SavedCashReceiptDraft> {
  const header = request.supplierKey === undefined ? {}
    : { 'supplier-key': request.supplierKey };
  return unwrap(client.POST('/v1/cashReceipts/drafts', { params: { header },
    body: request.body }));
}

// How many times an issue whose answer never came is sent again with the same reference id.
const RESENDS_MAX = 2;

// Issues a draft. A request whose answer was lost (a network failure, not an error answer) is
// sent again with the same reference id, which the server answers with the issued draft instead
// of issuing twice. An account that requires approval answers EtaxError 403
// DRAFT_APPROVAL_REQUIRED: the draft now waits for an approver.
export async function issueDraft(client: EtaxClient, request: {
  kind: 'taxInvoices' | 'cashReceipts'; draftId: string; clientReferenceId: string;
}): Promise<SavedTaxInvoiceDraft | SavedCashReceiptDraft> {
  const params = { path: { draftId: request.draftId },
    header: { 'service-client-reference-id': request.clientReferenceId } };
  for (let attempt = 0; ; attempt += 1) {
    try {
      return request.kind === 'taxInvoices'
        ? await unwrap(client.POST('/v1/taxInvoices/drafts/{draftId}:issue', { params }))
        : await unwrap(client.POST('/v1/cashReceipts/drafts/{draftId}:issue', { params }));
    } catch (error) {
      if (error instanceof EtaxError || attempt >= RESENDS_MAX) throw error;
    }
  }
}
