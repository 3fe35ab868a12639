import Value from 'typebox/value';
import { WebhookEndpointChanges, WebhookEndpointInput, type WebhooksService } from
  '../../areas/webhooks/index.ts';
import { ApiError } from '../../platform/errors.ts';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../platform/event-catalogue.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { errorOutcome } from './errors.tsx';

// Webhook endpoints of the session's account and environment (docs/dashboard.md § Webhooks):
// add, change the events and the note, disable and enable, rotate the secret (shown once, on the
// answer to the POST), the delivery log with each request and its answer, resend, and a test
// event. Every action is the webhooks area's service, the one behind /v1/webhookEndpoints, so a
// test event sent here is the WEBHOOK_TEST event of `POST /v1/webhookEndpoints/{id}:test`.

type Endpoint = Awaited<ReturnType<WebhooksService['getEndpoint']>>;
type Delivery = Awaited<ReturnType<WebhooksService['listDeliveries']>>['results'][number];

const NOTICES = ['webhooks.updatedNotice', 'webhooks.testSentNotice',
  'webhooks.resentNotice'] as const satisfies readonly MessageKey[];
// The delivery log shows the latest deliveries; the API pages further back.
const DELIVERIES_SHOWN = 20;
// Shown bodies are cut here: enough to read, never a page made huge by one event.
const SHOWN_TEXT_MAX = 4_000;
// A day, as the API's default: receivers switch to the new secret without losing a delivery.
const ROTATION_OVERLAP_SECONDS = 86_400;

// The errors of the webhooks service a form can cause, each with its words.
const SERVICE_ERRORS: Partial<Record<string, MessageKey>> = {
  WEBHOOK_URL_NOT_ALLOWED: 'webhooks.error.urlNotAllowed',
  WEBHOOK_ENDPOINT_LIMIT_REACHED: 'webhooks.error.limitReached',
  WEBHOOK_ENDPOINT_DISABLED: 'webhooks.error.disabled',
};

const truncated = (text: string) => (text.length > SHOWN_TEXT_MAX
  ? `${text.slice(0, SHOWN_TEXT_MAX)}…` : text);

const endpointPath = (endpointId: string) => `/webhooks/${encodeURIComponent(endpointId)}`;
const resendPath = (endpointId: string, eventId: string) =>
  `${endpointPath(endpointId)}/events/${encodeURIComponent(eventId)}/resend`;

// The events ticked in a form, in the catalogue's order.
const eventsOf = (form: URLSearchParams) => SUBSCRIBABLE_EVENT_TYPES.filter((type) =>
  form.getAll('events').includes(type));

function descriptionOf(form: URLSearchParams): string | undefined {
  const description = (form.get('description') ?? '').trim();
  return description === '' ? undefined : description;
}

function EventChoices(props: { ctx: PageContext; chosen: readonly string[] }) {
  const { t } = props.ctx;
  return (
    <fieldset class="events">
      <legend>{t('webhooks.events')}</legend>
      {SUBSCRIBABLE_EVENT_TYPES.map((type) => (
        <label key={type} class="check">
          <input type="checkbox" name="events" value={type}
            checked={props.chosen.includes(type)} />
          <code>{type}</code>
        </label>
      ))}
    </fieldset>
  );
}

function AddForm({ ctx }: { ctx: PageContext }) {
  const { t } = ctx;
  return (
    <PostForm ctx={ctx} action="/webhooks" class="stack">
      <label>{t('webhooks.url')} <span class="hint">{t('webhooks.urlHint')}</span>
        <input type="url" name="url" required maxLength={2_048} />
      </label>
      <label>{t('webhooks.description')}
        <input type="text" name="description" maxLength={500} />
      </label>
      <EventChoices ctx={ctx} chosen={[]} />
      <button type="submit" class="primary">{t('webhooks.add')}</button>
    </PostForm>
  );
}

function EndpointStatus({ ctx, endpoint }: { ctx: PageContext; endpoint: Endpoint }) {
  return <>{ctx.t(endpoint.enabled ? 'webhooks.enabled' : 'webhooks.disabled')}</>;
}

