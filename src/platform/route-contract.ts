import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import {
  BODY_ERRORS,
  declaredCodes,
  PLATFORM_ERRORS,
  UNAUTHENTICATED,
} from './error-responses.ts';
import { ERRORS, type ErrorCode } from './errors.ts';
import { isOperation, minimumPlanOf, type Operation } from './operations.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    // The route's row of the operation table (src/platform/operations.ts): its rate-limit
    // policy and price row, e.g. 'businesses.profiles.retrieve'.
    operation?: Operation;
  }
}

// Stops the boot when a /v1 route lacks what every API route owes: an operation of the operation
// table, a success response schema with a name, and the errors the platform answers for it
// whatever the operation does (src/platform/error-responses.ts). A mistake fails at start, never
// at request time, and the OpenAPI document never leaves out a status the server sends.

// Fastify reads a body sent with these methods, so their routes can answer its errors.
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function requiredCodes(route: RouteOptions): ErrorCode[] {
  const codes: ErrorCode[] = [];
  for (const code of PLATFORM_ERRORS) if (code !== UNAUTHENTICATED) codes.push(code);
  const methods = [route.method].flat().map(String);
  if (methods.some((method) => BODY_METHODS.has(method))) codes.push(...BODY_ERRORS);
  const { params, querystring, headers } = route.schema ?? {};
  if (params || querystring || headers) codes.push('INVALID_REQUEST');
  const operation = route.config?.operation;
  if (operation !== undefined && isOperation(operation) && minimumPlanOf(operation) !== null) {
    codes.push('PLAN_UPGRADE_REQUIRED');
  }
  return codes;
}

// A success response names what it is: a description (else the document says "Default
// Response"), and for a JSON body a title, which names its type in the document.
function isNamed(response: unknown): boolean {
  const schema = response as { description?: string; title?: string; type?: string;
    content?: unknown };
  if (!schema.description) return false;
  return schema.content !== undefined || schema.type === 'null' || Boolean(schema.title);
}

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
  const successes = statuses.filter((status) => status.startsWith('2'));
  if (successes.length === 0) throw new Error(`${name} has no success response schema`);
  for (const status of successes) {
    if (!isNamed(responses[status])) {
      throw new Error(`${name}: the ${status} response schema has no title or no description`);
    }
  }
  if (!statuses.includes('401')) throw new Error(`${name} does not declare its 401 response`);
  const missing = requiredCodes(route).filter((code) =>
    !declaredCodes(responses[ERRORS[code].status]).includes(code));
  if (missing.length > 0) {
    throw new Error(`${name} does not declare ${[...new Set(missing)].join(', ')}`);
  }
}

async function routeContractPlugin(app: FastifyInstance) {
  app.addHook('onRoute', checkRouteContract);
}

export const routeContract = fp(routeContractPlugin, { name: 'etax-route-contract' });
