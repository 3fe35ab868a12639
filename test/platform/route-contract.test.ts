// A /v1 route that lacks what every API route owes (an operation name for its
// rate-limit and price rows, a named success response, the 401 response and the errors the
// platform answers for every operation) stops the boot, so the mistake never reaches a request.
// Routes outside /v1 (health, docs) are exempt. The first part tests checkRouteContract on route
// options; the second boots real servers.
import Fastify, { type FastifyPluginAsync, type RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildSchemaOnlyServer } from '../../src/cli/openapi.ts';
import { checkRouteContract, routeContract } from '../../src/platform/route-contract.ts';
import {
  BODY_ERRORS,
  errorResponses,
  PLATFORM_ERRORS,
} from '../../src/platform/error-responses.ts';

const SUCCESS = { type: 'object', title: 'Probe', description: 'The probe.', properties: {} };
const UNAUTHORIZED = { type: 'null', description: 'Authentication failed. The body is empty.' };
// What every /v1 route declares besides its success: 401, 429, 500 and 503.
const PLATFORM = errorResponses(...PLATFORM_ERRORS);

type RouteParts = {
  url?: string;
  method?: RouteOptions['method'];
  operation?: string | null;
  response?: Record<string, unknown> | null;
};

function route(parts: RouteParts = {}): RouteOptions {
  const operation = parts.operation === undefined ? 'points.retrieve' : parts.operation;
  const response = parts.response === undefined ? { 200: SUCCESS, ...PLATFORM } : parts.response;
  return {
    method: parts.method ?? 'GET',
    url: parts.url ?? '/v1/probe',
    handler: async () => ({}),
    ...(operation === null ? {} : { config: { operation } }),
    ...(response === null ? {} : { schema: { response } }),
  } as RouteOptions;
}

describe('checkRouteContract', () => {
  it('accepts a /v1 route with an operation, a 200 schema and a 401 schema', () => {
    expect(() => checkRouteContract(route())).not.toThrow();
  });

  it('accepts any 2xx status, or the 2xx range, as the success response', () => {
    for (const success of ['201', '202', '204', '2xx']) {
      const response = { [success]: SUCCESS, ...PLATFORM };
      expect(() => checkRouteContract(route({ response })), success).not.toThrow();
    }
  });

  it('throws when the success response has no description, or a JSON one no title', () => {
    const unnamed = [{ type: 'object', description: 'A probe.' },
      { type: 'object', title: 'Probe' }, { type: 'null' },
      { content: { 'application/pdf': { schema: { type: 'string' } } } }];
    for (const success of unnamed) {
      const response = { 200: success, ...PLATFORM };
      expect(() => checkRouteContract(route({ response })), JSON.stringify(success))
        .toThrow(/GET \/v1\/probe: the 200 response schema has no title or no description/);
    }
    const named = [{ type: 'null', description: 'Nothing.' },
      { description: 'A PDF.', content: { 'application/pdf': { schema: { type: 'string' } } } }];
    for (const success of named) {
      const response = { 200: success, ...PLATFORM };
      expect(() => checkRouteContract(route({ response })), JSON.stringify(success)).not.toThrow();
    }
  });

  it('accepts a hand-written 401 schema', () => {
    const response = { 200: SUCCESS, ...PLATFORM, 401: UNAUTHORIZED };
    expect(() => checkRouteContract(route({ response }))).not.toThrow();
  });

  it('throws, naming the codes, when a platform error is not declared', () => {
    const response = { 200: SUCCESS, ...errorResponses('UNAUTHENTICATED', 'RATE_LIMITED') };
    expect(() => checkRouteContract(route({ response })))
      .toThrow(/GET \/v1\/probe does not declare INTERNAL_SERVER_ERROR, SERVICE_UNAVAILABLE/);
  });

  it('throws when a route whose method carries a body does not declare its errors', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      expect(() => checkRouteContract(route({ method })), method)
        .toThrow(/does not declare INVALID_REQUEST, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE/);
      const response = { 200: SUCCESS, ...errorResponses(...PLATFORM_ERRORS, ...BODY_ERRORS) };
      expect(() => checkRouteContract(route({ method, response })), method).not.toThrow();
    }
  });

  it('throws when a route with a path parameter, a query or headers does not declare 400', () => {
    for (const part of ['params', 'querystring', 'headers']) {
      const options = route();
      options.schema = { ...options.schema, [part]: { type: 'object' } };
      expect(() => checkRouteContract(options), part).toThrow(/does not declare INVALID_REQUEST/);
    }
  });

  it('throws, naming the route, when config.operation is missing', () => {
    expect(() => checkRouteContract(route({ operation: null })))
      .toThrow(/GET \/v1\/probe .*config\.operation/);
  });

  it('throws, naming the route and the name, when config.operation is not in the table', () => {
    expect(() => checkRouteContract(route({ operation: 'points.retreive' })))
      .toThrow(/GET \/v1\/probe: config\.operation "points\.retreive" is not in the operation/);
    expect(() => checkRouteContract(route({ operation: 'toString' })))
      .toThrow(/not in the operation table/);
  });

  it('throws when config.operation is an empty string', () => {
    expect(() => checkRouteContract(route({ operation: '' }))).toThrow(/config\.operation/);
  });

  it('throws, naming the route, when there is no response schema at all', () => {
    expect(() => checkRouteContract(route({ method: 'POST', response: null })))
      .toThrow(/POST \/v1\/probe .*success response/);
  });

  it('throws when only error responses are declared', () => {
    const response = { 401: UNAUTHORIZED, ...errorResponses('INVALID_REQUEST') };
    expect(() => checkRouteContract(route({ response }))).toThrow(/success response/);
  });

  it('throws when a 3xx response stands in for the success response', () => {
    const response = { 302: SUCCESS, 401: UNAUTHORIZED };
    expect(() => checkRouteContract(route({ response }))).toThrow(/success response/);
  });

  it('throws, naming the route, when the 401 response is missing', () => {
    const response = { 200: SUCCESS, ...errorResponses('INVALID_REQUEST', 'RATE_LIMITED') };
    expect(() => checkRouteContract(route({ response })))
      .toThrow(/GET \/v1\/probe .*401/);
  });

  it('throws when the 401 is only covered by a 4xx range', () => {
    const response = { 200: SUCCESS, '4xx': UNAUTHORIZED };
    expect(() => checkRouteContract(route({ response }))).toThrow(/401/);
  });

  it('checks nested /v1 paths and path parameters too', () => {
    const url = '/v1/bankAccountHolders/:holderId';
    expect(() => checkRouteContract(route({ url, operation: null }))).toThrow(/config\.operation/);
  });

  it('exempts routes outside /v1 even when they declare nothing', () => {
    const urls = ['/healthz', '/readyz', '/openapi.json', '/docs', '/docs/static/*', '/', '/v2/x'];
    for (const url of [...urls, '/v10/probe', '/api/v1/probe']) {
      expect(() => checkRouteContract(route({ url, operation: null, response: null })), url)
        .not.toThrow();
    }
  });
});