async function listBody(ctx: PageContext, problem?: MessageKey) {
  const { t } = ctx;
  const { results } = await ctx.services.areas.webhooks.listEndpoints({ caller: ctx.scope });
  return (
    <>
      {problem && <Notice kind="error">{t(problem)}</Notice>}
      <p>{t('webhooks.lead', { environment: t(`env.${ctx.scope.environment}`) })}</p>
      <Section title={t('webhooks.endpoints')} id="endpoints">
        {results.length === 0 ? <p>{t('webhooks.none')}</p> : (
          <CardTable head={<>
            <th>{t('webhooks.url')}</th><th>{t('webhooks.description')}</th>
            <th>{t('webhooks.events')}</th><th>{t('webhooks.status')}</th>
          </>}>
            {results.map((endpoint) => (
              <tr key={endpoint.id}>
                <td data-label={t('webhooks.url')}>
                  <a href={`/dashboard${endpointPath(endpoint.id)}`} class="break">
                    {endpoint.url}
                  </a>
                </td>
                <td data-label={t('webhooks.description')}>{endpoint.description ?? ''}</td>
                <td data-label={t('webhooks.events')}>{endpoint.events.length}</td>
                <td data-label={t('webhooks.status')}>
                  <EndpointStatus ctx={ctx} endpoint={endpoint} />
                </td>
              </tr>
            ))}
          </CardTable>
        )}
      </Section>
      {ctx.may('webhooks.manage')
        ? <Section title={t('webhooks.add')} id="add"><AddForm ctx={ctx} /></Section>
        : <p class="muted">{t('webhooks.readOnly')}</p>}
    </>
  );
}

// What was POSTed to the receiver: the event as it is delivered.
async function RequestBody({ ctx, delivery }: { ctx: PageContext; delivery: Delivery }) {
  const event = await ctx.services.areas.webhooks.getEvent({ caller: ctx.scope,
    eventId: delivery.eventId });
  return <pre class="body">{truncated(JSON.stringify(event, null, 2))}</pre>;
}

function Attempts({ ctx, delivery }: { ctx: PageContext; delivery: Delivery }) {
  const { t } = ctx;
  if (delivery.attempts.length === 0) return <p class="muted">{t('webhooks.noAttempt')}</p>;
  return (
    <ol class="attempts">
      {delivery.attempts.map((attempt) => (
        <li key={attempt.attemptNumber}>
          {t('webhooks.attempt', { number: attempt.attemptNumber,
            at: formatDateTime(new Date(attempt.startedAt)), ms: attempt.durationMs })}
          {' · '}
          {attempt.responseStatus === null ? t('webhooks.noAnswer')
            : t('webhooks.answered', { status: attempt.responseStatus })}
          {attempt.error !== null && <> · <span class="break">{truncated(attempt.error)}</span></>}
          {attempt.responseBody !== null && attempt.responseBody.length > 0 && (
            <pre class="body">{attempt.responseBody}</pre>
          )}
          {attempt.responseBodyTruncated && (
            <p class="muted">{t('webhooks.responseBodyCut', { bytes: '2,048' })}</p>
          )}
        </li>
      ))}
    </ol>
  );
}

async function DeliveryItem({ ctx, endpoint, delivery }: { ctx: PageContext;
  endpoint: Endpoint; delivery: Delivery }) {
  const { t } = ctx;
  return (
    <li class="delivery">
      <p>
        <code>{delivery.eventType}</code> · {t(`webhooks.delivery.${delivery.status}`)}
        {' · '}{formatDateTime(new Date(delivery.createdAt))}
      </p>
      <details>
        <summary>{t('webhooks.request')}</summary>
        {await RequestBody({ ctx, delivery })}
      </details>
      <details>
        <summary>{t('webhooks.response')}</summary>
        <Attempts ctx={ctx} delivery={delivery} />
      </details>
      {ctx.may('webhooks.manage') && endpoint.enabled && (
        <PostForm ctx={ctx} action={resendPath(endpoint.id, delivery.eventId)}>
          <button type="submit" class="secondary">{t('webhooks.resend')}</button>
        </PostForm>
      )}
    </li>
  );
}

