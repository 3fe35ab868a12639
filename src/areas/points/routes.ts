import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { requireAuth } from '../../platform/auth.ts';
import { errorResponses, UNAUTHENTICATED } from '../../platform/errors.ts';
import type { PointsService } from '../../platform/points/service.ts';

export const PointBalance = Type.Object(
  {
    balance: Type.Integer({ description: 'Posted points of the calling key\'s environment.' }),
    reserved: Type.Integer({ description: 'Points held by requests in progress.' }),
    available: Type.Integer({ description: 'balance − reserved: what the next call can use.' }),
  },
  {
    $id: 'PointBalance',
    title: 'PointBalance',
    description: 'The point balance of the calling key\'s environment.',
    additionalProperties: false,
    examples: [{ balance: 1_000_000, reserved: 90, available: 999_910 }],
  },
);
export type PointBalance = Static<typeof PointBalance>;

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
        ...errorResponses(UNAUTHENTICATED, 'RATE_LIMITED', 'INTERNAL_SERVER_ERROR'),
      },
    },
  }, async (request) => {
    const { accountId, environment } = requireAuth(request);
    return points.getBalance({ accountId, environment });
  });
};
