import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { Environment } from '../../src/platform/accounts/keys.ts';
import type { TestApp } from '../helpers/app.ts';
import { jsonRequest } from '../helpers/http.ts';
import {
  fillPath,
  sampleValue,
  type Operation,
  type Parameter,
} from '../helpers/openapi-operations.ts';
import { invoiceBody, issue, registerSupplier, today } from './tax-invoices/helpers.ts';
import { newRequest } from './tax-invoices/reverse-helpers.ts';
import { issueReceipt, receiptBody } from './cash-receipts/helpers.ts';

// One example request for every operation of openapi/openapi.json, for the contract every
// operation owes (operation-contract.test.ts). The path, query and headers come from the
// document (parameter examples, defaults, the schemas' smallest values) and from resources made
// for the caller first; the body is the document's example unless an entry gives its own. Every
// operation needs an entry, even an empty one, so that a new operation cannot go unchecked: the
// entry says which resources its request names and what the example request answers.

// What a request can name, made for the caller in one environment before the request is sent.
// Each resource fills the parameters of the same name (`supplier-key` is a header).
export type ResourceKind =
  | 'endpoint' // endpointId: a webhook endpoint subscribed to TAX_INVOICE_ISSUANCE_SUCCESS
  | 'event' // eventId: a recorded TAX_INVOICE_ISSUANCE_SUCCESS event
  | 'supplier' // issuerId and supplier-key: an issuer with a registered certificate
  | 'invoice' // issuanceKey: a PENDING tax invoice of the supplier (workers are off)
  | 'reverseRequest' // issuanceKey: a REQUESTED reverse issuance of the supplier
  // issuanceKey: an ACCEPTED cash receipt of the supplier (workers are off); live keys cannot
  // issue one in this app (no gateway), so theirs is a placeholder that names nothing
  | 'cashReceipt'
  | 'ownerBusiness' // the owner business set (PUT /v1/account/business)
  | 'document' // issuanceKey: an ACCEPTED registry view copy (workers are off)
  | 'counterparty' // counterpartyId: a counterparty of the book
  | 'counterpartyImport'; // importId: a previewed import of one valid row

// The resources of one caller in one environment, by the parameter name that carries them.
export type Resources = Record<string, string>;

// Well-formed ids that name nothing, for the requests that are refused or counted before the
// operation looks its resources up.
export const PLACEHOLDER_RESOURCES: Resources = {
  endpointId: 'whe_none', eventId: 'evt_none', issuerId: 'iss_none', 'supplier-key': 'sup_none',
  issuanceKey: 'txi_none', counterpartyId: 'cpt_none', importId: 'cpi_none', draftId: 'drf_none',
};

type ExampleContext = { environment: Environment; resources: Resources };

export type Example = {
  // The operation of the rate-limit and price tables (src/platform/operations.ts) it names.
  operation: string;
  uses?: ResourceKind[];
  // Query values that the document's examples and defaults do not give.
  query?: Record<string, string>;
  // The body, where the document has no example or its example does not fit the resources.
  body?: (context: ExampleContext) => unknown;
  // Sends `body` (a string) under this content type instead of JSON: a multipart form.
  contentType?: string;
  // What the example request answers in each environment.
  status: number | Record<Environment, number>;
  // Why the status is not a success, or differs between the environments.
  because?: string;
  // A request refused with an error body, where the malformed request derived from the
  // document does not apply (malformed.ts); null when the operation takes no input at all.
  erroring?: { name: string; status: number; change: (request: RequestParts) => RequestParts }
    | null;
};

export type RequestParts = {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  // A string is sent as it is; anything else as JSON; undefined sends no body.
  body: unknown;
};

// Private addresses are allowed in this app (WEBHOOK_PRIVATE_TARGETS_ALLOWED), and live keys
// need https; nothing listens there and workers are off, so nothing is ever sent.
const ENDPOINT_URL = 'https://127.0.0.1:9/hooks';
const EVENT_TYPE = 'TAX_INVOICE_ISSUANCE_SUCCESS';
// Enough for every charged example request in both environments, several times over.
export const LIVE_GRANT_POINTS = 100_000;

// The settings of the app the example requests are sent to, and which their statuses assume.
export const EXAMPLES_APP_ENV = {
  // Jobs are staged but never run: invoices stay PENDING, nothing is sent anywhere.
  WORKERS_ENABLED: 'false',
  WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true',
  PUBLIC_BASE_URL: 'https://etax.example.com',
  // Live invoices and documents are accepted; without workers nothing is sent to them.
  TAX_INVOICE_GATEWAY_URL: 'http://127.0.0.1:9', TAX_INVOICE_NTS_SYSTEM_CODE: '41000008',
  DOCUMENTS_REGISTRY_GATEWAY_URL: 'http://127.0.0.1:9',
};

