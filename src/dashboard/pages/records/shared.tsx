import type { Plan } from '../../../platform/accounts/keys.ts';
import { ApiError, ERRORS } from '../../../platform/errors.ts';
import { minimumPlanOf, type Operation } from '../../../platform/operations.ts';
import { planAtLeast } from '../../../platform/plans.ts';
import { Notice } from '../../components.tsx';
import type { Outcome, PageContext } from '../../context.ts';
import type { MessageKey } from '../../i18n/index.ts';

// What the records pages (connections, issuers, lookups) share: the plan gate of an operation,
// the API's rate limit of an operation for a dashboard user, and an area's error in the
// session's language (the typed confirmation of a live action is src/dashboard/confirmation.tsx).

// The plan an operation needs when the account's is below it (the API answers 403
// PLAN_UPGRADE_REQUIRED from the same table), else null.
export function planShortfall(ctx: PageContext, operation: Operation):
  { minimum: Plan; plan: string } | null {
  const minimum = minimumPlanOf(operation);
  if (minimum === null || planAtLeast(ctx.account.plan as Plan, minimum)) return null;
  return { minimum, plan: ctx.account.plan };
}

export function PlanNotice({ ctx, what, shortfall }: { ctx: PageContext; what: MessageKey;
  shortfall: { minimum: Plan; plan: string } }) {
  const { t } = ctx;
  return (
    <Notice kind="info">
      {t('records.planNeeded', { what: t(what), minimum: shortfall.minimum,
        plan: shortfall.plan })} <a href="/dashboard/plan">{t('records.planLink')}</a>
    </Notice>
  );
}

// The API limits each key per operation (docs/limits.md); a dashboard user is counted the same
// way, under the operation's own policy, as a key of its own in the session's environment.
// Null within the limit, else the seconds until the window resets.
export function countCall(ctx: PageContext, operation: Operation): Promise<number | null> {
  const { rateLimiter } = ctx.services;
  return rateLimiter.attempt(operation, rateLimiter.policyFor(operation),
    `dashboard:${ctx.session.user.userId}:${ctx.scope.environment}`);
}

// The call counted as countCall does, and over the limit the API's answer as a page of the
// title: 429 with Retry-After; null within the limit.
export async function rateLimitedPage(ctx: PageContext, operation: Operation, title: MessageKey):
  Promise<Outcome | null> {
  const retryAfter = await countCall(ctx, operation);
  if (retryAfter === null) return null;
  ctx.reply.header('retry-after', String(retryAfter));
  return { kind: 'page', title, status: 429,
    body: <Notice kind="error">{ctx.t('records.rateLimited', { seconds: retryAfter })}</Notice> };
}

// An area's refusal, in the session's language: the error table's message, and the detail the
// service wrote (in English) when it says more than the table.
export function ApiProblem({ ctx, error }: { ctx: PageContext; error: ApiError }) {
  const row = ERRORS[error.code];
  const general = ctx.locale === 'ko' ? row.messageKo : row.message;
  return (
    <Notice kind="error">
      {general}
      {error.message !== row.message && <> <span lang="en" class="break">{error.message}</span></>}
      {' '}<span class="muted">({ctx.t('records.errorCode')}: <code>{error.code}</code>)</span>
    </Notice>
  );
}

// The area's refusal; anything else is rethrown, for the router to answer 500 (or 503).
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  throw error;
}