describe('the routeContract plugin', () => {
  async function boot(routes: FastifyPluginAsync, prefix: string) {
    const app = Fastify({ logger: false });
    await app.register(routeContract);
    await app.register(routes, { prefix });
    try {
      await app.ready();
    } finally {
      await app.close();
    }
  }

  it('stops the boot when a route under the /v1 prefix has no operation', async () => {
    const routes: FastifyPluginAsync = async (v1) => {
      const schema = { response: { 200: SUCCESS, ...PLATFORM } };
      v1.get('/probe', { schema }, async () => ({}));
    };
    await expect(boot(routes, '/v1')).rejects.toThrow(/\/v1\/probe .*config\.operation/);
  });

  it('stops the boot when a route under the /v1 prefix has no 401 response', async () => {
    const routes: FastifyPluginAsync = async (v1) => {
      v1.post('/probe', {
        config: { operation: 'issuers.create' },
        schema: { response: { 201: SUCCESS } },
      }, async () => ({}));
    };
    await expect(boot(routes, '/v1')).rejects.toThrow(/401/);
  });

  it('boots with a complete /v1 route and an undeclared route outside /v1', async () => {
    const v1Routes: FastifyPluginAsync = async (v1) => {
      v1.get('/probe', {
        config: { operation: 'points.retrieve' },
        schema: { response: { 200: SUCCESS, ...PLATFORM } },
      }, async () => ({}));
    };
    const app = Fastify({ logger: false });
    await app.register(routeContract);
    await app.register(v1Routes, { prefix: '/v1' });
    app.get('/status', async () => ({ status: 'ok' }));
    await expect(app.ready()).resolves.toBeDefined();
    expect((await app.inject({ method: 'GET', url: '/status' })).statusCode).toBe(200);
    await app.close();
  });
});

describe('buildServer', () => {
  async function bootServer(extraRoutes: FastifyPluginAsync) {
    const app = await buildSchemaOnlyServer({ name: 'probe', routes: extraRoutes });
    try {
      await app.ready();
    } finally {
      await app.close();
    }
  }

  it('refuses to boot when an extra /v1 route breaks the contract', async () => {
    const extraRoutes: FastifyPluginAsync = async (v1) => {
      v1.get('/probe', { schema: { response: { 200: SUCCESS } } }, async () => ({}));
    };
    await expect(bootServer(extraRoutes)).rejects.toThrow(/\/v1\/probe/);
  });

  it('boots with an extra /v1 route that keeps the contract', async () => {
    const extraRoutes: FastifyPluginAsync = async (v1) => {
      v1.get('/probe', {
        config: { operation: 'points.retrieve' },
        schema: { response: { 200: SUCCESS, ...PLATFORM } },
      }, async () => ({}));
    };
    await expect(bootServer(extraRoutes)).resolves.toBeUndefined();
  });
});
