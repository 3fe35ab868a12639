import { EtaxError } from './errors.js';
import { unwrap, type EtaxClient } from './client.js';
import type { components } from './schema.js';

// A tax invoice's attachments: files its recipient's mail carries after the PDF.

export type TaxInvoiceAttachment = components['schemas']['TaxInvoiceAttachment'];

// One file to attach: its name (its extension must match its content: .pdf, .png, .jpg,
// .jpeg, .xlsx or .docx) and its bytes.
export type AttachmentFile = { fileName: string; content: Uint8Array | Blob };

// Adds 1 to 5 files to the tax invoice while it is not yet transmitting.
export async function addTaxInvoiceAttachments(client: EtaxClient, issuanceKey: string,
  files: readonly AttachmentFile[]): Promise<TaxInvoiceAttachment[]> {
  const form = new FormData();
  for (const file of files) {
    const blob = file.content instanceof Blob ? file.content
      : new Blob([file.content as BlobPart]);
    form.append('file', blob, file.fileName);
  }
  const added = await unwrap(client.POST('/v1/taxInvoices/{issuanceKey}/attachments', {
    params: { path: { issuanceKey } },
    // The form is sent as it is; fetch writes its multipart boundary.
    body: form as never,
    bodySerializer: (body: unknown) => body as FormData,
  }));
  return added.attachments;
}

export async function listTaxInvoiceAttachments(client: EtaxClient, issuanceKey: string):
  Promise<TaxInvoiceAttachment[]> {
  const listed = await unwrap(client.GET('/v1/taxInvoices/{issuanceKey}/attachments', {
    params: { path: { issuanceKey } } }));
  return listed.attachments;
}

// An attachment's bytes and the content type its content was found to be.
export async function downloadTaxInvoiceAttachment(client: EtaxClient, issuanceKey: string,
  attachmentId: string): Promise<{ contentType: string; content: Uint8Array }> {
  const { data, error, response } = await client.GET(
    '/v1/taxInvoices/{issuanceKey}/attachments/{attachmentId}',
    { params: { path: { issuanceKey, attachmentId } }, parseAs: 'arrayBuffer' });
  if (!response.ok || data === undefined) throw EtaxError.fromResponse(response, error);
  return { contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    content: new Uint8Array(data) };
}

export async function deleteTaxInvoiceAttachment(client: EtaxClient, issuanceKey: string,
  attachmentId: string): Promise<void> {
  const { error, response } = await client.DELETE(
    '/v1/taxInvoices/{issuanceKey}/attachments/{attachmentId}',
    { params: { path: { issuanceKey, attachmentId } } });
  if (!response.ok) throw EtaxError.fromResponse(response, error);
}
