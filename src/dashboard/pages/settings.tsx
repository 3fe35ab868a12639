import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, PageContext } from '../context.ts';
import { formatDateTime } from '../format.ts';
import { clearSessionCookie } from '../http.ts';
import type { MessageKey } from '../i18n/index.ts';
import { UserInputError } from '../users/service.ts';
import { TWO_FACTOR_NOTICES, TwoFactorSection } from './two-factor.tsx';

// Settings: the signed-in user's own language, password and sessions. Every role may change
// its own; nothing here touches the account's data.

const NOTICES = ['settings.passwordChanged', 'settings.sessionEnded', ...TWO_FACTOR_NOTICES] as
  const satisfies readonly MessageKey[];

function SessionsSection({ ctx, sessions }: { ctx: PageContext;
  sessions: Awaited<ReturnType<PageContext['services']['sessions']['list']>> }) {
  const { t, session } = ctx;
  return (
    <Section title={t('settings.sessions')} id="sessions">
      <p class="muted">{t('settings.sessionsLead')}</p>
      <CardTable head={<>
        <th>{t('settings.sessionStarted')}</th><th>{t('settings.sessionLastSeen')}</th>
        <th>{t('settings.sessionAddress')}</th><th>{t('settings.sessionBrowser')}</th>
        <th><span class="sr-only">{t('settings.endSession')}</span></th>
      </>}>
        {sessions.map((row) => (
          <tr key={row.id}>
            <td data-label={t('settings.sessionStarted')} class="nowrap">
              {formatDateTime(row.createdAt)}
            </td>
            <td data-label={t('settings.sessionLastSeen')} class="nowrap">
              {formatDateTime(row.lastSeenAt)}
            </td>
            <td data-label={t('settings.sessionAddress')} class="nowrap">
              {row.address ?? ''}
            </td>
            <td data-label={t('settings.sessionBrowser')}>{row.userAgent ?? ''}</td>
            <td data-label="" class="nowrap">
              {row.id === session.sessionId ? <strong>{t('settings.thisSession')}</strong> : (
                <PostForm ctx={ctx} action={`/settings/sessions/${row.id}/end`}>
                  <button type="submit" class="danger">{t('settings.endSession')}</button>
                </PostForm>
              )}
            </td>
          </tr>
        ))}
      </CardTable>
      <PostForm ctx={ctx} action="/settings/sign-out-everywhere" class="actions">
        <button type="submit" class="danger">{t('settings.signOutEverywhere')}</button>
      </PostForm>
    </Section>
  );
}

async function settingsBody(ctx: PageContext, problem?: MessageKey) {
  const { t, session } = ctx;
  const sessions = await ctx.services.sessions.list(session.user.userId);
  const twoFactor = await ctx.services.twoFactor.status(session.user.userId);
  return (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Notice kind="error">{t(problem)}</Notice>}
      <Section title={t('settings.profile')} id="profile">
        <table class="facts">
          <tbody>
            <tr><th scope="row">{t('settings.email')}</th><td>{session.user.email}</td></tr>
            <tr>
              <th scope="row">{t('settings.role')}</th><td>{t(`role.${session.user.role}`)}</td>
            </tr>
          </tbody>
        </table>
      </Section>
      <Section title={t('settings.language')} id="language">
        <PostForm ctx={ctx} action="/language" class="row">
          <input type="hidden" name="return" value="/dashboard/settings" />
          <label>{t('settings.language')}
            <select name="locale">
              <option value="ko" selected={ctx.locale === 'ko'}>한국어</option>
              <option value="en" selected={ctx.locale === 'en'}>English</option>
            </select>
          </label>
          <button type="submit" class="secondary">{t('settings.languageSave')}</button>
        </PostForm>
      </Section>
      <Section title={t('settings.password')} id="password">
        <PostForm ctx={ctx} action="/settings/password" class="stack">
          <input type="text" name="username" autocomplete="username" value={session.user.email}
            hidden readOnly />
          <label>{t('settings.currentPassword')}
            <input type="password" name="current" autocomplete="current-password" required />
          </label>
          <label>
            {t('settings.newPassword')} <span class="hint">{t('settings.newPasswordHint')}</span>
            <input type="password" name="next" autocomplete="new-password" required minLength={10}
              maxLength={200} />
          </label>
          <div class="actions">
            <button type="submit" class="primary">{t('settings.passwordSave')}</button>
          </div>
        </PostForm>
      </Section>
      <TwoFactorSection ctx={ctx} {...twoFactor} />
      <SessionsSection ctx={ctx} sessions={sessions} />
    </>
  );
}

const PASSWORD_PROBLEMS: Record<string, MessageKey> = {
  passwordTooShort: 'settings.passwordTooShort',
  passwordTooLong: 'settings.passwordTooLong',
};

export const settingsPage: DashboardPage = {
  nav: { label: 'nav.settings', path: '/settings', section: 'you', permission: 'account.read' },
  routes: [
    {
      method: 'GET', path: '/settings', permission: 'account.read',
      beforeSecondFactor: true,
      async handle(ctx) {
        return { kind: 'page', title: 'settings.title', body: await settingsBody(ctx) };
      },
    },
    {
      // A changed password ends every other session of the user: whoever knew the old one is
      // signed out.
      method: 'POST', path: '/settings/password', permission: 'account.read',
      beforeSecondFactor: true,
      async handle(ctx) {
        const { userId } = ctx.session.user;
        let changed: boolean;
        try {
          changed = await ctx.services.users.changePassword(userId, ctx.form.get('current') ?? '',
            ctx.form.get('next') ?? '');
        } catch (error) {
          if (!(error instanceof UserInputError)) throw error;
          const problem = PASSWORD_PROBLEMS[error.problem] ?? 'settings.passwordTooShort';
          return { kind: 'page', title: 'settings.title', status: 400,
            body: await settingsBody(ctx, problem) };
        }
        if (!changed) {
          return { kind: 'page', title: 'settings.title', status: 400,
            body: await settingsBody(ctx, 'settings.passwordWrong') };
        }
        await ctx.services.sessions.endAll(userId, ctx.session.sessionId);
        await ctx.audit('user.passwordChanged', ctx.session.user.email);
        return { kind: 'redirect', to: '/dashboard/settings?notice=settings.passwordChanged' };
      },
    },
    {
      method: 'POST', path: '/settings/sessions/:sessionId/end', permission: 'account.read',
      beforeSecondFactor: true,
      async handle(ctx) {
        const ended = await ctx.services.sessions.endOne(ctx.session.user.userId,
          ctx.params.sessionId ?? '');
        if (!ended) return { kind: 'redirect', to: '/dashboard/settings' };
        return { kind: 'redirect', to: '/dashboard/settings?notice=settings.sessionEnded' };
      },
    },
    {
      method: 'POST', path: '/settings/sign-out-everywhere', permission: 'account.read',
      beforeSecondFactor: true,
      async handle(ctx) {
        await ctx.services.sessions.endAll(ctx.session.user.userId);
        await ctx.audit('user.signedOutEverywhere');
        clearSessionCookie(ctx.request, ctx.reply);
        return { kind: 'redirect', to: '/dashboard/sign-in?notice=signedOut' };
      },
    },
  ],
};
