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
import { BulkIssueBody, TaxInvoiceBulk, TaxInvoiceBulkAccepted, TaxInvoiceBulkPage }
  from './schemas.ts';
import type { TaxInvoiceBulkService } from './service.ts';

// Tax invoice bulk issuance under /v1 (docs/bulk-issuance.md). Handlers only translate.

const TAGS = ['Tax invoices'];

type Options = { bulks: TaxInvoiceBulkService };

export const taxInvoiceBulkRoutes: FastifyPluginAsyncTypebox<Options> = async (app,
  { bulks }) => {
  app.post('/taxInvoices::bulkIssue', {
    config: { operation: 'taxInvoices.bulkIssue' },
    bodyLimit: BULK_BODY_BYTES_MAX,
    schema: {
      operationId: 'bulkIssueTaxInvoices', tags: TAGS, summary: 'Issue tax invoices in bulk',
      description: 'Accepts 1 to 100 tax invoices, each with its own ' +
        '`clientReferenceId` and `supplierKey`, and answers 202 with the `bulkId` and each ' +
        'item\'s outcome: its `issuanceKey`, or the status, code and message its own ' +
        'POST /v1/taxInvoices/issue would have answered. One refused document never refuses ' +
        'the others. Each accepted document is charged the `taxInvoices.issue` price, as ' +
        'alone; refused ones are not charged. `Service-Client-Reference-Id` (required) names ' +
        'the bulk: the same value with the same items answers the same bulk again without ' +
        'acting twice; with other items, 409 IDEMPOTENCY_CONFLICT. The ' +
        'TAX_INVOICE_BULK_COMPLETED webhook follows once every accepted document is final.',
      headers: BulkHeaders, body: BulkIssueBody,
      response: { 202: TaxInvoiceBulkAccepted,
        ...errorResponses(...COMMON_ERRORS, ...BODY_ERRORS, INPUT_CHECKED_AFTER_COUNTING,
          'IDEMPOTENCY_CONFLICT') },
    },
  }, async (request, reply) => {
    const accepted = await bulks.bulkIssue({ caller: requestCaller(request),
      referenceId: request.headers['service-client-reference-id'],
      items: request.body.items });
    return reply.code(202).send(accepted);
  });

  app.get('/taxInvoices/bulks', {
    config: { operation: 'taxInvoices.bulks.list' },
    schema: {
      operationId: 'listTaxInvoiceBulks', tags: TAGS, summary: 'List tax invoice bulks',
      description: 'Bulks of this account and environment in the order they were made, ' +
        'paged with an opaque cursor.',
      querystring: BulkListQuery,
      response: { 200: TaxInvoiceBulkPage,
        ...errorResponses(...COMMON_ERRORS, INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => withHasMore(await bulks.listBulks({ scope: requestScope(request),
    ...request.query })));

  app.get('/taxInvoices/bulks/:bulkId', {
    config: { operation: 'taxInvoices.bulks.get' },
    schema: {
      operationId: 'getTaxInvoiceBulk', tags: TAGS, summary: 'Get a tax invoice bulk',
      description: 'The bulk\'s status, how many of its documents are in each state, and each ' +
        'item\'s outcome with its document\'s state now. A bulk of another account or ' +
        'environment is 404 NOT_FOUND.',
      params: BulkIdParams,
      response: { 200: TaxInvoiceBulk, ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND') },
    },
  }, async (request) => bulks.getBulk({ scope: requestScope(request), ...request.params }));
};
