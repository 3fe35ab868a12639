import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendError } from '../../platform/error-handler.ts';
import { errorResponses } from '../../platform/error-responses.ts';
import { ApiError } from '../../platform/errors.ts';
import type { UnconfiguredLiveService } from '../../platform/live-services.ts';
import type { ReadinessChecks } from './readiness-log.ts';

// Never throws: a database that cannot be reached is a check that failed (readiness-log.ts).
type Readiness = () => Promise<ReadinessChecks>;

const HealthBody = Type.Object(
  { status: Type.Literal('ok') },
  { title: 'Health', description: 'The process is up.', additionalProperties: false },
);
const ReadyBody = Type.Object(
  {
    status: Type.Literal('ready'),
    checks: Type.Object({ database: Type.Boolean(), migrations: Type.Boolean() }),
    liveServices: Type.Object({
      notConfigured: Type.Array(Type.Object({
        service: Type.String({
          description: 'The outside service, e.g. `TAX_INVOICE_TRANSMISSION`.' }),
        setting: Type.String({ description: 'The setting that connects it.' }),
        serves: Type.String({ description: 'What live keys cannot do without it.' }),
      }, { additionalProperties: false }), { description: 'Outside services live keys cannot ' +
        'reach on this server because their setting is not set: their live requests are ' +
        'refused with the 503 each operation documents. Test keys use the sandboxes and are ' +
        'not affected; readiness does not depend on this list.' }),
    }, { additionalProperties: false }),
  },
  { title: 'Readiness', description: 'The process can serve requests.',
    additionalProperties: false },
);

type Options = { readiness: Readiness; notConfigured: UnconfiguredLiveService[] };

// Health endpoints for process managers and load balancers; no authentication.
export const registerHealthRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { readiness, notConfigured },
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
  }, async (request, reply) => {
    const checks = await readiness();
    if (!checks.database || !checks.migrations) {
      const failed = checks.database ? 'migrations are not applied' : 'database is unreachable';
      // Answered here rather than thrown: the error handler would log every failed probe, and
      // readiness logs its changes itself.
      return sendError(request, reply,
        new ApiError('SERVICE_UNAVAILABLE', `Not ready: ${failed}.`));
    }
    return { status: 'ready' as const, checks, liveServices: { notConfigured } };
  });
};