function ManageForms({ ctx, endpoint }: { ctx: PageContext; endpoint: Endpoint }) {
  const { t } = ctx;
  const path = endpointPath(endpoint.id);
  return (
    <>
      <Section title={t('webhooks.edit')} id="edit">
        <PostForm ctx={ctx} action={path} class="stack">
          <label>{t('webhooks.description')}
            <input type="text" name="description" maxLength={500}
              value={endpoint.description ?? ''} />
          </label>
          <EventChoices ctx={ctx} chosen={endpoint.events} />
          <button type="submit" class="primary">{t('webhooks.save')}</button>
        </PostForm>
      </Section>
      <Section title={t('webhooks.actions')} id="actions">
        <div class="actions">
          {endpoint.enabled && (
            <PostForm ctx={ctx} action={`${path}/test`}>
              <button type="submit" class="primary">{t('webhooks.sendTest')}</button>
            </PostForm>
          )}
          <PostForm ctx={ctx} action={`${path}/enabled`}>
            <input type="hidden" name="enabled" value={endpoint.enabled ? 'false' : 'true'} />
            <button type="submit" class={endpoint.enabled ? 'danger' : 'secondary'}>
              {t(endpoint.enabled ? 'webhooks.disable' : 'webhooks.enable')}
            </button>
          </PostForm>
          <PostForm ctx={ctx} action={`${path}/rotate-secret`}
            confirm={t('webhooks.rotateConfirm')}>
            <button type="submit" class="secondary">{t('webhooks.rotate')}</button>
          </PostForm>
        </div>
        <p class="hint">{t('webhooks.rotateHint')}</p>
      </Section>
    </>
  );
}

async function endpointBody(ctx: PageContext, endpoint: Endpoint, problem?: MessageKey) {
  const { t } = ctx;
  const { results } = await ctx.services.areas.webhooks.listDeliveries({ caller: ctx.scope,
    endpointId: endpoint.id, limit: DELIVERIES_SHOWN });
  const deliveries = await Promise.all(results.map((delivery) =>
    DeliveryItem({ ctx, endpoint, delivery })));
  return (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Notice kind="error">{t(problem)}</Notice>}
      <p><a href="/dashboard/webhooks">{t('webhooks.back')}</a></p>
      <Section title={t('webhooks.endpoint')} id="endpoint">
        <dl class="facts">
          <dt>{t('webhooks.url')}</dt><dd class="break">{endpoint.url}</dd>
          <dt>{t('webhooks.description')}</dt><dd>{endpoint.description ?? ''}</dd>
          <dt>{t('webhooks.status')}</dt><dd><EndpointStatus ctx={ctx} endpoint={endpoint} /></dd>
          <dt>{t('webhooks.events')}</dt>
          <dd>{endpoint.events.map((type) => <code key={type} class="tag">{type}</code>)}</dd>
          {endpoint.previousSecretExpiresAt !== null && <>
            <dt>{t('webhooks.previousSecret')}</dt>
            <dd>{t('webhooks.previousSecretUntil', {
              at: formatDateTime(new Date(endpoint.previousSecretExpiresAt)) })}</dd>
          </>}
        </dl>
      </Section>
      {ctx.may('webhooks.manage') && <ManageForms ctx={ctx} endpoint={endpoint} />}
      <Section title={t('webhooks.deliveries')} id="deliveries">
        {deliveries.length === 0 ? <p>{t('webhooks.noDeliveries')}</p>
          : <ul class="deliveries">{deliveries}</ul>}
      </Section>
    </>
  );
}

function ShownSecret({ ctx, endpoint, secret }: { ctx: PageContext; endpoint: Endpoint;
  secret: string }) {
  const { t } = ctx;
  return (
    <Section title={endpoint.url} id="secret">
      <Notice kind="success">{t('webhooks.secretShownOnce')}</Notice>
      <code id="new-secret" class="secret key">{secret}</code>
      <div class="actions">
        <button type="button" class="secondary" data-copy="new-secret"
          data-copied={t('keys.copied')} hidden>{t('keys.copy')}</button>
        <a href={`/dashboard${endpointPath(endpoint.id)}`}>{t('webhooks.toEndpoint')}</a>
      </div>
    </Section>
  );
}

