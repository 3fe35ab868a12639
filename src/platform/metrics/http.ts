import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from './registry.ts';

// Times every response by its operation (the route's `config.operation`) and status, and serves
// GET /metrics to a scraper that shows METRICS_TOKEN (docs/operations.md § Metrics).
// A route without an operation (health checks, pages) is named by its route pattern, never by
// the path asked for, and a request no route matched is 'unmatched': the label values are as
// many as the routes, whatever clients send.

const UNMATCHED_OPERATION = 'unmatched';

type Options = {
  metrics: Metrics;
  // Unset: /metrics is not served (404), so a process on a public port shows nothing.
  token: string | undefined;
};

// Compared as digests of one length, in constant time: how much of a guess matched does not
// show in the time of the answer.
function sameToken(expected: Buffer, authorization: string | undefined): boolean {
  if (authorization === undefined || !authorization.startsWith('Bearer ')) return false;
  const offered = createHash('sha256').update(authorization.slice('Bearer '.length)).digest();
  return timingSafeEqual(expected, offered);
}

async function metricsPlugin(app: FastifyInstance, { metrics, token }: Options) {
  app.addHook('onResponse', (request, reply, done) => {
    const { config, url } = request.routeOptions;
    const operation = config.operation ?? url ?? UNMATCHED_OPERATION;
    metrics.observeRequest(operation, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  if (token === undefined) return;
  const expected = createHash('sha256').update(token).digest();
  // Not part of the API: left out of the OpenAPI document.
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!sameToken(expected, request.headers.authorization)) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer realm="etax metrics"').send();
    }
    return reply.type(metrics.contentType).send(await metrics.render());
  });
}

export const metricsRoutes = fp(metricsPlugin, { name: 'etax-metrics' });
