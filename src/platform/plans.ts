import type { FastifyReply, FastifyRequest } from 'fastify';
import { PLANS, type Plan } from './accounts/keys.ts';
import { requireAuth } from './auth.ts';
import { ApiError } from './errors.ts';
import { isOperation, minimumPlanOf } from './operations.ts';

// Plans (docs/plans.md): an operation of the operation table may name the lowest plan whose
// accounts may call it. The check runs right after authentication, before the body is read,
// validated, counted by the rate limit or charged, so an account below the plan learns nothing
// else and pays nothing. The plan comes with the authenticated key: a change of plan reaches a
// process within AUTH_CACHE_TTL_MS, as a revoked key does.

// PLANS lists the plans from the lowest to the highest.
export function planAtLeast(plan: Plan, minimum: Plan): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(minimum);
}

export async function requirePlan(request: FastifyRequest, _reply: FastifyReply) {
  const operation = request.routeOptions.config?.operation;
  if (operation === undefined || !isOperation(operation)) return;
  const minimum = minimumPlanOf(operation);
  if (minimum === null) return;
  const { plan } = requireAuth(request);
  if (!planAtLeast(plan, minimum)) {
    throw new ApiError('PLAN_UPGRADE_REQUIRED', `This operation needs the ${minimum} plan or ` +
      `higher; the account is on ${plan}.`);
  }
}