// A one-page PDF whose whole text is "Hello", in ASCII so that it travels as a string.
const ASCII_PDF = '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n' +
  '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
  '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R ' +
  '/Resources << /Font << /F1 5 0 R >> >> >> endobj\n' +
  '4 0 obj << /Length 35 >>\nstream\nBT /F1 12 Tf 20 100 Td (Hello) Tj ET\nendstream\nendobj\n' +
  '5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n' +
  'trailer << /Root 1 0 R >>\n%%EOF\n';
const FORM_BOUNDARY = 'etaxExampleBoundary';
const formWithFile = (content: string) => `--${FORM_BOUNDARY}\r\n` +
  'Content-Disposition: form-data; name="file"; filename="certificate.pdf"\r\n' +
  `Content-Type: application/pdf\r\n\r\n${content}\r\n--${FORM_BOUNDARY}--\r\n`;

// Two PDF parts named `file`, as a client attaching files sends them: the document's `file` is
// an array, and a validator reads a lone part as one value, not a list of one.
const formWithFiles = (content: string) => ['statement.pdf', 'order.pdf'].map((name) =>
  `--${FORM_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
  `Content-Type: application/pdf\r\n\r\n${content}\r\n`).join('') + `--${FORM_BOUNDARY}--\r\n`;

// A counterparty file of one valid row, in ASCII so that it travels as a string.
const counterpartyForm = (content: string) => `--${FORM_BOUNDARY}\r\n` +
  'Content-Disposition: form-data; name="file"; filename="counterparties.csv"\r\n' +
  `Content-Type: text/csv\r\n\r\n${content}\r\n--${FORM_BOUNDARY}--\r\n`;
const COUNTERPARTY_CSV = 'businessRegistrationNumber,organizationName,representativeName\r\n' +
  '220-81-62517,Example Co,Kim\r\n';

const unavailableLive = 'live keys reach the real upstream, which this app has none of';

export const EXAMPLES: Record<string, Example> = {
  'GET /v1/points': { operation: 'points.retrieve', status: 200, erroring: null },
  'GET /v1/points/ledger': { operation: 'points.ledger.list', status: 200 },

  'POST /v1/bankAccountHolders:bulkInquire': {
    operation: 'bank.holders.bulkInquire',
    status: { test: 200, live: 503 }, because: unavailableLive,
    // The erroring request of bulk-inquire.test.ts: unreadable JSON.
    erroring: { name: 'unreadable JSON', status: 400,
      change: (request) => ({ ...request, body: '{"accounts": [' }) },
  },
  'POST /v1/bankAccountHolders:inquire': {
    operation: 'bank.holders.inquire',
    status: { test: 200, live: 503 }, because: unavailableLive,
    erroring: { name: 'unreadable JSON', status: 400,
      change: (request) => ({ ...request, body: '{"bankCode":' }) },
  },
  'GET /v1/businessProfiles': {
    operation: 'businesses.profiles.search',
    status: 200,
    erroring: { name: 'a limit of 0', status: 400,
      change: (request) => ({ ...request, query: { ...request.query, limit: '0' } }) },
  },
  'GET /v1/businessProfiles/{businessRegistrationNumber}': {
    operation: 'businesses.profiles.retrieve',
    status: { test: 200, live: 404 }, because: 'the live profile store holds no profiles here',
    erroring: { name: 'a number that is no number', status: 400,
      change: (request) => ({ ...request,
        path: request.path.replace(/[^/]+$/, 'not-a-number') }) },
  },
  'POST /v1/businessRegistrationStatuses:bulkInquire': {
    operation: 'businesses.registrationStatus.bulkInquire',
    status: { test: 200, live: 503 }, because: unavailableLive,
  },
  'GET /v1/businessRegistrationStatuses/{businessRegistrationNumber}': {
    operation: 'businesses.registrationStatus.inquire',
    status: { test: 200, live: 503 }, because: unavailableLive,
    erroring: { name: 'a number that is no number', status: 400,
      change: (request) => ({ ...request,
        path: request.path.replace(/[^/]+$/, 'not-a-number') }) },
  },

  'POST /v1/businessRegistrationCertificates:verify': {
    operation: 'businesses.certificates.verify',
    // A PDF whose text says nothing of a certificate: UNREADABLE, free, in both environments.
    status: 200,
    contentType: `multipart/form-data; boundary=${FORM_BOUNDARY}`,
    body: () => formWithFile(ASCII_PDF),
    erroring: { name: 'a file that is not a PDF, PNG or JPEG', status: 415,
      change: (request) => ({ ...request, body: formWithFile('just some text') }) },
  },

  'POST /v1/webhookEndpoints': {
    operation: 'webhooks.endpoints.create',
    status: 201,
    body: () => ({ url: ENDPOINT_URL, events: [EVENT_TYPE] }),
  },
  'GET /v1/webhookEndpoints': {
    // It takes no input: every endpoint of the key fits one answer.
    operation: 'webhooks.endpoints.list', uses: ['endpoint'], status: 200, erroring: null,
  },
  'GET /v1/webhookEndpoints/{endpointId}': {
    operation: 'webhooks.endpoints.retrieve', uses: ['endpoint'], status: 200,
  },
  'PATCH /v1/webhookEndpoints/{endpointId}': {
    operation: 'webhooks.endpoints.update', uses: ['endpoint'], status: 200,
  },
  'DELETE /v1/webhookEndpoints/{endpointId}': {
    operation: 'webhooks.endpoints.delete', uses: ['endpoint'], status: 204,
  },
  'POST /v1/webhookEndpoints/{endpointId}:rotateSecret': {
    operation: 'webhooks.endpoints.rotateSecret', uses: ['endpoint'], status: 200,
  },
  'POST /v1/webhookEndpoints/{endpointId}:test': {
    operation: 'webhooks.endpoints.test', uses: ['endpoint'], status: 202,
  },
  'GET /v1/webhookEndpoints/{endpointId}/deliveries': {
    operation: 'webhooks.deliveries.list',
    uses: ['endpoint', 'event'], status: 200,
  },
  'POST /v1/webhookEndpoints/{endpointId}/deliveries:resend': {
    operation: 'webhooks.deliveries.resend',
    uses: ['endpoint', 'event'], status: 202,
    body: ({ resources }) => ({ eventId: resources.eventId }),
  },
  'GET /v1/webhookEvents': { operation: 'webhooks.events.list', uses: ['event'], status: 200 },
  'GET /v1/webhookEvents/{eventId}': {
    operation: 'webhooks.events.retrieve', uses: ['event'], status: 200,
  },

  'POST /v1/issuers': {
    operation: 'issuers.create',
    status: 201,
    body: () => ({ identificationNumber: '2118700009', organizationName: '주식회사 계약',
      representativeName: '홍길동' }),
  },
  'GET /v1/issuers': { operation: 'issuers.list', uses: ['supplier'], status: 200 },
  'GET /v1/issuers/{issuerId}': { operation: 'issuers.get', uses: ['supplier'], status: 200 },
  'PATCH /v1/issuers/{issuerId}': {
    operation: 'issuers.update',
    uses: ['supplier'], status: 200, body: () => ({ organizationName: '주식회사 이택스' }),
  },
  'DELETE /v1/issuers/{issuerId}': {
    operation: 'issuers.deactivate', uses: ['supplier'], status: 200,
  },
  'POST /v1/issuers/{issuerId}/certificates': {
    operation: 'issuers.certificates.register',
    uses: ['supplier'], status: 202,
    // Well-formed; whether it opens is for the registration job, which does not run here.
    body: () => ({ signCert: Buffer.from('certificate').toString('base64'),
      signPri: Buffer.from('private key').toString('base64'), password: 'irrelevant' }),
  },
  'GET /v1/issuers/{issuerId}/certificates': {
    operation: 'issuers.certificates.get', uses: ['supplier'], status: 200,
  },
  'DELETE /v1/issuers/{issuerId}/certificates': {
    operation: 'issuers.certificates.deregister', uses: ['supplier'], status: 204,
  },
  'GET /v1/issuers/{issuerId}/certificates/url': {
    operation: 'issuers.certificates.url', uses: ['supplier'], status: 200,
  },
  'GET /v1/issuers/{issuerId}/certificates/latestHistory': {
    operation: 'issuers.certificates.latestHistory', uses: ['supplier'], status: 200,
  },
  'GET /v1/certificateRegistrationSettings': {
    operation: 'issuers.settings.get', status: 200, erroring: null,
  },
  'PUT /v1/certificateRegistrationSettings': { operation: 'issuers.settings.save', status: 200 },

  'POST /v1/taxInvoices/issue': {
    operation: 'taxInvoices.issue',
    uses: ['supplier'], status: 200,
    // The document's example has a fixed write date, which falls out of the issue window.
    body: () => invoiceBody(),
  },
  'POST /v1/taxInvoices:bulkIssue': {
    operation: 'taxInvoices.bulkIssue', uses: ['supplier'], status: 202,
    because: 'the bulk is accepted in both environments; the live key\'s document is refused ' +
      'inside it, as alone',
    // The same items every time, so a repeated example request answers the same bulk.
    body: ({ environment, resources }) => ({ items: [{
      clientReferenceId: `example-bulk-${environment}`, supplierKey: resources['supplier-key'],
      document: invoiceBody() }] }),
  },
  'GET /v1/taxInvoices/bulks': { operation: 'taxInvoices.bulks.list', status: 200 },
  'GET /v1/taxInvoices/bulks/{bulkId}': {
    operation: 'taxInvoices.bulks.get', status: 404,
    because: 'the document\'s bulkId names no bulk of this key',
  },
  'POST /v1/cashReceipts:bulkIssue': {
    operation: 'cashReceipts.bulkIssue', uses: ['supplier'], status: 202,
    because: 'the bulk is accepted in both environments; the live key\'s receipt is refused ' +
      'inside it, as alone',
    body: ({ environment, resources }) => ({ items: [{
      clientReferenceId: `example-bulk-${environment}`, supplierKey: resources['supplier-key'],
      document: receiptBody() }] }),
  },
  'GET /v1/cashReceipts/bulks': { operation: 'cashReceipts.bulks.list', status: 200 },
  'GET /v1/cashReceipts/bulks/{bulkId}': {
    operation: 'cashReceipts.bulks.get', status: 404,
    because: 'the document\'s bulkId names no bulk of this key',
  },
  'POST /v1/cashReceipts/issue': {
    operation: 'cashReceipts.issue',
    uses: ['supplier'], status: { test: 202, live: 503 },
    because: `${unavailableLive}; the test key's receipt is accepted`,
    // The document's example has a fixed trade date, which falls out of the window.
    body: () => receiptBody(),
  },
  'GET /v1/cashReceipts/issue/status': {
    operation: 'cashReceipts.status',
    status: 404, because: 'the document\'s reference id was never used by this key',
  },
  'GET /v1/cashReceipts': {
    operation: 'cashReceipts.list', uses: ['supplier', 'cashReceipt'], status: 200,
  },
  'GET /v1/cashReceipts/{issuanceKey}': {
    operation: 'cashReceipts.get', uses: ['supplier', 'cashReceipt'],
    status: { test: 200, live: 404 }, because: unavailableLive,
  },
  'GET /v1/cashReceipts/{issuanceKey}/pdf': {
    operation: 'cashReceipts.pdf', uses: ['supplier', 'cashReceipt'],
    status: { test: 200, live: 404 }, because: unavailableLive,
  },
  'POST /v1/cashReceipts/{issuanceKey}/cancel': {
    operation: 'cashReceipts.cancel', uses: ['supplier', 'cashReceipt'],
    status: { test: 409, live: 404 },
    because: 'the test key\'s receipt is not approved yet (workers are off); ' + unavailableLive,
  },
  'GET /v1/taxInvoices/issue/status': {
    operation: 'taxInvoices.status',
    status: 404, because: 'the document\'s reference id was never used by this key',
  },
  'GET /v1/taxInvoiceIssueDueDates': {
    operation: 'taxInvoices.issueDueDate', status: 200, query: { date: today() },
  },
  'GET /v1/taxInvoices': {
    operation: 'taxInvoices.list', uses: ['supplier', 'invoice'], status: 200,
  },
  'GET /v1/taxInvoices/{issuanceKey}': {
    operation: 'taxInvoices.get', uses: ['supplier', 'invoice'], status: 200,
  },
  'GET /v1/taxInvoices/{issuanceKey}/pdf': {
    operation: 'taxInvoices.pdf', uses: ['supplier', 'invoice'], status: 200,
  },
  'GET /v1/taxInvoices/{issuanceKey}/xml': {
    operation: 'taxInvoices.xml', uses: ['supplier', 'invoice'], status: 409,
    because: 'a PENDING invoice is not signed yet, and workers are off',
  },
  'POST /v1/taxInvoices/{issuanceKey}/attachments': {
    operation: 'taxInvoices.attachments.add', uses: ['supplier', 'invoice'], status: 201,
    contentType: `multipart/form-data; boundary=${FORM_BOUNDARY}`,
    body: () => formWithFiles(ASCII_PDF),
    erroring: { name: 'a file that is not a PDF, PNG, JPEG, XLSX or DOCX', status: 415,
      change: (request) => ({ ...request, body: formWithFile('just some text') }) },
  },
  'GET /v1/taxInvoices/{issuanceKey}/attachments': {
    operation: 'taxInvoices.attachments.list', uses: ['supplier', 'invoice'], status: 200,
  },
  'GET /v1/taxInvoices/{issuanceKey}/attachments/{attachmentId}': {
    operation: 'taxInvoices.attachments.get', uses: ['supplier', 'invoice'], status: 404,
    because: 'the attachment id names no attachment',
  },
  'DELETE /v1/taxInvoices/{issuanceKey}/attachments/{attachmentId}': {
    operation: 'taxInvoices.attachments.delete', uses: ['supplier', 'invoice'], status: 404,
    because: 'the attachment id names no attachment',
  },
  'POST /v1/taxInvoices/{issuanceKey}/cancel': {
    operation: 'taxInvoices.cancel', uses: ['supplier', 'invoice'], status: 200,
  },
  'POST /v1/taxInvoices/{issuanceKey}:resendEmail': {
    operation: 'taxInvoices.resendEmail', uses: ['supplier', 'invoice'], status: 409,
    because: 'only a transmitted invoice is mailed, and workers are off',
  },
  'POST /v1/taxInvoices/{issuanceKey}/amend/termination': {
    operation: 'taxInvoices.amend.termination',
    uses: ['supplier', 'invoice'], status: 409, body: () => ({ date: today() }),
    because: 'only a transmitted invoice is amended, and workers are off',
  },
  'POST /v1/taxInvoices/{issuanceKey}/amend/entryCorrection': {
    operation: 'taxInvoices.amend.entryCorrection',
    uses: ['supplier', 'invoice'], status: 409,
    body: () => ({ invoice: invoiceBody({ description: '정정' }) }),
    because: 'only a transmitted invoice is amended, and workers are off',
  },
  'POST /v1/taxInvoices/{issuanceKey}/amend/doubleIssuance': {
    operation: 'taxInvoices.amend.doubleIssuance',
    uses: ['supplier', 'invoice'], status: 409,
    because: 'only a transmitted invoice is amended, and workers are off',
  },
  'POST /v1/taxInvoices/{issuanceKey}/amend/changeSupplyCost': {
    operation: 'taxInvoices.amend.changeSupplyCost',
    uses: ['supplier', 'invoice'], status: 409,
    body: () => ({ date: today(), items: [{ name: '단가 인하', supplyCost: -10_000,
      tax: -1_000 }] }),
    because: 'only a transmitted invoice is amended, and workers are off',
  },
  'POST /v1/taxInvoices/{issuanceKey}/amend/returnedGoods': {
    operation: 'taxInvoices.amend.returnedGoods',
    uses: ['supplier', 'invoice'], status: 409,
    body: () => ({ date: today(), items: [{ name: '클라우드 사용료', quantity: 2,
      unitPrice: 5_000, supplyCost: 10_000, tax: 1_000 }] }),
    because: 'only a transmitted invoice is amended, and workers are off',
  },
  'POST /v1/taxInvoices/{issuanceKey}/amend/localLetterOfCredit': {
    operation: 'taxInvoices.amend.localLetterOfCredit',
    uses: ['supplier', 'invoice'], status: 409, body: () => ({ openedOn: today() }),
    because: 'only a transmitted invoice is amended, and workers are off',
  },
  'POST /v1/taxInvoices/issueRequest': {
    operation: 'taxInvoices.issueRequest',
    uses: ['supplier'], status: 200, body: () => invoiceBody(),
  },
  'GET /v1/taxInvoices/{issuanceKey}/issueRequest/grant': {
    operation: 'taxInvoices.issueRequest.grant',
    uses: ['supplier', 'reverseRequest'], status: 200,
  },
  'POST /v1/taxInvoices/{issuanceKey}/issueRequest/approve': {
    operation: 'taxInvoices.issueRequest.approve',
    uses: ['supplier', 'reverseRequest'], status: 200,
  },
  'POST /v1/taxInvoices/{issuanceKey}/issueRequest/refuse': {
    operation: 'taxInvoices.issueRequest.refuse',
    uses: ['supplier', 'reverseRequest'], status: 200, body: () => ({ reason: '계약과 다름' }),
  },
  'PUT /v1/taxInvoices/{issuanceKey}/issueRequest/cancel': {
    operation: 'taxInvoices.issueRequest.cancel',
    uses: ['supplier', 'reverseRequest'], status: 200,
  },

  'GET /v1/connections': {
    operation: 'connections.list', status: 200,
    erroring: { name: 'an unknown kind', status: 400,
      change: (request) => ({ ...request, query: { ...request.query, kind: 'FAX' } }) },
  },
  'GET /v1/connections/url': {
    operation: 'connections.url', status: 200,
    erroring: { name: 'an unknown kind', status: 400,
      change: (request) => ({ ...request, query: { ...request.query, kind: 'FAX' } }) },
  },
  'DELETE /v1/connections/{connectionId}': {
    operation: 'connections.delete', status: 404,
    because: 'the example names no connection of the caller',
  },
  'GET /v1/revenueExpenses/taxInvoices': {
    operation: 'revenueExpenses.taxInvoices.list', status: 200,
  },
  'POST /v1/revenueExpenses:collect': {
    operation: 'revenueExpenses.collect', status: 409,
    body: () => ({ from: today().slice(0, 7), to: today().slice(0, 7) }),
    because: 'the caller has not connected the tax portal',
  },
  'GET /v1/revenueExpenses/collections/{collectionId}': {
    operation: 'revenueExpenses.collections.get', status: 404,
    because: 'the example names no collection of the caller',
  },
  'GET /v1/bankAccounts': { operation: 'bankAccounts.list', status: 200, erroring: null },
  'GET /v1/bankAccounts/{bankAccountId}/transactions': {
    operation: 'bankAccounts.transactions.list', status: 404,
    because: 'the example names no bank account of the caller',
  },
  'POST /v1/bankAccounts/{bankAccountId}:sync': {
    operation: 'bankAccounts.sync', status: 404,
    because: 'the example names no bank account of the caller',
  },
  'GET /v1/bankAccounts/{bankAccountId}/syncs/{syncId}': {
    operation: 'bankAccounts.syncs.get', status: 404,
    because: 'the example names no sync of the caller',
  },
  'GET /v1/account/business': {
    operation: 'account.business.get', uses: ['ownerBusiness'], status: 200, erroring: null,
  },
  'PUT /v1/account/business': { operation: 'account.business.save', status: 200 },
  'POST /v1/documents/issue': {
    operation: 'documents.issue', status: 202,
    // The document's first example needs a registered certificate; a registry copy does not.
    body: () => ({ type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: '110111-0062432' }),
  },
  'GET /v1/documents': { operation: 'documents.list', uses: ['document'], status: 200 },
  'GET /v1/documents/{issuanceKey}': {
    operation: 'documents.get', uses: ['document'], status: 200,
  },
  'GET /v1/documents/{issuanceKey}/pdf': {
    operation: 'documents.pdf', uses: ['document'], status: 409,
    because: 'the document is issued by a job, and workers are off',
  },
};

