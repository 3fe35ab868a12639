import { EtaxError } from './errors.js';
import type { EtaxClient } from './client.js';

// A tax invoice as PDF bytes, ready to write to a file or send on.
export async function downloadTaxInvoicePdf(client: EtaxClient, issuanceKey: string):
  Promise<Uint8Array> {
  const { data, error, response } = await client.GET('/v1/taxInvoices/{issuanceKey}/pdf', {
    params: { path: { issuanceKey } }, parseAs: 'arrayBuffer' });
  if (!response.ok || data === undefined) throw EtaxError.fromResponse(response, error);
  return new Uint8Array(data);
}
