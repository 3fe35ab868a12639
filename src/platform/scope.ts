import type { FastifyRequest } from 'fastify';
import type { Environment } from './accounts/keys.ts';
import { requireAuth } from './auth.ts';

// Everything a customer owns lives in one scope: an account and one of its two environments.
// Data made with a test key is invisible to live keys and the reverse, and one account never sees
// another's, because every store function takes the scope and filters by both columns.
export type Scope = { accountId: string; environment: Environment };

// The scope and the API key that made the call, for what is kept per key (reference ids).
export type Caller = Scope & { apiKeyId: string };

// The scope of the calling key: what every route passes to its service.
export function requestScope(request: FastifyRequest): Scope {
  const { accountId, environment } = requireAuth(request);
  return { accountId, environment };
}

export function requestCaller(request: FastifyRequest): Caller {
  const { accountId, environment, keyId } = requireAuth(request);
  return { accountId, environment, apiKeyId: keyId };
}