export function operationName(operation: Operation): string {
  return `${operation.method} ${operation.path}`;
}

export function missingExample(operation: Operation): string {
  return `add an example request for ${operationName(operation)} to EXAMPLES in ` +
    'test/api/operation-examples.ts';
}

// Makes the resources an example names, for one caller in one environment.
const COUNTERPARTY_EXAMPLES: Record<string, Example> = {
  'POST /v1/counterparties': { operation: 'counterparties.create', status: 201 },
  'GET /v1/counterparties': { operation: 'counterparties.list', uses: ['counterparty'],
    status: 200 },
  'GET /v1/counterparties/{counterpartyId}': { operation: 'counterparties.get',
    uses: ['counterparty'], status: 200 },
  'PATCH /v1/counterparties/{counterpartyId}': { operation: 'counterparties.update',
    uses: ['counterparty'], status: 200, body: () => ({ memo: '메모' }) },
  'DELETE /v1/counterparties/{counterpartyId}': { operation: 'counterparties.delete',
    uses: ['counterparty'], status: 204 },
  'POST /v1/counterparties/{counterpartyId}:refreshStatus': {
    operation: 'counterparties.refreshStatus', uses: ['counterparty'],
    status: { test: 200, live: 503 }, because: unavailableLive,
  },
  'POST /v1/counterpartyImports': {
    operation: 'counterparties.imports.create', status: 201,
    contentType: `multipart/form-data; boundary=${FORM_BOUNDARY}`,
    body: () => counterpartyForm(COUNTERPARTY_CSV),
    erroring: { name: 'a file that is not a table of counterparties', status: 400,
      change: (request) => ({ ...request, body: counterpartyForm('just,some\r\ntext,here') }) },
  },
  'GET /v1/counterpartyImports/{importId}': { operation: 'counterparties.imports.get',
    uses: ['counterpartyImport'], status: 200 },
  'POST /v1/counterpartyImports/{importId}:commit': { operation: 'counterparties.imports.commit',
    uses: ['counterpartyImport'], status: 200 },
};
// The previews of issuance (free, no effect) and the drafts of both document kinds.
const noDraft = 'the document\'s draftId names no draft of this key';
const draftExamples = (kind: 'taxInvoices' | 'cashReceipts', body: () => unknown):
Record<string, Example> => ({
  [`POST /v1/${kind}/drafts`]: { operation: `${kind}.drafts.create`, uses: ['supplier'],
    status: 201, body },
  [`GET /v1/${kind}/drafts`]: { operation: `${kind}.drafts.list`, status: 200 },
  [`GET /v1/${kind}/drafts/{draftId}`]: { operation: `${kind}.drafts.get`, status: 404,
    because: noDraft },
  [`PATCH /v1/${kind}/drafts/{draftId}`]: { operation: `${kind}.drafts.update`, status: 404,
    because: noDraft, body: () => ({}) },
  [`DELETE /v1/${kind}/drafts/{draftId}`]: { operation: `${kind}.drafts.delete`, status: 404,
    because: noDraft },
  [`POST /v1/${kind}/drafts/{draftId}:issue`]: { operation: `${kind}.drafts.issue`,
    status: 404, because: noDraft },
});

