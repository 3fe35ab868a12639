import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withHasMore } from '../../../platform/paging.ts';
import {
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../../platform/error-responses.ts';
import { requestScope } from '../../../platform/scope.ts';
import type { BusinessesService } from './service.ts';
import {
  BusinessProfile,
  ProfileParams,
  RETRIEVE_DESCRIPTION,
  SEARCH_DESCRIPTION,
  SearchPage,
  SearchQuery,
} from './schemas.ts';

type Options = { businesses: BusinessesService };

export const registerBusinessRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { businesses },
) => {
  // The search route has no path parameter, so the number check of retrieval below never runs
  // for it.
  app.get('/businessProfiles', {
    config: { operation: 'businesses.profiles.search' },
    schema: {
      operationId: 'searchBusinessProfiles',
      tags: ['Business profiles'],
      summary: 'Search business profiles',
      description: SEARCH_DESCRIPTION,
      querystring: SearchQuery,
      response: {
        200: SearchPage,
        ...errorResponses(...PLATFORM_ERRORS, INPUT_CHECKED_AFTER_COUNTING, 'PAYMENT_REQUIRED',
          'AVAILABLE_POINTS_INSUFFICIENT'),
      },
    },
  }, async (request) => {
    const { query, limit, cursor } = request.query;
    return withHasMore(await businesses.searchProfiles({ caller: requestScope(request), query,
      limit, cursor }));
  });

  app.get('/businessProfiles/:businessRegistrationNumber', {
    config: { operation: 'businesses.profiles.retrieve' },
    schema: {
      operationId: 'retrieveBusinessProfile',
      tags: ['Business profiles'],
      summary: 'Retrieve a business profile',
      description: RETRIEVE_DESCRIPTION,
      params: ProfileParams,
      response: {
        200: BusinessProfile,
        // The number is checked before the rate limit (see preValidation below).
        ...errorResponses(...PLATFORM_ERRORS, 'INVALID_REQUEST',
          { code: 'INVALID_BUSINESS_REGISTRATION_NUMBER', counted: 'never' }, 'PAYMENT_REQUIRED',
          'NOT_FOUND', 'AVAILABLE_POINTS_INSUFFICIENT', 'LOOKUP_UNAVAILABLE'),
      },
    },
    // The API lists the number's 400s before 429, and the rate limit runs as the /v1
    // preHandler: checking here, after authentication and before it, keeps refused numbers
    // from being counted. The path parameter is raw text at this point.
    preValidation: async (request) => {
      const { businessRegistrationNumber = '' } = request.params as Record<string, string>;
      const { environment } = requestScope(request);
      businesses.checkNumber({ environment, businessRegistrationNumber });
    },
  }, async (request) => {
    const caller = requestScope(request);
    const { businessRegistrationNumber } = request.params;
    return businesses.retrieveProfile({ caller, businessRegistrationNumber });
  });
};
