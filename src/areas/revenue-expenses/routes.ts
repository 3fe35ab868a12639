import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  BODY_ERRORS,
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../platform/error-responses.ts';
import { requestScope } from '../../platform/scope.ts';
import {
  CollectAccepted,
  CollectBody,
  Collection,
  CollectionParams,
  FeedPage,
  FeedQuery,
} from './schemas.ts';
import type { RevenueExpensesService } from './service.ts';

// The revenue and expense books under /v1 (docs/revenue-expense.md). Every operation needs the
// Standard plan or higher (the operation table); the platform refuses the rest first.

const TAGS = ['Revenue and expense'];

type Options = { books: RevenueExpensesService };

export const registerRevenueExpenseRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app, { books }) => {
  app.get('/revenueExpenses/taxInvoices', {
    config: { operation: 'revenueExpenses.taxInvoices.list' },
    schema: {
      operationId: 'listRevenueExpenseTaxInvoices', tags: TAGS,
      summary: 'Read own tax invoices in the order of change',
      description: 'Sales and purchase tax invoices of the account, issued through etax and ' +
        'collected from the tax portal, in the order they changed. Store `nextCursor` and pass ' +
        'it back: every later change appears exactly once. Standard plan or higher. Free.',
      querystring: FeedQuery,
      response: { 200: FeedPage, ...errorResponses(...PLATFORM_ERRORS, 'INVALID_REQUEST',
        INPUT_CHECKED_AFTER_COUNTING, 'PLAN_UPGRADE_REQUIRED') },
    },
  }, async (request) => books.readFeed(requestScope(request), request.query));

  app.post('/revenueExpenses::collect', {
    config: { operation: 'revenueExpenses.collect' },
    schema: {
      operationId: 'collectRevenueExpenses', tags: TAGS,
      summary: 'Collect tax invoices from the tax portal',
      description: 'Collects the months from `from` to `to` from the tax portal through the ' +
        'account\'s HOMETAX connection, in the background. A request while a collection of ' +
        'the connection is queued or running joins it. Standard plan or higher. Free.',
      body: CollectBody,
      response: { 202: CollectAccepted, ...errorResponses(...PLATFORM_ERRORS, ...BODY_ERRORS,
        INPUT_CHECKED_AFTER_COUNTING, 'PLAN_UPGRADE_REQUIRED', 'CONNECTION_REQUIRED') },
    },
  }, async (request, reply) => {
    const { collectionId } = await books.collect(requestScope(request), request.body);
    return reply.code(202).send({ collectionId });
  });

  app.get('/revenueExpenses/collections/:collectionId', {
    config: { operation: 'revenueExpenses.collections.get' },
    schema: {
      operationId: 'getRevenueExpenseCollection', tags: TAGS,
      summary: 'Retrieve a collection',
      description: 'The state of a collection and what it recorded. Standard plan or higher.',
      params: CollectionParams,
      response: { 200: Collection, ...errorResponses(...PLATFORM_ERRORS, 'INVALID_REQUEST',
        'PLAN_UPGRADE_REQUIRED', 'NOT_FOUND') },
    },
  }, async (request) => books.getCollection(requestScope(request), request.params.collectionId));
};
