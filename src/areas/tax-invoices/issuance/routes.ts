import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withHasMore } from '../../../platform/paging.ts';
import { PDF_RESPONSE, sendPdf } from '../../../platform/pdf-response.ts';
import { Type } from '@fastify/type-provider-typebox';
import { requestCaller, requestScope } from '../../../platform/scope.ts';
import { acceptEmptyJsonBodies } from '../../../platform/bodyless.ts';
import {
  BODY_ERRORS,
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
} from '../../../platform/error-responses.ts';
import { ACCEPTANCE_ERRORS, COMMON_ERRORS } from '../route-errors.ts';
import {
  IssuanceAccepted, IssuanceKeyParams, IssueHeaders, StandardIssueBody,
} from '../schemas.ts';
import {
  IssueValidation,
  DueDate,
  DueDateQuery,
  ListQuery,
  ReferenceStatus,
  StatusQuery,
  TaxInvoice,
  TaxInvoicePage,
} from './schemas.ts';
import type { IssuanceService } from './service.ts';

// Tax invoice issuance and retrieval under /v1 (docs/tax-invoices.md). Handlers only translate:
// the caller in, the service's answer out.

const TAGS = ['Tax invoices'];

type Options = { taxInvoices: IssuanceService };

const registerIssuance: FastifyPluginAsyncTypebox<Options> = async (app, { taxInvoices }) => {
  app.post('/taxInvoices/issue', {
    config: { operation: 'taxInvoices.issue' },
    schema: {
      operationId: 'issueTaxInvoice', tags: TAGS, summary: 'Issue a tax invoice',
      description: 'Accepts a tax invoice for issuance by the supplier that `Supplier-Key` ' +
        'names. Everything that can be checked is checked now; signing and transmission to ' +
        'the tax authority follow asynchronously, reported by the TAX_INVOICE_ISSUANCE_SUCCESS ' +
        'and _FAILURE webhooks and readable with GET /v1/taxInvoices/{issuanceKey}. A ' +
        '`Service-Client-Reference-Id` can never be used again by this key for any tax ' +
        'invoice request (400 INVALID_REQUEST); after a network failure, read ' +
        'GET /v1/taxInvoices/issue/status instead of resending. Charges the ' +
        '`taxInvoices.issue` price, refunded if the invoice ends without being issued. The ' +
        'recipient may be named by a counterparty of the book (`supplied.counterpartyId`, ' +
        'docs/counterparties.md); a counterparty found closed is 409 COUNTERPARTY_CLOSED.',
      headers: IssueHeaders, body: StandardIssueBody,
      response: { 200: IssuanceAccepted,
        ...errorResponses(...COMMON_ERRORS, ...ACCEPTANCE_ERRORS, 'COUNTERPARTY_CLOSED') },
    },
  }, async (request) => taxInvoices.issue({
    caller: requestCaller(request),
    supplierKey: request.headers['supplier-key'],
    referenceId: request.headers['service-client-reference-id'],
    body: request.body,
  }));
};

// The issue route's checks without its effect: the preview of agents and of the dashboard.
const registerValidation: FastifyPluginAsyncTypebox<Options> = async (app, { taxInvoices }) => {
  app.post('/taxInvoices::validate', {
    config: { operation: 'taxInvoices.validate' },
    schema: {
      operationId: 'validateTaxInvoice', tags: TAGS, summary: 'Validate a tax invoice',
      description: 'Runs everything POST /v1/taxInvoices/issue runs, with the same headers ' +
        'and body, short of its effect: the body\'s checks, the totals and tax as etax ' +
        'computes them, the issue deadline and lateness with its penalty rates, the ' +
        'supplier\'s eligibility, the points available for the price and whether ' +
        '`Service-Client-Reference-Id` is still unused. Answers what would be issued, or ' +
        'exactly the error issuance would give. Free: nothing is charged, recorded or claimed.',
      headers: IssueHeaders, body: StandardIssueBody,
      response: { 200: IssueValidation,
        ...errorResponses(...COMMON_ERRORS, ...ACCEPTANCE_ERRORS, 'COUNTERPARTY_CLOSED') },
    },
  }, async (request) => taxInvoices.validateIssue({
    caller: requestCaller(request),
    supplierKey: request.headers['supplier-key'],
    referenceId: request.headers['service-client-reference-id'],
    body: request.body,
  }));
};

