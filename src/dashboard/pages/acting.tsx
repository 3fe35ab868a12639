import { randomUUID } from 'node:crypto';
import type { Plan } from '../../platform/accounts/keys.ts';
import { ERRORS, isApiError, type ApiError } from '../../platform/errors.ts';
import { minimumPlanOf, type Operation } from '../../platform/operations.ts';
import { planAtLeast } from '../../platform/plans.ts';
import type { Caller } from '../../platform/scope.ts';
import { Notice } from '../components.tsx';
import { liveConfirmed } from '../confirmation.tsx';
import type { Outcome, PageContext } from '../context.ts';
import type { MessageKey } from '../i18n/index.ts';

// How the business pages act as the API would for the session (docs/dashboard.md § Cash receipts,
// documents, books and bank transactions): the same plan gate, rate limit and reference ids as a
// call with a key (and the typed confirmation of a live mutation, src/dashboard/confirmation.tsx),
// so a page never does what the API would refuse.

// The caller a page acts as. Reference ids are kept per API key; a dashboard user has no key,
// so each user has a key id of their own, which no API key can have (API key ids are `key_…`):
// the reference ids a user's forms generate never meet those of a key or of another user.
export function dashboardCaller(ctx: PageContext): Caller {
  return { ...ctx.scope, apiKeyId: `dashboard:${ctx.session.user.userId}` };
}

// A reference id for a form: generated when the form is shown and posted back with it, so a
// form sent twice (a double click, a reload of the answer) is one request, replayed by the
// service's reference id rule.
export const newReferenceId = () => `dash-${randomUUID()}`;
const REFERENCE_ID = /^dash-[0-9a-f-]{36}$/;
export const readReferenceId = (form: URLSearchParams): string | null => {
  const value = form.get('referenceId') ?? '';
  return REFERENCE_ID.test(value) ? value : null;
};

// A form's reference id: the one it was posted with when it is shown again after a refusal, so
// the corrected form sent is still the same request; else a new one.
export function ReferenceIdField(props: { values?: URLSearchParams | undefined }) {
  return <input type="hidden" name="referenceId"
    value={readReferenceId(props.values ?? new URLSearchParams()) ?? newReferenceId()} />;
}

// The lowest plan that may call the operation when the account's plan is below it, else null:
// the same check as the API's, made before anything else (src/platform/plans.ts).
export function planGap(ctx: PageContext, operation: Operation): Plan | null {
  const minimum = minimumPlanOf(operation);
  if (minimum === null) return null;
  return planAtLeast(ctx.account.plan as Plan, minimum) ? null : minimum;
}

// What the plan gate shows: the plan needed and where to see what each plan unlocks.
function PlanGate(props: { ctx: PageContext; minimum: Plan }) {
  const { t } = props.ctx;
  return (
    <div class="card" id="plan-gate">
      <p>{t('acting.planNeeded', { plan: props.minimum, current: props.ctx.account.plan })}</p>
      <p><a href="/dashboard/plan">{t('acting.planLink')}</a></p>
    </div>
  );
}

export function planGateOutcome(ctx: PageContext, title: MessageKey, minimum: Plan): Outcome {
  return { kind: 'page', title, status: 403, body: <PlanGate ctx={ctx} minimum={minimum} /> };
}

// Counts the call against the operation's rate limit for this user, as the API counts a key's
// calls: null within the limit, else the seconds until it resets.
export async function rateLimited(ctx: PageContext, operation: Operation): Promise<number | null> {
  const { rateLimiter } = ctx.services;
  return rateLimiter.attempt(operation, rateLimiter.policyFor(operation),
    dashboardCaller(ctx).apiKeyId);
}

// What stops a mutation the API would also refuse, checked before the service is called: a live
// one without its typed confirmation, then the operation's rate limit; null when nothing does.
export async function actingRefusal(ctx: PageContext, operation: Operation):
  Promise<MessageKey | null> {
  if (!liveConfirmed(ctx)) return 'confirm.liveMissing';
  return await rateLimited(ctx, operation) === null ? null : 'acting.rateLimited';
}

// The text of a refusal of a service: the code's message in the session's language, and the
// service's own detail (in English, as the API answers it) when it says more.
function refusalText(ctx: PageContext, error: ApiError): { text: string;
  detail: string | null } {
  const entry = ERRORS[error.code];
  const text = ctx.locale === 'ko' ? entry.messageKo : entry.message;
  return { text, detail: error.message === entry.message ? null : error.message };
}

export function Refusal(props: { ctx: PageContext; error: ApiError | MessageKey }) {
  const { ctx, error } = props;
  if (typeof error === 'string') return <Notice kind="error">{ctx.t(error)}</Notice>;
  const { text, detail } = refusalText(ctx, error);
  return (
    <Notice kind="error">
      <strong>{text}</strong> <code>{error.code}</code>
      {detail !== null && <><br /><span class="break">{detail}</span></>}
    </Notice>
  );
}

// Runs a service call and hands back its refusal (an ApiError) instead of throwing it; any
// other error is a failure of the page.
export async function attempt<T>(run: () => Promise<T>): Promise<T | ApiError> {
  try {
    return await run();
  } catch (error) {
    if (isApiError(error)) return error;
    throw error;
  }
}

export const refused = <T,>(value: T | ApiError): value is ApiError => isApiError(value);
