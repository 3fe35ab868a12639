import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  BODY_ERRORS,
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../platform/error-responses.ts';
import { requestScope } from '../../platform/scope.ts';
import type { BankService } from './service.ts';
import {
  AccountRef,
  BULK_DESCRIPTION,
  HolderLookup,
  HolderLookupBody,
  HolderLookupResults,
  SINGLE_DESCRIPTION,
} from './schemas.ts';

type Options = { bank: BankService };

export const registerBankRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { bank }) => {
  app.post('/bankAccountHolders::bulkInquire', {
    config: { operation: 'bank.holders.bulkInquire' },
    schema: {
      operationId: 'bulkInquireBankAccountHolders',
      tags: ['Bank account holders'],
      summary: 'Look up the holders of up to 100 bank accounts',
      description: BULK_DESCRIPTION,
      body: HolderLookupBody,
      response: {
        200: HolderLookupResults,
        ...errorResponses(...PLATFORM_ERRORS, ...BODY_ERRORS, 'PAYMENT_REQUIRED',
          'AVAILABLE_POINTS_INSUFFICIENT', 'LOOKUP_UNAVAILABLE'),
      },
    },
  }, async (request) => {
    const caller = requestScope(request);
    return bank.inquireHolders({ caller, accounts: request.body.accounts });
  });

  app.post('/bankAccountHolders::inquire', {
    config: { operation: 'bank.holders.inquire' },
    schema: {
      operationId: 'inquireBankAccountHolder',
      tags: ['Bank account holders'],
      summary: 'Look up the holder of one bank account',
      description: SINGLE_DESCRIPTION,
      body: AccountRef,
      response: {
        200: HolderLookup,
        ...errorResponses(...PLATFORM_ERRORS, ...BODY_ERRORS, INPUT_CHECKED_AFTER_COUNTING,
          'AMOUNT_REQUIRED', 'PAYMENT_REQUIRED', 'NOT_FOUND', 'AVAILABLE_POINTS_INSUFFICIENT',
          'LOOKUP_UNAVAILABLE'),
      },
    },
  }, async (request) => {
    const caller = requestScope(request);
    return bank.inquireHolder({ caller, account: request.body });
  });
};