// The outcome of a request by its reference id, for a client whose answer was lost.
const registerRequestStatus: FastifyPluginAsyncTypebox<Options> = async (app,
  { taxInvoices }) => {
  app.get('/taxInvoices/issue/status', {
    config: { operation: 'taxInvoices.status' },
    schema: {
      operationId: 'getTaxInvoiceRequestStatus', tags: TAGS,
      summary: 'Status of a request by client reference id',
      description: 'The processing status of the tax invoice request this key made with ' +
        'the `Service-Client-Reference-Id`. A value this key never used ' +
        'finds what a dashboard user of the key\'s account and environment made with it (the ' +
        'reference id the dashboard shows); else 404 NOT_FOUND.',
      querystring: StatusQuery,
      response: { 200: ReferenceStatus,
        ...errorResponses(...COMMON_ERRORS, INPUT_CHECKED_AFTER_COUNTING, 'NOT_FOUND') },
    },
  }, async (request) => taxInvoices.statusByReference({ caller: requestCaller(request),
    referenceId: request.query.clientReferenceId }));

  app.get('/taxInvoiceIssueDueDates', {
    config: { operation: 'taxInvoices.issueDueDate' },
    schema: {
      operationId: 'getTaxInvoiceIssueDueDate', tags: TAGS,
      summary: 'Issue deadline of a write date',
      description: 'The 10th of the month after the write date, or the next business day ' +
        'when that is a weekend or public holiday. Free.',
      querystring: DueDateQuery,
      response: { 200: DueDate,
        ...errorResponses(...COMMON_ERRORS, INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => taxInvoices.issueDueDate(request.query.date));
};

const registerRetrieval: FastifyPluginAsyncTypebox<Options> = async (app, { taxInvoices }) => {
  app.get('/taxInvoices', {
    config: { operation: 'taxInvoices.list' },
    schema: {
      operationId: 'listTaxInvoices', tags: TAGS, summary: 'List tax invoices',
      description: 'Documents of this account and environment in the order they were made, ' +
        'filtered by write date range, status, recipient number and supplier, paged with an ' +
        'opaque cursor.',
      querystring: ListQuery,
      response: { 200: TaxInvoicePage,
        ...errorResponses(...COMMON_ERRORS, INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => {
    const { limit, cursor, status, ...filters } = request.query;
    return withHasMore(await taxInvoices.list({ scope: requestScope(request), limit, cursor,
      filters: { ...filters, statuses: status } }));
  });

  app.get('/taxInvoices/:issuanceKey', {
    config: { operation: 'taxInvoices.get' },
    schema: {
      operationId: 'getTaxInvoice', tags: TAGS, summary: 'Get a tax invoice',
      description: 'The document in any state; `ntsTransactionId` is null until transmitted.',
      params: IssuanceKeyParams,
      response: { 200: TaxInvoice, ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND') },
    },
  }, async (request) => taxInvoices.get({ scope: requestScope(request), ...request.params }));

  app.get('/taxInvoices/:issuanceKey/pdf', {
    config: { operation: 'taxInvoices.pdf' },
    schema: {
      operationId: 'getTaxInvoicePdf', tags: TAGS, summary: 'Download a tax invoice as PDF',
      description: 'The document in the standard Korean tax invoice layout. Sandbox documents ' +
        'are marked as not reported to the tax authority.',
      params: IssuanceKeyParams,
      response: {
        200: PDF_RESPONSE,
        ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND'),
      },
    },
  }, async (request, reply) => {
    const pdf = await taxInvoices.pdf({ scope: requestScope(request), ...request.params });
    return sendPdf(reply, request.params.issuanceKey, pdf);
  });
};

// Cancel takes no body; its own plugin keeps the empty-body parser away from the other routes.
const registerCancel: FastifyPluginAsyncTypebox<Options> = async (app, { taxInvoices }) => {
  acceptEmptyJsonBodies(app);

  app.post('/taxInvoices/:issuanceKey/cancel', {
    config: { operation: 'taxInvoices.cancel', body: 'none' },
    schema: {
      operationId: 'cancelTaxInvoice', tags: TAGS, summary: 'Cancel before transmission',
      description: 'Withdraws a PENDING or ISSUED tax invoice before it is transmitted to the ' +
        'tax authority, and refunds its points. A transmitting or transmitted invoice is 409 ' +
        'TAX_INVOICE_NOT_CANCELABLE: amend it instead. Body: none (an empty body or `{}` is ' +
        'ignored, anything else is 400).',
      params: IssuanceKeyParams,
      response: {
        200: Type.Object({ issuanceKey: Type.String(), status: Type.Literal('CANCELED') },
          { title: 'TaxInvoiceCanceled', description: 'The tax invoice, now CANCELED.',
            additionalProperties: false }),
        ...errorResponses(...COMMON_ERRORS, ...BODY_ERRORS, 'NOT_FOUND',
          'TAX_INVOICE_NOT_CANCELABLE'),
      },
    },
  }, async (request) => taxInvoices.cancel({ scope: requestScope(request), ...request.params })
    .then((canceled) => ({ issuanceKey: canceled.issuanceKey, status: 'CANCELED' as const })));
};

export const issuanceRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  await app.register(registerIssuance, options);
  await app.register(registerValidation, options);
  await app.register(registerRequestStatus, options);
  await app.register(registerRetrieval, options);
  await app.register(registerCancel, options);
};
