import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestScope } from '../../../platform/scope.ts';
import type { RegistrationStatusService } from './service.ts';
import {
  BULK_DESCRIPTION,
  BulkBody,
  BULK_ERRORS,
  BulkResults,
  Params,
  RegistrationStatusResult,
  SINGLE_DESCRIPTION,
  SINGLE_ERRORS,
} from './schemas.ts';

type Options = { registrationStatuses: RegistrationStatusService };

export const registerRegistrationStatusRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { registrationStatuses },
) => {
  app.post('/businessRegistrationStatuses::bulkInquire', {
    config: { operation: 'businesses.registrationStatus.bulkInquire' },
    schema: {
      operationId: 'bulkInquireBusinessRegistrationStatuses',
      tags: ['Business registration status'],
      summary: 'Check the registration status of up to 100 businesses',
      description: BULK_DESCRIPTION,
      body: BulkBody,
      response: { 200: BulkResults, ...BULK_ERRORS },
    },
  }, async (request) => {
    return registrationStatuses.inquireStatuses({
      caller: requestScope(request),
      businessRegistrationNumbers: request.body.businessRegistrationNumbers,
    });
  });

  app.get('/businessRegistrationStatuses/:businessRegistrationNumber', {
    config: { operation: 'businesses.registrationStatus.inquire' },
    schema: {
      operationId: 'retrieveBusinessRegistrationStatus',
      tags: ['Business registration status'],
      summary: 'Check the registration status of one business',
      description: SINGLE_DESCRIPTION,
      params: Params,
      response: { 200: RegistrationStatusResult, ...SINGLE_ERRORS },
    },
  }, async (request) => {
    return registrationStatuses.inquireStatus({
      caller: requestScope(request),
      businessRegistrationNumber: request.params.businessRegistrationNumber,
    });
  });
};
