import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import { registerBankRoutes } from './areas/bank/routes.ts';
import type { BankService } from './areas/bank/service.ts';
import { registerBusinessRoutes } from './areas/businesses/routes.ts';
import type { BusinessesService } from './areas/businesses/service.ts';
import { registerRegistrationStatusRoutes } from './areas/businesses/registration-status-routes.ts';
import type { RegistrationStatusService } from './areas/businesses/registration-status.ts';
import { registerHealthRoutes, type Readiness } from './areas/health/routes.ts';
import { registerCertificatePageRoutes } from './areas/issuers/page-routes.ts';
import { registerIssuerRoutes } from './areas/issuers/routes.ts';
import type { IssuersService } from './areas/issuers/service.ts';
import { registerPointsRoutes } from './areas/points/routes.ts';
import { registerWebhookRoutes } from './areas/webhooks/routes.ts';
import type { WebhooksService } from './areas/webhooks/service.ts';
import { auth, authenticateWith, type KeyCache } from './platform/auth.ts';
import { handleClientError } from './platform/client-errors.ts';
import { errorHandler, handleFrameworkError } from './platform/error-handler.ts';
import type { AreaModule } from './platform/module.ts';
import { openApi } from './platform/openapi.ts';
import type { PointsService } from './platform/points/service.ts';
import type { RateLimiter } from './platform/ratelimit.ts';
import { routeContract } from './platform/route-contract.ts';
import { shutdown } from './platform/shutdown.ts';
import { newTraceId, trace } from './platform/trace.ts';
import { createValidatorCompiler } from './platform/validation.ts';

export type ServerDeps = {
  logger: Logger | false;
  bodyLimitBytes: number;
  publicBaseUrl: string;
  keys: KeyCache;
  rateLimiter: RateLimiter;
  points: PointsService;
  bank: BankService;
  businesses: BusinessesService;
  // Optional only so a server built for its route schemas (src/cli/openapi.ts) needs none: the
  // routes are registered either way, and without a service they fail with 500.
  registrationStatuses: RegistrationStatusService;
  webhooks: WebhooksService;
  issuers: IssuersService;
  // The tax-invoices module's routes (under /v1) and approval page (outside /v1).
  taxInvoices: Required<Pick<AreaModule, 'routes' | 'pages'>>;
  readiness: Readiness;
  // More routes under /v1, behind the same authentication and rate limits. Areas are listed
  // below; this is for embedding etax and for tests of the platform mechanisms.
  extraRoutes?: FastifyPluginAsync;
};

// Seconds a keep-alive connection may idle; above common load balancer idle timeouts (60 s) so
// the balancer, not us, closes idle connections.
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
// A path parameter longer than this is refused before routing (Fastify's maxParamLength).
const PATH_PARAMETER_LENGTH_MAX = 200;

// Builds the HTTP server: platform plugins first, then every area under /v1. Listing each area
// here keeps the whole API visible in one place.
export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger as FastifyBaseLogger } : { logger: false }),
    bodyLimit: deps.bodyLimitBytes,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    routerOptions: { maxParamLength: PATH_PARAMETER_LENGTH_MAX },
    genReqId: newTraceId,
    requestIdHeader: false,
    // Requests are not logged one by one: at thousands per second that is the main cost of a
    // request. Errors are logged with their trace id.
    logController: new LogController({ requestIdLogLabel: 'traceId', disableRequestLogging: true }),
    // src/platform/shutdown.ts answers requests that arrive while closing, in our error shape.
    return503OnClosing: false,
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(createValidatorCompiler());
  await app.register(trace);
  await app.register(errorHandler);
  await app.register(shutdown);
  await app.register(auth);
  await app.register(routeContract);
  await app.register(openApi, { serverUrl: deps.publicBaseUrl });

  await app.register(registerHealthRoutes, { readiness: deps.readiness });
  // The hosted certificate registration page: outside /v1, its one-time token is the credential.
  await app.register(registerCertificatePageRoutes, { issuers: deps.issuers });
  // The reverse issuance approval page: outside /v1 for the same reason.
  await app.register(deps.taxInvoices.pages);
  await app.register(async (v1) => {
    v1.addHook('onRequest', authenticateWith(deps.keys));
    v1.addHook('preHandler', deps.rateLimiter.hook);
    await v1.register(registerPointsRoutes, { points: deps.points });
    await v1.register(registerBankRoutes, { bank: deps.bank });
    await v1.register(registerBusinessRoutes, { businesses: deps.businesses });
    await v1.register(registerRegistrationStatusRoutes, {
      registrationStatuses: deps.registrationStatuses,
    });
    await v1.register(registerWebhookRoutes, { webhooks: deps.webhooks });
    await v1.register(registerIssuerRoutes, { issuers: deps.issuers });
    await v1.register(deps.taxInvoices.routes);
    if (deps.extraRoutes) await v1.register(deps.extraRoutes);
  }, { prefix: '/v1' });

  return app;
}
