import { EtaxError } from './errors.js';
import { unwrap, type EtaxClient } from './client.js';
import type { paths } from './schema.js';

type IssueOperation = paths['/v1/taxInvoices/issue']['post'];
export type TaxInvoiceDraft = IssueOperation['requestBody']['content']['application/json'];
export type IssueStatus = paths['/v1/taxInvoices/issue/status']['get']['responses'][200][
  'content']['application/json'];

// Issues a tax invoice so that it is issued at most once, even when the answer is lost. A tax
// invoice's reference id is never reusable, so a request whose answer never came must not be
// sent again: its outcome is looked up by the reference id instead. The answer is then the
// request's status, or null when the server never received it (send it again with a new id).
export async function issueTaxInvoice(client: EtaxClient, request: {
  supplierKey: string; clientReferenceId: string; draft: TaxInvoiceDraft;
}): Promise<{ issuanceKey: string }> {
  const header = { 'supplier-key': request.supplierKey,
    'service-client-reference-id': request.clientReferenceId };
  try {
    return await unwrap(client.POST('/v1/taxInvoices/issue', { params: { header },
      body: request.draft }));
  } catch (error) {
    if (error instanceof EtaxError) throw error;
    const found = await issueStatus(client, request.clientReferenceId);
    if (found === null) throw error;
    return { issuanceKey: found.issuanceKey };
  }
}

// The processing status of the request sent with this reference id, or null when there is none:
// the server answers a reference id the key never used (or used only for a refused request)
// with 404 NOT_FOUND, meaning the request did not happen and can be sent again.
export async function issueStatus(client: EtaxClient, clientReferenceId: string):
  Promise<IssueStatus | null> {
  try {
    return await unwrap(client.GET('/v1/taxInvoices/issue/status',
      { params: { query: { clientReferenceId } } }));
  } catch (error) {
    if (error instanceof EtaxError && error.status === 404 && error.code === 'NOT_FOUND') {
      return null;
    }
    throw error;
  }
}