// The validation of each amendment, with its amendment's body: the invoice is not transmitted.
function amendmentValidationExamples(): Record<string, Example> {
  const reasons = ['termination', 'entryCorrection', 'doubleIssuance', 'changeSupplyCost',
    'returnedGoods', 'localLetterOfCredit'];
  return Object.fromEntries(reasons.map((reason) => {
    const amendment = EXAMPLES[`POST /v1/taxInvoices/{issuanceKey}/amend/${reason}`]!;
    return [`POST /v1/taxInvoices/{issuanceKey}/amendments/${reason}:validate`, {
      operation: `taxInvoices.amend.${reason}.validate`, uses: ['supplier', 'invoice'],
      status: 409, ...(amendment.body === undefined ? {} : { body: amendment.body }),
      because: 'only a transmitted invoice is amended, and workers are off' }];
  }));
}

const PREVIEW_AND_DRAFT_EXAMPLES: Record<string, Example> = {
  'POST /v1/taxInvoices:validate': { operation: 'taxInvoices.validate', uses: ['supplier'],
    status: 200, body: () => invoiceBody() },
  'POST /v1/cashReceipts:validate': { operation: 'cashReceipts.validate', uses: ['supplier'],
    status: { test: 200, live: 503 }, because: unavailableLive, body: () => receiptBody() },
  'POST /v1/documents:validate': { operation: 'documents.validate', status: 200,
    body: () => ({ type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: '110111-0062432' }) },
  'POST /v1/taxInvoices/issueRequests:validate': {
    operation: 'taxInvoices.issueRequest.validate', uses: ['supplier'], status: 200,
    body: () => invoiceBody() },
  'POST /v1/cashReceipts/{issuanceKey}/cancellations:validate': {
    operation: 'cashReceipts.cancel.validate', uses: ['supplier', 'cashReceipt'],
    status: { test: 409, live: 404 }, body: () => ({ reason: 'TRANSACTION_CANCELED' }),
    because: 'the test key\'s receipt is not approved yet (workers are off); ' + unavailableLive },
  ...amendmentValidationExamples(),
  ...draftExamples('taxInvoices', () => invoiceBody()),
  ...draftExamples('cashReceipts', () => receiptBody()),
};

