import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import type { trustProxySetting } from './config.ts';
import { auth, authenticateWith, type KeyCache } from './platform/auth.ts';
import { bodyRules } from './platform/bodyless.ts';
import { handleClientError } from './platform/client-errors.ts';
import { errorHandler, handleFrameworkError } from './platform/error-handler.ts';
import type { AreaModule } from './platform/module.ts';
import { openApi } from './platform/openapi.ts';
import { requirePlan } from './platform/plans.ts';
import type { RateLimiter } from './platform/ratelimit/limiter.ts';
import { routeContract } from './platform/route-contract.ts';
import { lazyChildLogger } from './platform/lazy-request-logger.ts';
import { metricsRoutes } from './platform/metrics/http.ts';
import type { Metrics } from './platform/metrics/registry.ts';
import { shutdown } from './platform/shutdown.ts';
import { newTraceId, trace } from './platform/trace.ts';
import { createValidatorCompiler, lazySerializerBuilder } from './platform/validation.ts';
import { wellFormedText } from './platform/well-formed-text.ts';

export type ServerDeps = {
  logger: Logger | false;
  bodyLimitBytes: number;
  // The longest a client may take to send a whole request (REQUEST_RECEIVE_TIMEOUT_MS).
  requestReceiveTimeoutMs: number;
  publicBaseUrl: string;
  // TRUST_PROXY as Fastify takes it (src/config.ts); false when unset.
  trustProxy?: ReturnType<typeof trustProxySetting>;
  // The dashboard under /dashboard (src/dashboard/mount.ts), loaded on its first request.
  dashboard?: FastifyPluginAsync;
  // The MCP endpoint /mcp (src/mcp/mount.ts), loaded on its first request.
  mcp?: FastifyPluginAsync;
  // Where the reference page links the repository's guides (GUIDES_BASE_URL).
  guidesBaseUrl?: string;
  keys: KeyCache;
  rateLimiter: Pick<RateLimiter, 'hook'>;
  // In the order their routes appear in the OpenAPI document.
  modules: readonly AreaModule[];
  // Called on the new server before anything is registered, so that the hooks it adds run for
  // every route: an embedding application's instrumentation, or a test's check of every
  // response against the OpenAPI document.
  instrument?: (server: FastifyInstance) => void;
  // Request timing and GET /metrics behind METRICS_TOKEN (src/platform/metrics/http.ts).
  metrics?: { registry: Metrics; token: string | undefined };
};

// Seconds a keep-alive connection may idle; above common load balancer idle timeouts (60 s) so
// the balancer, not us, closes idle connections.
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
// How often Node looks for requests past their receive timeout: a tenth of it, at most its own
// default of 30 s, so a request is answered within 110 % of the timeout.
const receiveCheckIntervalMs = (timeoutMs: number) => Math.min(30_000,
  Math.max(100, Math.floor(timeoutMs / 10)));
// A path parameter longer than this is refused before routing (Fastify's maxParamLength).
const PATH_PARAMETER_LENGTH_MAX = 200;

// A module's routes, each filed under the module's first reference section (its OpenAPI tag)
// unless the route names tags of its own, as the routes of a module with several sections do.
// The tag is declared once, in the module (docs/architecture.md § Adding an area), and
// test/platform/openapi.test.ts checks that every tag used is declared and every one declared
// is used.
function filedUnderModuleTag(module: AreaModule, routes: FastifyPluginAsync): FastifyPluginAsync {
  const tag = module.reference?.[0]?.tag;
  return async (scope) => {
    if (tag !== undefined) {
      scope.addHook('onRoute', (route) => {
        if (route.schema !== undefined && route.schema.tags === undefined) {
          route.schema.tags = [tag];
        }
      });
    }
    await scope.register(routes);
  };
}

// Builds the HTTP server: platform plugins first, then every module's pages outside /v1 and the
// dashboard, then every module's routes under /v1 behind authentication and the rate limiter.
export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger as FastifyBaseLogger } : { logger: false }),
    bodyLimit: deps.bodyLimitBytes,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // A client that stops sending in the middle of a request (or whose body a parser stopped
    // reading) is answered 408 and its connection closed, instead of holding it forever.
    // Given to Node when it makes the server as well: set only afterwards, as Fastify does, Node
    // never applies it to a request whose headers have arrived.
    requestTimeout: deps.requestReceiveTimeoutMs,
    http: { requestTimeout: deps.requestReceiveTimeoutMs,
      connectionsCheckingInterval: receiveCheckIntervalMs(deps.requestReceiveTimeoutMs) },
    routerOptions: { maxParamLength: PATH_PARAMETER_LENGTH_MAX },
    trustProxy: deps.trustProxy ?? false,
    genReqId: newTraceId,
    requestIdHeader: false,
    // Requests are not logged one by one: at thousands per second that is the main cost of a
    // request. Errors are logged with their trace id.
    logController: new LogController({ requestIdLogLabel: 'traceId', disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    // src/platform/shutdown.ts answers requests that arrive while closing, in our error shape.
    return503OnClosing: false,
    frameworkErrors: handleFrameworkError,
    clientErrorHandler: handleClientError,
    // Response serializers, like the validators below, are compiled on a route's first use.
    schemaController: { compilersFactory: { buildSerializer: lazySerializerBuilder } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  deps.instrument?.(app);
  app.setValidatorCompiler(createValidatorCompiler());
  await app.register(trace);
  if (deps.metrics) {
    await app.register(metricsRoutes, { metrics: deps.metrics.registry,
      token: deps.metrics.token });
  }
  await app.register(errorHandler);
  await app.register(shutdown);
  await app.register(auth);
  await app.register(routeContract);
  await app.register(bodyRules);
  await app.register(wellFormedText);
  await app.register(openApi, { serverUrl: deps.publicBaseUrl, guidesBaseUrl: deps.guidesBaseUrl,
    sections: deps.modules.flatMap((module) => module.reference ?? []) });

  for (const module of deps.modules) {
    if (module.pages) await app.register(module.pages);
  }
  if (deps.dashboard) await app.register(deps.dashboard);
  if (deps.mcp) await app.register(deps.mcp);
  await app.register(async (v1) => {
    v1.addHook('onRequest', authenticateWith(deps.keys));
    v1.addHook('onRequest', requirePlan);
    v1.decorateRequest('giveBackItems', null);
    v1.addHook('preHandler', deps.rateLimiter.hook);
    for (const module of deps.modules) {
      if (module.routes) await v1.register(filedUnderModuleTag(module, module.routes));
    }
  }, { prefix: '/v1' });

  return app;
}
