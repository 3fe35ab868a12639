import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses, PLATFORM_ERRORS } from '../../platform/error-responses.ts';
import type { PointsService } from '../../platform/points/service.ts';
import { requestScope } from '../../platform/scope.ts';
import {
  PointBalance,
} from './schemas.ts';

type Options = { points: PointsService };

export const registerPointsRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { points }) => {
  app.get('/points', {
    config: { operation: 'points.retrieve' },
    schema: {
      operationId: 'getPoints',
      tags: ['Points'],
      summary: 'Retrieve the point balance',
      description:
        'Returns the point balance of the calling key\'s environment: a test key sees the ' +
        'test balance, a live key the live balance. Free of charge.',
      response: {
        200: PointBalance,
        ...errorResponses(...PLATFORM_ERRORS),
      },
    },
  }, async (request) => {
    return points.getBalance(requestScope(request));
  });
};