Object.assign(EXAMPLES, COUNTERPARTY_EXAMPLES, PREVIEW_AND_DRAFT_EXAMPLES);

export async function makeResources(app: TestApp, caller: { accountId: string; key: string },
  environment: Environment, kinds: ResourceKind[]): Promise<Resources> {
  const resources: Resources = {};
  const call = async (method: 'POST' | 'PUT', url: string, payload: unknown) => {
    const response = await app.server.inject(jsonRequest(caller.key, method, url, payload));
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return response.json() as Record<string, string>;
  };
  for (const kind of kinds) {
    switch (kind) {
      case 'endpoint':
        resources.endpointId = (await call('POST', '/v1/webhookEndpoints',
          { url: ENDPOINT_URL, events: [EVENT_TYPE] })).id!;
        break;
      case 'event':
        resources.eventId = (await app.webhooks.recordEvent(app.platform.database.db,
          { accountId: caller.accountId, environment }, { type: EVENT_TYPE,
            data: { issuanceKey: 'iss_1', taxInvoiceUrl: 'https://example.com/i/iss_1' } })).id;
        break;
      case 'supplier': {
        const supplier = await registerSupplier(app, caller.key);
        resources.issuerId = supplier.issuerId;
        resources['supplier-key'] = supplier.supplierKey;
        break;
      }
      case 'invoice': {
        const response = await issue(app, caller.key, resources['supplier-key']!);
        expect(response.statusCode, response.body).toBe(200);
        resources.issuanceKey = (response.json() as { issuanceKey: string }).issuanceKey;
        break;
      }
      case 'reverseRequest':
        resources.issuanceKey = await newRequest(app, caller.key, resources['supplier-key']!);
        break;
      case 'cashReceipt': {
        if (environment === 'live') {
          resources.issuanceKey = 'csr_none';
          break;
        }
        const response = await issueReceipt(app, caller.key, resources['supplier-key']!,
          receiptBody());
        expect(response.statusCode, response.body).toBe(202);
        resources.issuanceKey = (response.json() as { issuanceKey: string }).issuanceKey;
        break;
      }
      case 'ownerBusiness':
        await call('PUT', '/v1/account/business', { businessNumber: '1234567891',
          name: '주식회사 이택스', representativeName: '홍길동' });
        break;
      case 'document': {
        const issue = jsonRequest(caller.key, 'POST', '/v1/documents/issue',
          { type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: '1101110062432' });
        const response = await app.server.inject({ ...issue, headers: { ...issue.headers,
          'service-client-reference-id': `example-${environment}` } });
        expect(response.statusCode, response.body).toBe(202);
        resources.issuanceKey = (response.json() as { issuanceKey: string }).issuanceKey;
        break;
      }
      case 'counterparty':
        resources.counterpartyId = (await call('POST', '/v1/counterparties',
          { businessRegistrationNumber: '2208162517', organizationName: '주식회사 받는곳',
            representativeName: '이영희' })).id!;
        break;
      case 'counterpartyImport': {
        const response = await app.server.inject({ method: 'POST', url: '/v1/counterpartyImports',
          headers: { authorization: `Basic ${Buffer.from(`${caller.key}:`).toString('base64')}`,
            'content-type': `multipart/form-data; boundary=${FORM_BOUNDARY}` },
          payload: counterpartyForm(COUNTERPARTY_CSV) });
        expect(response.statusCode, response.body).toBe(201);
        resources.importId = (response.json() as { id: string }).id;
        break;
      }
      default:
        throw new Error(`no resource kind ${kind satisfies never}`);
    }
  }
  return resources;
}