// A new or rotated signing secret is shown once, by the GET the POST redirects to
// (sessions/shown-once.ts): a reload shows the endpoint, not the secret, and rotates nothing.
async function showSecretOnce(ctx: PageContext, endpointId: string, secret: string):
  Promise<Outcome> {
  await ctx.services.shownOnce.put(ctx.session.sessionId, { kind: 'webhookSecret', endpointId,
    secret });
  return { kind: 'redirect', to: `/dashboard${endpointPath(endpointId)}/secret` };
}

// The service's refusal as a page: not found for another scope's id, the form again with the
// service's reason otherwise.
async function refused(ctx: PageContext, error: unknown,
  again: (problem: MessageKey) => Promise<Outcome>): Promise<Outcome> {
  if (!(error instanceof ApiError)) throw error;
  if (error.code === 'NOT_FOUND') return errorOutcome(ctx.t, 'notFound', 404);
  const problem = SERVICE_ERRORS[error.code];
  if (problem === undefined) throw error;
  const outcome = await again(problem);
  return outcome.kind === 'page' ? { ...outcome, status: error.status } : outcome;
}

async function withEndpoint(ctx: PageContext,
  then: (endpoint: Endpoint) => Promise<Outcome>): Promise<Outcome> {
  let endpoint: Endpoint;
  try {
    endpoint = await ctx.services.areas.webhooks.getEndpoint({ caller: ctx.scope,
      endpointId: ctx.params.endpointId ?? '' });
  } catch (error) {
    return refused(ctx, error, () => { throw error; });
  }
  try {
    return await then(endpoint);
  } catch (error) {
    return refused(ctx, error, async (problem) => ({ kind: 'page', title: 'webhooks.title',
      body: await endpointBody(ctx, endpoint, problem) }));
  }
}

const listPage = async (ctx: PageContext, problem?: MessageKey, status?: number):
  Promise<Outcome> => ({ kind: 'page', title: 'webhooks.title', status,
  body: await listBody(ctx, problem) });

const redirectTo = (endpointId: string, notice: (typeof NOTICES)[number]): Outcome =>
  ({ kind: 'redirect', to: `/dashboard${endpointPath(endpointId)}?notice=${notice}` });

