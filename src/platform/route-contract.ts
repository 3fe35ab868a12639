import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { isOperation, type Operation } from './operations.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    // The route's row of the operation table (src/platform/operations.ts): its rate-limit
    // policy and price row, e.g. 'businesses.profiles.retrieve'.
    operation?: Operation;
  }
}

// Stops the boot when a /v1 route lacks what every API route owes: an operation of the operation
// table, a success response schema and the 401 response. A mistake fails at start, never at
// request time.
export function checkRouteContract(route: RouteOptions): void {
  if (route.url !== '/v1' && !route.url.startsWith('/v1/')) return;
  const name = `${String(route.method)} ${route.url}`;
  const operation: string | undefined = route.config?.operation;
  if (!operation) throw new Error(`${name} has no config.operation`);
  if (!isOperation(operation)) {
    throw new Error(`${name}: config.operation "${operation}" is not in the operation table`);
  }
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