// An account with live points to spend and, in each environment, the resources of `kinds`.
export async function exampleAccount(app: TestApp, kinds: ResourceKind[]) {
  const account = await app.createAccount();
  await app.platform.points.grant({ accountId: account.accountId, environment: 'live',
    points: LIVE_GRANT_POINTS });
  const resources = {} as Record<Environment, Resources>;
  for (const environment of ['test', 'live'] as const) {
    resources[environment] = await makeResources(app, { accountId: account.accountId,
      key: account.keys[environment] }, environment, kinds);
  }
  return { ...account, resources };
}

// The value of a parameter that no resource fills: the document's example, its default, or
// the smallest value its schema accepts.
function parameterValue(parameter: Parameter): string {
  const value = parameter.example ?? sampleValue(parameter.schema);
  return String(value);
}

export function exampleFor(operation: Operation): Example {
  const example = EXAMPLES[operationName(operation)];
  if (example === undefined) throw new Error(missingExample(operation));
  return example;
}

// The example request of an operation, naming `resources` where its parameters carry them;
// `pathValues` replaces path parameters.
export function exampleParts(operation: Operation, resources: Resources, environment: Environment,
  pathValues: Record<string, string> = {}): RequestParts {
  const example = exampleFor(operation);
  const valueOf = (parameter: Parameter) => resources[parameter.name] ?? parameterValue(parameter);
  const query: Record<string, string> = {};
  const headers: Record<string, string> = {};
  for (const parameter of operation.parameters) {
    if (parameter.in === 'path') {
      pathValues[parameter.name] ??= encodeURIComponent(valueOf(parameter));
    }
    if (!parameter.required && resources[parameter.name] === undefined) continue;
    if (parameter.in === 'query') query[parameter.name] = valueOf(parameter);
    if (parameter.in === 'header') headers[parameter.name] = valueOf(parameter);
  }
  Object.assign(query, example.query);
  let body: unknown;
  if (example.contentType !== undefined) {
    headers['content-type'] = example.contentType;
    body = example.body?.({ environment, resources });
  } else if (operation.body !== null) {
    body = example.body?.({ environment, resources }) ?? operation.bodyExamples[0];
    if (body === undefined && operation.bodyRequired) throw new Error(missingExample(operation));
  }
  return { method: operation.method, path: fillPath(operation.path, pathValues), query, headers,
    body };
}

export const statusIn = (example: Example, environment: Environment) =>
  typeof example.status === 'number' ? example.status : example.status[environment];

// The request to inject for `parts`, sent with `authorization` (none when null).
export function toInjectOptions(parts: RequestParts, authorization: string | null): InjectOptions {
  const headers: Record<string, string> = { ...parts.headers };
  if (authorization !== null) headers.authorization = authorization;
  let payload: string | undefined;
  if (parts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    payload = typeof parts.body === 'string' ? parts.body : JSON.stringify(parts.body);
  }
  const search = new URLSearchParams(parts.query).toString();
  return { method: parts.method as InjectOptions['method'],
    url: search === '' ? parts.path : `${parts.path}?${search}`, headers,
    ...(payload === undefined ? {} : { payload }) };
}
