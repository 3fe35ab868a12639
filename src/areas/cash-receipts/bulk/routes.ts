import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BULK_BODY_BYTES_MAX } from '../../../platform/bulks/bulks.ts';
import { BulkHeaders, BulkIdParams, BulkListQuery } from '../../../platform/bulks/schemas.ts';
import {
  BODY_ERRORS,
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
} from '../../../platform/error-responses.ts';
import { withHasMore } from '../../../platform/paging.ts';
import { requestCaller, requestScope } from '../../../platform/scope.ts';
import { COMMON_ERRORS } from '../route-errors.ts';
import { BulkIssueBody, CashReceiptBulk, CashReceiptBulkAccepted, CashReceiptBulkPage }
  from './schemas.ts';
import type { CashReceiptBulkService } from './service.ts';

// Cash receipt bulk issuance under /v1 (docs/bulk-issuance.md). Handlers only translate.

type Options = { bulks: CashReceiptBulkService };

export const cashReceiptBulkRoutes: FastifyPluginAsyncTypebox<Options> = async (app,
  { bulks }) => {
  app.post('/cashReceipts::bulkIssue', {
    config: { operation: 'cashReceipts.bulkIssue' },
    bodyLimit: BULK_BODY_BYTES_MAX,
    schema: {
      operationId: 'bulkIssueCashReceipts', summary: 'Issue cash receipts in bulk',
      description: 'Accepts 1 to 100 cash receipts, each with its own ' +
        '`clientReferenceId` and `supplierKey`, and answers 202 with the `bulkId` and each ' +
        'item\'s outcome: its `issuanceKey`, or the status, code and message its own ' +
        'POST /v1/cashReceipts/issue would have answered. One refused receipt never refuses ' +
        'the others. Each accepted receipt is charged the `cashReceipts.issue` price, as ' +
        'alone; refused ones are not charged. `Service-Client-Reference-Id` (required) names ' +
        'the bulk: the same value with the same items answers the same bulk again without ' +
        'acting twice; with other items, 409 IDEMPOTENCY_CONFLICT. The ' +
        'CASH_RECEIPT_BULK_COMPLETED webhook follows once the tax authority decided every ' +
        'accepted receipt.',
      headers: BulkHeaders, body: BulkIssueBody,
      response: { 202: CashReceiptBulkAccepted,
        ...errorResponses(...COMMON_ERRORS, ...BODY_ERRORS, INPUT_CHECKED_AFTER_COUNTING,
          'IDEMPOTENCY_CONFLICT') },
    },
  }, async (request, reply) => {
    const accepted = await bulks.bulkIssue({ caller: requestCaller(request),
      referenceId: request.headers['service-client-reference-id'],
      items: request.body.items });
    return reply.code(202).send(accepted);
  });

  app.get('/cashReceipts/bulks', {
    config: { operation: 'cashReceipts.bulks.list' },
    schema: {
      operationId: 'listCashReceiptBulks', summary: 'List cash receipt bulks',
      description: 'Bulks of this account and environment in the order they were made, ' +
        'paged with an opaque cursor.',
      querystring: BulkListQuery,
      response: { 200: CashReceiptBulkPage,
        ...errorResponses(...COMMON_ERRORS, INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => withHasMore(await bulks.listBulks({ scope: requestScope(request),
    ...request.query })));

  app.get('/cashReceipts/bulks/:bulkId', {
    config: { operation: 'cashReceipts.bulks.get' },
    schema: {
      operationId: 'getCashReceiptBulk', summary: 'Get a cash receipt bulk',
      description: 'The bulk\'s status, how many of its receipts are in each state, and each ' +
        'item\'s outcome with its receipt\'s state now. A bulk of another account or ' +
        'environment is 404 NOT_FOUND.',
      params: BulkIdParams,
      response: { 200: CashReceiptBulk, ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND') },
    },
  }, async (request) => bulks.getBulk({ scope: requestScope(request), ...request.params }));
};
