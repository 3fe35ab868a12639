import type { FastifyRequest } from 'fastify';
import { requireAuth } from './auth.ts';
import type { Caller, Scope } from './scope-types.ts';

// Scope and Caller live in a module that imports only the environments' type, so the platform's
// own modules (accounts, points, events) name them without importing authentication.
export type { Caller, Scope } from './scope-types.ts';

// The scope of the calling key: what every route passes to its service.
export function requestScope(request: FastifyRequest): Scope {
  const { accountId, environment } = requireAuth(request);
  return { accountId, environment };
}

export function requestCaller(request: FastifyRequest): Caller {
  const { accountId, environment, keyId } = requireAuth(request);
  return { accountId, environment, apiKeyId: keyId };
}
