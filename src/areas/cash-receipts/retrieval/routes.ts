import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PDF_RESPONSE, sendPdf } from '../../../platform/pdf-response.ts';
import { withHasMore } from '../../../platform/paging.ts';
import {
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
} from '../../../platform/error-responses.ts';
import { requestCaller, requestScope } from '../../../platform/scope.ts';
import { COMMON_ERRORS } from '../route-errors.ts';
import {
  CashReceipt,
  CashReceiptPage,
  IssuanceKeyParams,
  ListQuery,
  ReferenceStatus,
  StatusQuery,
} from '../schemas.ts';
import type { RetrievalService } from './service.ts';

// Reading cash receipts under /v1 (docs/cash-receipts.md): a request's status by reference id,
// the list, a receipt and its PDF. Handlers only translate: the caller in, the service's answer
// out.

type Options = { cashReceipts: RetrievalService };

const registerRetrieval: FastifyPluginAsyncTypebox<Options> = async (app, { cashReceipts }) => {
  app.get('/cashReceipts/issue/status', {
    config: { operation: 'cashReceipts.status' },
    schema: {
      operationId: 'getCashReceiptRequestStatus',
      summary: 'Status of a request by client reference id',
      description: 'The processing status of the issuance or cancellation this key made ' +
        'with the `Service-Client-Reference-Id`. A value this key never used ' +
        'finds what a dashboard user of the key\'s account and environment made with it (the ' +
        'reference id the dashboard shows); else 404 NOT_FOUND.',
      querystring: StatusQuery,
      response: { 200: ReferenceStatus,
        ...errorResponses(...COMMON_ERRORS, INPUT_CHECKED_AFTER_COUNTING, 'NOT_FOUND') },
    },
  }, async (request) => cashReceipts.statusByReference({ caller: requestCaller(request),
    referenceId: request.query.clientReferenceId }));

  app.get('/cashReceipts', {
    config: { operation: 'cashReceipts.list' },
    schema: {
      operationId: 'listCashReceipts', summary: 'List cash receipts',
      description: 'Receipts and cancellations of this account and environment in the order ' +
        'they were made, filtered by trade date range, status and kind, paged with an opaque ' +
        'cursor.',
      querystring: ListQuery,
      response: { 200: CashReceiptPage,
        ...errorResponses(...COMMON_ERRORS, INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => {
    const { limit, cursor, ...filters } = request.query;
    return withHasMore(await cashReceipts.list({ scope: requestScope(request), limit, cursor,
      filters }));
  });

  app.get('/cashReceipts/:issuanceKey', {
    config: { operation: 'cashReceipts.get' },
    schema: {
      operationId: 'getCashReceipt', summary: 'Get a cash receipt',
      description: 'The receipt or cancellation in any state; `approvalNumber` is null until ' +
        'the tax authority approves it. The identity number is masked.',
      params: IssuanceKeyParams,
      response: { 200: CashReceipt, ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND') },
    },
  }, async (request) => cashReceipts.get({ scope: requestScope(request), ...request.params }));

  app.get('/cashReceipts/:issuanceKey/pdf', {
    config: { operation: 'cashReceipts.pdf' },
    schema: {
      operationId: 'getCashReceiptPdf', summary: 'Download a cash receipt as PDF',
      description: 'The receipt as a Korean receipt slip: approval number, merchant, amounts, ' +
        'usage and the masked identity number. Sandbox receipts carry a SANDBOX mark.',
      params: IssuanceKeyParams,
      response: {
        200: PDF_RESPONSE,
        ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND'),
      },
    },
  }, async (request, reply) => {
    const pdf = await cashReceipts.pdf({ scope: requestScope(request), ...request.params });
    return sendPdf(reply, request.params.issuanceKey, pdf);
  });

};

export const retrievalRoutes: FastifyPluginAsyncTypebox<Options> = registerRetrieval;
