import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withHasMore } from '../../../platform/paging.ts';
import { PDF_RESPONSE, sendPdf } from '../../../platform/pdf-response.ts';
import { requestCaller, requestScope } from '../../../platform/scope.ts';
import {
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
} from '../../../platform/error-responses.ts';
import { COMMON_ERRORS } from '../route-errors.ts';
import { IssuanceKeyParams } from '../schemas.ts';
import {
  DueDate,
  DueDateQuery,
  ListQuery,
  ReferenceStatus,
  StatusQuery,
  TaxInvoice,
  TaxInvoicePage,
} from './schemas.ts';
import type { RetrievalService } from './service.ts';

// Reading tax invoices under /v1 (docs/tax-invoices.md): a request's status by reference id, the
// issue deadline of a write date, the list, a document and its PDF. Handlers only translate: the
// caller in, the service's answer out.

const TAGS = ['Tax invoices'];

type Options = { taxInvoices: RetrievalService };

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
  }, async (request) => taxInvoices.issueDueDate({ date: request.query.date }));
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

export const retrievalRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  await app.register(registerRequestStatus, options);
  await app.register(registerRetrieval, options);
};
