import { type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import {
  BODY_ERRORS,
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
  type DeclaredError,
} from '../error-responses.ts';
import type { Operation } from '../operations.ts';
import { withHasMore } from '../paging.ts';
import { requestCaller, requestScope } from '../scope.ts';
import { BULK_BODY_BYTES_MAX } from './bulks.ts';
import type { BulkIssuanceService, BulkIssueItem } from './issuance.ts';
import {
  BulkHeaders,
  BulkIdParams,
  BulkListQuery,
  bulkBody,
  bulkSchemas,
  type ItemReferenceId,
} from './schemas.ts';

// A document area's bulk issuance under /v1 (docs/bulk-issuance.md): the bulk request, one
// bulk and the list, named after the area's resource (`/taxInvoices:bulkIssue`,
// `/taxInvoices/bulks`, `/taxInvoices/bulks/{bulkId}`). Handlers only translate.

export type BulkRoutesConfig = {
  // The area's resource in paths, `taxInvoices`.
  resource: string;
  // What one document is called in schemas, `tax invoice`; the schemas' title, `TaxInvoiceBulk`.
  what: string;
  title: string;
  states: readonly string[];
  itemReferenceId: ItemReferenceId;
  // The rows of the operation table; `item` is the single issue's, whose rate limit counts
  // every item of a bulk (docs/limits.md).
  operations: { bulkIssue: Operation; list: Operation; get: Operation; item: Operation };
  operationIds: { bulkIssue: string; list: string; get: string };
  summaries: { bulkIssue: string; list: string; get: string };
  descriptions: { bulkIssue: string; get: string };
  // What every operation of the area can answer.
  commonErrors: readonly DeclaredError[];
};

// The schemas of an area's bulk operations, for its routes and the OpenAPI document.
function bulkRouteSchemas(config: Pick<BulkRoutesConfig, 'what' | 'title' | 'states' |
  'itemReferenceId'>) {
  return { Body: bulkBody(config.what, config.itemReferenceId), ...bulkSchemas(config) };
}

// The bulk's reference id, once the headers' schema checked it.
function bulkReferenceOf(request: FastifyRequest): string {
  return (request.headers as Static<typeof BulkHeaders>)['service-client-reference-id'];
}

export function bulkRoutes(config: BulkRoutesConfig):
  FastifyPluginAsyncTypebox<{ bulks: BulkIssuanceService }> {
  const { Body, Accepted, Bulk, Page } = bulkRouteSchemas(config);
  const errors = config.commonErrors;
  return async (app, { bulks }) => {
    app.post(`/${config.resource}::bulkIssue`, {
      config: { operation: config.operations.bulkIssue, itemsCountAs: config.operations.item,
        // A bulk reference id taken already: this request answers that bulk, whose first
        // sending counted the items (docs/limits.md).
        itemsCountedBefore: (request) => bulks.isReferenceTaken(requestCaller(request),
          bulkReferenceOf(request)) },
      bodyLimit: BULK_BODY_BYTES_MAX,
      schema: {
        operationId: config.operationIds.bulkIssue, summary: config.summaries.bulkIssue,
        description: config.descriptions.bulkIssue,
        headers: BulkHeaders, body: Body,
        response: { 202: Accepted,
          ...errorResponses(...errors, ...BODY_ERRORS, INPUT_CHECKED_AFTER_COUNTING,
            'IDEMPOTENCY_CONFLICT') },
      },
    }, async (request, reply) => {
      const accepted = await bulks.bulkIssue({ caller: requestCaller(request),
        referenceId: request.headers['service-client-reference-id'],
        items: request.body.items as BulkIssueItem[],
        // Another request made this bulk at the same moment and counted its items.
        onTaken: async () => request.giveBackItems?.() });
      return reply.code(202).send(accepted);
    });

    app.get(`/${config.resource}/bulks`, {
      config: { operation: config.operations.list },
      schema: {
        operationId: config.operationIds.list, summary: config.summaries.list,
        description: 'Bulks of this account and environment in the order they were made, ' +
          'paged with an opaque cursor.',
        querystring: BulkListQuery,
        response: { 200: Page, ...errorResponses(...errors, INPUT_CHECKED_AFTER_COUNTING) },
      },
    }, async (request) => withHasMore(await bulks.listBulks({ scope: requestScope(request),
      ...request.query })));

    app.get(`/${config.resource}/bulks/:bulkId`, {
      config: { operation: config.operations.get },
      schema: {
        operationId: config.operationIds.get, summary: config.summaries.get,
        description: config.descriptions.get,
        params: BulkIdParams,
        response: { 200: Bulk, ...errorResponses(...errors, 'NOT_FOUND') },
      },
    }, async (request) => bulks.getBulk({ scope: requestScope(request), ...request.params }));
  };
}
