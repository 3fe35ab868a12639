import { unwrap, type EtaxClient } from './client.js';
import type { paths } from './schema.js';

// The validation endpoints: each runs everything its issuance runs short of the effect and
// answers what would be issued, or the error issuance would give (as an EtaxError). They are
// free: nothing is charged, recorded or claimed, so a reference id sent to one is still unused.

type Json<Operation> = Operation extends {
  responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;

export type TaxInvoiceValidation = Json<paths['/v1/taxInvoices:validate']['post']>;
export type CashReceiptValidation = Json<paths['/v1/cashReceipts:validate']['post']>;
export type DocumentValidation = Json<paths['/v1/documents:validate']['post']>;

type TaxInvoiceBody =
  paths['/v1/taxInvoices:validate']['post']['requestBody']['content']['application/json'];
type CashReceiptBody =
  paths['/v1/cashReceipts:validate']['post']['requestBody']['content']['application/json'];
type DocumentBody =
  paths['/v1/documents:validate']['post']['requestBody']['content']['application/json'];

// What POST /v1/taxInvoices/issue would do with these headers and this body.
export function validateTaxInvoice(client: EtaxClient, request: { supplierKey: string;
  clientReferenceId?: string; draft: TaxInvoiceBody }): Promise<TaxInvoiceValidation> {
  const header = { 'supplier-key': request.supplierKey,
    ...(request.clientReferenceId === undefined ? {}
      : { 'service-client-reference-id': request.clientReferenceId }) };
  return unwrap(client.POST('/v1/taxInvoices:validate', { params: { header },
    body: request.draft }));
}

// What POST /v1/cashReceipts/issue would do with these headers and this body.
export function validateCashReceipt(client: EtaxClient, request: { supplierKey: string;
  clientReferenceId: string; receipt: CashReceiptBody }): Promise<CashReceiptValidation> {
  return unwrap(client.POST('/v1/cashReceipts:validate', { params: { header: {
    'supplier-key': request.supplierKey,
    'service-client-reference-id': request.clientReferenceId } }, body: request.receipt }));
}

// What POST /v1/documents/issue would do with this reference id and this body.
export function validateDocument(client: EtaxClient, request: { clientReferenceId: string;
  document: DocumentBody }): Promise<DocumentValidation> {
  return unwrap(client.POST('/v1/documents:validate', { params: { header: {
    'service-client-reference-id': request.clientReferenceId } }, body: request.document }));
}

export type ReverseIssuanceRequestValidation =
  Json<paths['/v1/taxInvoices/issueRequests:validate']['post']>;
export type CashReceiptCancellationValidation =
  Json<paths['/v1/cashReceipts/{issuanceKey}/cancellations:validate']['post']>;

type ReverseIssuanceRequestBody = paths['/v1/taxInvoices/issueRequests:validate']['post'][
  'requestBody']['content']['application/json'];
type CashReceiptCancelBody = paths['/v1/cashReceipts/{issuanceKey}/cancellations:validate'][
  'post']['requestBody']['content']['application/json'];

// What POST /v1/taxInvoices/issueRequest (reverse issuance) would do with these headers and
// this body.
export function validateReverseIssuanceRequest(client: EtaxClient, request: {
  supplierKey: string; clientReferenceId?: string; draft: ReverseIssuanceRequestBody }):
  Promise<ReverseIssuanceRequestValidation> {
  const header = { 'supplier-key': request.supplierKey,
    ...(request.clientReferenceId === undefined ? {}
      : { 'service-client-reference-id': request.clientReferenceId }) };
  return unwrap(client.POST('/v1/taxInvoices/issueRequests:validate', { params: { header },
    body: request.draft }));
}

// What POST /v1/cashReceipts/{issuanceKey}/cancel would do with this reference id and body.
export function validateCashReceiptCancellation(client: EtaxClient, request: {
  issuanceKey: string; clientReferenceId: string; cancellation: CashReceiptCancelBody }):
  Promise<CashReceiptCancellationValidation> {
  return unwrap(client.POST('/v1/cashReceipts/{issuanceKey}/cancellations:validate', {
    params: { path: { issuanceKey: request.issuanceKey }, header: {
      'service-client-reference-id': request.clientReferenceId } },
    body: request.cancellation }));
}

// The amendments, by the last segment of their path (POST /v1/taxInvoices/{issuanceKey}/amend/
// <reason>).
export type AmendmentKind = 'termination' | 'entryCorrection' | 'doubleIssuance' |
  'changeSupplyCost' | 'returnedGoods' | 'localLetterOfCredit';
type AmendmentValidationPath<Kind extends AmendmentKind> =
  `/v1/taxInvoices/{issuanceKey}/amendments/${Kind}:validate`;
export type TaxInvoiceAmendmentValidation =
  Json<paths[AmendmentValidationPath<'termination'>]['post']>;
// An amendment's body; double issuance takes none.
export type AmendmentBody<Kind extends AmendmentKind> =
  paths[AmendmentValidationPath<Kind>]['post'] extends {
    requestBody: { content: { 'application/json': infer Body } } } ? Body : undefined;

// What POST /v1/taxInvoices/{issuanceKey}/amend/<kind> would do with these headers and this
// body: the documents it would make and their price.
export function validateTaxInvoiceAmendment<Kind extends AmendmentKind>(client: EtaxClient,
  request: { issuanceKey: string; kind: Kind; supplierKey: string; clientReferenceId?: string;
    amendment: AmendmentBody<Kind> }): Promise<TaxInvoiceAmendmentValidation> {
  const header = { 'supplier-key': request.supplierKey,
    ...(request.clientReferenceId === undefined ? {}
      : { 'service-client-reference-id': request.clientReferenceId }) };
  // One shape for the six paths: the kind names the path and its body.
  const path = `/v1/taxInvoices/{issuanceKey}/amendments/${request.kind}:validate` as
    AmendmentValidationPath<'termination'>;
  return unwrap(client.POST(path, { params: { path: { issuanceKey: request.issuanceKey },
    header }, ...(request.amendment === undefined ? {} : { body: request.amendment }) } as
    never));
}
