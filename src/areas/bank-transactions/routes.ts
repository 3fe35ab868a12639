import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  BODY_ERRORS,
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../platform/error-responses.ts';
import { requestScope } from '../../platform/scope.ts';
import {
  BankAccountList,
  BankAccountListQuery,
  BankAccountParams,
  BankTransactionPage,
  Sync,
  SyncAccepted,
  SyncParams,
  TransactionsQuery,
} from './schemas.ts';
import type { BankTransactionsService } from './service.ts';

// Bank accounts and transactions under /v1 (docs/bank-transactions.md). Every operation needs
// the Standard plan or higher (the operation table); the platform refuses the rest first.

const TAGS = ['Bank transactions'];
// The account id as a regular-expression parameter, so `:sync` can follow it.
const BANK_ACCOUNT_ID_PARAMETER = ':bankAccountId(^[^:/]+)';

type Options = { bank: BankTransactionsService };

export const registerBankTransactionRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app, { bank }) => {
  app.get('/bankAccounts', {
    config: { operation: 'bankAccounts.list' },
    schema: {
      operationId: 'listBankAccounts', tags: TAGS,
      summary: 'List connected bank accounts',
      description: 'The bank accounts connected through BANK_ACCOUNT connections of the key\'s ' +
        'account and environment, with the balance of their last sync, oldest connection ' +
        'first, a page at a time. Standard plan or higher. Free.',
      querystring: BankAccountListQuery,
      response: { 200: BankAccountList, ...errorResponses(...PLATFORM_ERRORS,
        'PLAN_UPGRADE_REQUIRED', 'INVALID_REQUEST', INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => bank.listAccounts(requestScope(request), request.query));

  app.get('/bankAccounts/:bankAccountId/transactions', {
    config: { operation: 'bankAccounts.transactions.list' },
    schema: {
      operationId: 'listBankTransactions', tags: TAGS,
      summary: 'Read a bank account\'s transactions',
      description: 'The transactions of the account in booking order, as its syncs recorded ' +
        'them, with matching hints on deposits. Store `nextCursor` and pass it back to read ' +
        'what later syncs add. Standard plan or higher. Free.',
      params: BankAccountParams,
      querystring: TransactionsQuery,
      response: { 200: BankTransactionPage, ...errorResponses(...PLATFORM_ERRORS,
        'INVALID_REQUEST', INPUT_CHECKED_AFTER_COUNTING, 'PLAN_UPGRADE_REQUIRED', 'NOT_FOUND') },
    },
  }, async (request) => bank.listTransactions(requestScope(request),
    request.params.bankAccountId, request.query));

  app.post(`/bankAccounts/${BANK_ACCOUNT_ID_PARAMETER}::sync`, {
    config: { operation: 'bankAccounts.sync', body: 'none' },
    schema: {
      operationId: 'syncBankAccount', tags: TAGS,
      summary: 'Sync a bank account',
      description: 'Reads the account\'s transactions from the bank in the background: the ' +
        'last 90 days on the first sync, from 7 days before the last day read on later ones. ' +
        'A request while a sync of the account is queued or running joins it. Body: none. ' +
        'Standard plan or higher. Free.',
      params: BankAccountParams,
      response: { 202: SyncAccepted, ...errorResponses(...PLATFORM_ERRORS, ...BODY_ERRORS,
        'PLAN_UPGRADE_REQUIRED', 'NOT_FOUND', 'CONNECTION_REQUIRED') },
    },
  }, async (request, reply) => {
    const { syncId } = await bank.requestSync(requestScope(request),
      request.params.bankAccountId);
    return reply.code(202).send({ syncId });
  });

  app.get('/bankAccounts/:bankAccountId/syncs/:syncId', {
    config: { operation: 'bankAccounts.syncs.get' },
    schema: {
      operationId: 'getBankAccountSync', tags: TAGS,
      summary: 'Retrieve a sync',
      description: 'The state of a sync of the account and what it recorded. Standard plan or ' +
        'higher. Free.',
      params: SyncParams,
      response: { 200: Sync, ...errorResponses(...PLATFORM_ERRORS, 'INVALID_REQUEST',
        'PLAN_UPGRADE_REQUIRED', 'NOT_FOUND') },
    },
  }, async (request) => bank.getSync(requestScope(request), request.params.bankAccountId,
    request.params.syncId));
};