export const webhooksPage: DashboardPage = {
  nav: { label: 'nav.webhooks', path: '/webhooks', section: 'developers',
    permission: 'account.read' },
  routes: [
    {
      method: 'GET', path: '/webhooks', permission: 'account.read',
      handle: (ctx) => listPage(ctx),
    },
    {
      method: 'POST', path: '/webhooks', permission: 'webhooks.manage',
      async handle(ctx) {
        const events = eventsOf(ctx.form);
        const description = descriptionOf(ctx.form);
        const input = { url: (ctx.form.get('url') ?? '').trim(), events,
          ...(description === undefined ? {} : { description }) };
        if (events.length === 0) return listPage(ctx, 'webhooks.error.noEvents', 400);
        if (!Value.Check(WebhookEndpointInput, input)) {
          return listPage(ctx, 'webhooks.error.invalid', 400);
        }
        try {
          const created = await ctx.services.areas.webhooks.createEndpoint({ caller: ctx.scope,
            ...input });
          await ctx.audit('webhook.endpointCreated', created.id, ctx.scope.environment);
          return showSecretOnce(ctx, created.id, created.secret);
        } catch (error) {
          return refused(ctx, error, (problem) => listPage(ctx, problem));
        }
      },
    },
    {
      method: 'GET', path: '/webhooks/:endpointId', permission: 'account.read',
      handle: (ctx) => withEndpoint(ctx, async (endpoint) => ({ kind: 'page',
        title: 'webhooks.title', body: await endpointBody(ctx, endpoint) })),
    },
    {
      // The note and the events.
      method: 'POST', path: '/webhooks/:endpointId', permission: 'webhooks.manage',
      handle: (ctx) => withEndpoint(ctx, async (endpoint) => {
        const changes = { events: eventsOf(ctx.form),
          description: descriptionOf(ctx.form) ?? null };
        const problem = changes.events.length === 0 ? 'webhooks.error.noEvents'
          : Value.Check(WebhookEndpointChanges, changes) ? null : 'webhooks.error.invalid';
        if (problem !== null) {
          return { kind: 'page', title: 'webhooks.title', status: 400,
            body: await endpointBody(ctx, endpoint, problem) };
        }
        await ctx.services.areas.webhooks.updateEndpoint({ caller: ctx.scope,
          endpointId: endpoint.id, changes });
        await ctx.audit('webhook.endpointUpdated', endpoint.id, ctx.scope.environment);
        return redirectTo(endpoint.id, 'webhooks.updatedNotice');
      }),
    },
    {
      method: 'POST', path: '/webhooks/:endpointId/enabled', permission: 'webhooks.manage',
      handle: (ctx) => withEndpoint(ctx, async (endpoint) => {
        const enabled = ctx.form.get('enabled') === 'true';
        await ctx.services.areas.webhooks.updateEndpoint({ caller: ctx.scope,
          endpointId: endpoint.id, changes: { enabled } });
        await ctx.audit(enabled ? 'webhook.endpointEnabled' : 'webhook.endpointDisabled',
          endpoint.id, ctx.scope.environment);
        return redirectTo(endpoint.id, 'webhooks.updatedNotice');
      }),
    },
    {
      method: 'POST', path: '/webhooks/:endpointId/rotate-secret', permission: 'webhooks.manage',
      handle: (ctx) => withEndpoint(ctx, async (endpoint) => {
        const rotated = await ctx.services.areas.webhooks.rotateSecret({ caller: ctx.scope,
          endpointId: endpoint.id, overlapSeconds: ROTATION_OVERLAP_SECONDS });
        await ctx.audit('webhook.secretRotated', endpoint.id, ctx.scope.environment);
        return showSecretOnce(ctx, rotated.id, rotated.secret);
      }),
    },
    {
      method: 'GET', path: '/webhooks/:endpointId/secret', permission: 'webhooks.manage',
      handle: (ctx) => withEndpoint(ctx, async (endpoint) => {
        const shown = await ctx.services.shownOnce.take(ctx.session.sessionId, 'webhookSecret',
          (value) => value.endpointId === endpoint.id);
        if (shown === null) {
          return { kind: 'page', title: 'webhooks.title', status: 410, body: <>
            <Notice kind="info">{ctx.t('webhooks.secretGone')}</Notice>
            {await endpointBody(ctx, endpoint)}
          </> };
        }
        return { kind: 'page', title: 'webhooks.title',
          body: <ShownSecret ctx={ctx} endpoint={endpoint} secret={shown.secret} /> };
      }),
    },
    {
      method: 'POST', path: '/webhooks/:endpointId/test', permission: 'webhooks.manage',
      handle: (ctx) => withEndpoint(ctx, async (endpoint) => {
        await ctx.services.areas.webhooks.sendTestEvent({ caller: ctx.scope,
          endpointId: endpoint.id });
        return redirectTo(endpoint.id, 'webhooks.testSentNotice');
      }),
    },
    {
      method: 'POST', path: '/webhooks/:endpointId/events/:eventId/resend',
      permission: 'webhooks.manage',
      handle: (ctx) => withEndpoint(ctx, async (endpoint) => {
        await ctx.services.areas.webhooks.resendEvent({ caller: ctx.scope,
          endpointId: endpoint.id, eventId: ctx.params.eventId ?? '' });
        await ctx.audit('webhook.eventResent', ctx.params.eventId ?? null,
          ctx.scope.environment);
        return redirectTo(endpoint.id, 'webhooks.resentNotice');
      }),
    },
  ],
};
