import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  bodyErrors,
  operationErrors,
  INPUT_CHECKED_AFTER_COUNTING,
} from '../../platform/error-responses.ts';
import { requestScope } from '../../platform/scope.ts';
import type { OwnerBusinesses } from './owner-business.ts';
import { OwnerBusiness, OwnerBusinessBody } from './schemas.ts';

// The owner business under /v1 (docs/documents.md § The owner business); document requests are
// issuance/'s and retrieval/'s. Handlers only translate: the caller in, the service's answer out.

type Options = { owners: OwnerBusinesses };

const registerOwnerBusiness: FastifyPluginAsyncTypebox<Options> = async (app, { owners }) => {
  app.get('/account/business', {
    config: { operation: 'account.business.get' },
    schema: {
      operationId: 'getOwnerBusiness', summary: 'Get the owner business',
      description: 'The business that owns this account\'s API keys in this environment: the ' +
        'only business tax-authority documents are issued for. 409 ' +
        'OWNER_BUSINESS_NOT_REGISTERED until it is set.',
      response: { 200: OwnerBusiness, ...operationErrors('OWNER_BUSINESS_NOT_REGISTERED') },
    },
  }, async (request) => owners.get({ scope: requestScope(request) }));

  app.put('/account/business', {
    config: { operation: 'account.business.save' },
    schema: {
      operationId: 'saveOwnerBusiness', summary: 'Set the owner business',
      description: 'Sets the business that owns this account\'s API keys in this environment ' +
        '(one per environment). It is kept as an issuer (an active issuer of the same number ' +
        'is taken over, with its certificate): register its joint certificate with ' +
        'POST /v1/issuers/{issuerId}/certificates or on the hosted page of ' +
        'GET /v1/issuers/{issuerId}/certificates/url. Another business number replaces the ' +
        'owner business; the earlier issuer stays as it is.',
      body: OwnerBusinessBody,
      response: { 200: OwnerBusiness, ...bodyErrors(INPUT_CHECKED_AFTER_COUNTING,
        'INVALID_BUSINESS_REGISTRATION_NUMBER', 'ISSUER_ALREADY_REGISTERED') },
    },
  }, async (request) => owners.save({ scope: requestScope(request),
    business: request.body }));
};

export const ownerBusinessRoutes: FastifyPluginAsyncTypebox<Options> = registerOwnerBusiness;
