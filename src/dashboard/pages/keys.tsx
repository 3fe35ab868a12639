import { API_KEY_LABEL_LENGTH_MAX } from '../../platform/accounts/service.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, PageContext } from '../context.ts';
import { formatDateTime } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { errorOutcome } from './errors.tsx';

// API keys of the session's environment: create (the key shown once, on the answer to the POST
// itself, so it is never stored or put in an address), label, revoke, last used. Keys are made
// and revoked by the platform's accounts service, the same one as `etax key create`; a revoked
// key is dropped from this process's key cache at once.

const NOTICES = ['keys.revokedNotice'] as const satisfies readonly MessageKey[];

function parseLabel(raw: string | null): string | null {
  const label = (raw ?? '').trim();
  return label.length > 0 && label.length <= API_KEY_LABEL_LENGTH_MAX ? label : null;
}

function CreateForm({ ctx }: { ctx: PageContext }) {
  const { t } = ctx;
  return (
    <PostForm ctx={ctx} action="/keys" class="row">
      <label>{t('keys.label')} <span class="hint">{t('keys.labelHint')}</span>
        <input type="text" name="label" required maxLength={API_KEY_LABEL_LENGTH_MAX} />
      </label>
      <button type="submit" class="primary">{t('keys.create')}</button>
    </PostForm>
  );
}

async function keysBody(ctx: PageContext, problem?: MessageKey) {
  const { t } = ctx;
  const keys = await ctx.services.platform.accounts.listKeys(ctx.scope);
  const manage = ctx.may('keys.manage');
  const seconds = Math.ceil(ctx.services.platform.config.AUTH_CACHE_TTL_MS / 1000);
  return (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Notice kind="error">{t(problem)}</Notice>}
      <p>{t('keys.lead', { environment: t(`env.${ctx.scope.environment}`) })}</p>
      <Notice kind="info">{t('keys.revokeNotice', { seconds })}</Notice>
      {manage ? <Section title={t('keys.create')} id="create"><CreateForm ctx={ctx} /></Section>
        : <p class="muted">{t('keys.readOnly')}</p>}
      <Section title={t('keys.title')} id="list">
        {keys.length === 0 ? <p>{t('keys.none')}</p> : (
          <CardTable head={<>
            <th>{t('keys.label')}</th><th>{t('keys.key')}</th><th>{t('keys.createdAt')}</th>
            <th>{t('keys.lastUsed')}</th><th>{t('keys.status')}</th>
            {manage && <th><span class="sr-only">{t('keys.revoke')}</span></th>}
          </>}>
            {keys.map((key) => (
              <tr key={key.id}>
                <td data-label={t('keys.label')}>{key.label ?? t('keys.noLabel')}</td>
                <td data-label={t('keys.key')}><code>{key.redacted}</code></td>
                <td data-label={t('keys.createdAt')} class="nowrap">
                  {formatDateTime(key.createdAt)}
                </td>
                <td data-label={t('keys.lastUsed')} class="nowrap">
                  {key.lastUsedAt ? formatDateTime(key.lastUsedAt) : t('keys.never')}
                </td>
                <td data-label={t('keys.status')}>{key.revokedAt
                  ? t('keys.revoked', { date: formatDateTime(key.revokedAt) })
                  : t('keys.active')}</td>
                {manage && (
                  <td data-label="">{key.revokedAt === null && (
                    <PostForm ctx={ctx} action={`/keys/${key.id}/revoke`}
                      confirm={t('keys.revokeConfirm')}>
                      <button type="submit" class="danger"
                        aria-label={`${t('keys.revoke')} ${key.label ?? key.redacted}`}>
                        {t('keys.revoke')}
                      </button>
                    </PostForm>
                  )}</td>
                )}
              </tr>
            ))}
          </CardTable>
        )}
      </Section>
    </>
  );
}

function CreatedKey({ ctx, secret, label }: { ctx: PageContext; secret: string;
  label: string }) {
  const { t } = ctx;
  return (
    <Section title={label} id="created">
      <Notice kind="success">{t('keys.created')}</Notice>
      <code id="new-key" class="secret key">{secret}</code>
      <div class="actions">
        <button type="button" class="secondary" data-copy="new-key" data-copied={t('keys.copied')}
          hidden>{t('keys.copy')}</button>
        <a href="/dashboard/keys">{t('keys.back')}</a>
      </div>
    </Section>
  );
}

export const keysPage: DashboardPage = {
  nav: { label: 'nav.keys', path: '/keys', section: 'developers', permission: 'account.read' },
  routes: [
    {
      method: 'GET', path: '/keys', permission: 'account.read',
      async handle(ctx) {
        return { kind: 'page', title: 'keys.title', body: await keysBody(ctx) };
      },
    },
    {
      method: 'POST', path: '/keys', permission: 'keys.manage',
      async handle(ctx) {
        const label = parseLabel(ctx.form.get('label'));
        if (label === null) {
          return { kind: 'page', title: 'keys.title', status: 400,
            body: await keysBody(ctx, 'keys.labelInvalid') };
        }
        const { key, keyId } = await ctx.services.platform.accounts.createKey({
          accountId: ctx.scope.accountId, environment: ctx.scope.environment, label });
        await ctx.audit('key.created', keyId, ctx.scope.environment);
        // Shown once by the GET it redirects to (sessions/shown-once.ts): a reload shows the
        // list, not the key, and makes no second key.
        await ctx.services.shownOnce.put(ctx.session.sessionId, { kind: 'apiKey', label,
          secret: key });
        return { kind: 'redirect', to: '/dashboard/keys/created' };
      },
    },
    {
      method: 'GET', path: '/keys/created', permission: 'keys.manage',
      async handle(ctx) {
        const created = await ctx.services.shownOnce.take(ctx.session.sessionId, 'apiKey');
        if (created === null) {
          return { kind: 'page', title: 'keys.title', status: 410, body: <>
            <Notice kind="info">{ctx.t('keys.shownOnceGone')}</Notice>
            {await keysBody(ctx)}
          </> };
        }
        return { kind: 'page', title: 'keys.title',
          body: <CreatedKey ctx={ctx} secret={created.secret} label={created.label} /> };
      },
    },
    {
      method: 'POST', path: '/keys/:keyId/revoke', permission: 'keys.manage',
      async handle(ctx) {
        const keyId = ctx.params.keyId ?? '';
        const revoked = await ctx.services.platform.accounts.revokeKeyById(ctx.scope, keyId);
        if (!revoked) return errorOutcome(ctx.t, 'notFound', 404);
        ctx.services.keys.forgetKeyId(keyId);
        await ctx.audit('key.revoked', keyId, ctx.scope.environment);
        return { kind: 'redirect', to: '/dashboard/keys?notice=keys.revokedNotice' };
      },
    },
  ],
};
