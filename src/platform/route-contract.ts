import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    // Names the route's rate-limit policy and price row, e.g. 'businesses.profiles.retrieve'.
    operation?: string;
  }
}

// Stops the boot when a /v1 route lacks what every API route owes: an operation name, a success
// response schema and the 401 response. A mistake fails at start, never at request time.
export function checkRouteContract(route: RouteOptions): void {
  if (route.url !== '/v1' && !route.url.startsWith('/v1/')) return;
  const name = `${String(route.method)} ${route.url}`;
  if (!route.config?.operation) throw new Error(`${name} has no config.operation`);
  const responses = (route.schema?.response ?? {}) as Record<string, unknown>;
  const statuses = Object.keys(responses);
  if (!statuses.some((status) => status.startsWith('2'))) {
    throw new Error(`${name} has no success response schema`);
  }
  if (!statuses.includes('401')) throw new Error(`${name} does not declare its 401 response`);
}

async function routeContractPlugin(app: FastifyInstance) {
  app.addHook('onRoute', checkRouteContract);
}

export const routeContract = fp(routeContractPlugin, { name: 'etax-route-contract' });
