import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../platform/error-responses.ts';
import { ApiError } from '../../platform/errors.ts';

type Readiness = () => Promise<{ database: boolean; migrations: boolean }>;

const HealthBody = Type.Object(
  { status: Type.Literal('ok') },
  { title: 'Health', description: 'The process is up.', additionalProperties: false },
);
const ReadyBody = Type.Object(
  {
    status: Type.Literal('ready'),
    checks: Type.Object({ database: Type.Boolean(), migrations: Type.Boolean() }),
  },
  { title: 'Readiness', description: 'The process can serve requests.',
    additionalProperties: false },
);

type Options = { readiness: Readiness };

// Health endpoints for process managers and load balancers; no authentication.
export const registerHealthRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { readiness },
) => {
  app.get('/healthz', {
    schema: {
      operationId: 'getHealth',
      tags: ['Health'],
      summary: 'Liveness: the process is up',
      security: [],
      // A server that is shutting down answers 503 to every request (src/platform/shutdown.ts).
      response: { 200: HealthBody, ...errorResponses('SERVICE_UNAVAILABLE') },
    },
  }, async () => ({ status: 'ok' as const }));

  app.get('/readyz', {
    schema: {
      operationId: 'getReadiness',
      tags: ['Health'],
      summary: 'Readiness: the database is reachable and migrations are applied',
      security: [],
      response: { 200: ReadyBody, ...errorResponses('SERVICE_UNAVAILABLE') },
    },
  }, async () => {
    const checks = await readiness().catch(() => ({ database: false, migrations: false }));
    if (!checks.database || !checks.migrations) {
      const failed = checks.database ? 'migrations are not applied' : 'database is unreachable';
      throw new ApiError('SERVICE_UNAVAILABLE', `Not ready: ${failed}.`);
    }
    return { status: 'ready' as const, checks };
  });
};
