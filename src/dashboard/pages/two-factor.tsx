import type { VNode } from 'preact';
import { Notice, PostForm, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import type { MessageKey } from '../i18n/index.ts';

// The second factor under Settings (docs/dashboard.md § Second factor): set up with a secret
// shown once (a QR code and the key) and confirmed with a code, turned off with the password
// (not while the account requires it), and the account's requirement, an Owner's to set. The
// secret and the recovery codes are shown on the answer to the POST that made them, never
// again: a redirect would have to keep them somewhere to show them.

export const TWO_FACTOR_NOTICES = ['twoFactor.enabled', 'twoFactor.disabled',
  'twoFactor.requiredSaved'] as const satisfies readonly MessageKey[];

export function TwoFactorSection({ ctx, enabled, recoveryCodesLeft }: { ctx: PageContext;
  enabled: boolean; recoveryCodesLeft: number }) {
  const { t, session } = ctx;
  const required = session.twoFactorRequired;
  return (
    <Section title={t('twoFactor.title')} id="two-factor">
      {required && !enabled && <Notice kind="info">{t('twoFactor.requiredNotice')}</Notice>}
      <p>{enabled ? t('twoFactor.on', { count: recoveryCodesLeft }) : t('twoFactor.off')}</p>
      {!enabled && (
        <PostForm ctx={ctx} action="/settings/two-factor/start" class="actions">
          <button type="submit" class="primary">{t('twoFactor.begin')}</button>
        </PostForm>
      )}
      {enabled && !required && (
        <PostForm ctx={ctx} action="/settings/two-factor/disable" class="stack">
          <p class="muted">{t('twoFactor.disableLead')}</p>
          <input type="text" name="username" autocomplete="username" value={session.user.email}
            hidden readOnly />
          <label>{t('settings.currentPassword')}
            <input type="password" name="password" autocomplete="current-password" required
              maxLength={200} />
          </label>
          <div class="actions">
            <button type="submit" class="danger">{t('twoFactor.disable')}</button>
          </div>
        </PostForm>
      )}
      {ctx.may('account.own') && (
        <>
          <h3>{t('twoFactor.account')}</h3>
          <p>{required ? t('twoFactor.accountRequired') : t('twoFactor.accountOptional')}</p>
          <PostForm ctx={ctx} action="/settings/two-factor/required" class="actions">
            <input type="hidden" name="required" value={required ? 'false' : 'true'} />
            <button type="submit" class="secondary">
              {required ? t('twoFactor.makeOptional') : t('twoFactor.require')}
            </button>
          </PostForm>
        </>
      )}
    </Section>
  );
}

const twoFactorOutcome = (body: VNode, status = 200): Outcome =>
  ({ kind: 'page', title: 'twoFactor.title', status, body });

async function start(ctx: PageContext): Promise<Outcome> {
  const { t } = ctx;
  const { userId, email } = ctx.session.user;
  const enrolment = await ctx.services.twoFactor.begin(userId, email);
  if (enrolment === null) return { kind: 'redirect', to: '/dashboard/settings#two-factor' };
  const qr = `data:image/svg+xml;base64,${Buffer.from(enrolment.qrSvg).toString('base64')}`;
  return twoFactorOutcome(
    <Section title={t('twoFactor.begin')} id="two-factor-setup">
      <p>{t('twoFactor.scan')}</p>
      <img src={qr} alt={t('twoFactor.qrAlt')} width={220} height={220} class="qr" />
      <p>{t('twoFactor.secret')}: <code class="secret" data-copy>{enrolment.secret}</code></p>
      <PostForm ctx={ctx} action="/settings/two-factor/confirm" class="stack">
        <label>{t('twoFactor.code')}
          <input type="text" name="code" inputMode="numeric" autocomplete="one-time-code"
            pattern="[0-9]{6}" maxLength={6} required />
        </label>
        <div class="actions">
          <button type="submit" class="primary">{t('twoFactor.confirm')}</button>
        </div>
      </PostForm>
    </Section>,
  );
}

async function confirm(ctx: PageContext): Promise<Outcome> {
  const { t } = ctx;
  const { userId, email } = ctx.session.user;
  const codes = await ctx.services.twoFactor.confirm(userId, email,
    (ctx.form.get('code') ?? '').slice(0, 20));
  if (codes === null) {
    return twoFactorOutcome(
      <>
        <Notice kind="error">{t('twoFactor.wrongCode')}</Notice>
        <PostForm ctx={ctx} action="/settings/two-factor/start" class="actions">
          <button type="submit" class="primary">{t('twoFactor.begin')}</button>
        </PostForm>
      </>, 400);
  }
  await ctx.audit('user.twoFactorEnabled', email);
  return twoFactorOutcome(
    <>
      <Notice kind="success">{t('twoFactor.enabled')}</Notice>
      <Section title={t('twoFactor.recoveryCodes')} id="recovery-codes">
        <p>{t('twoFactor.recoveryLead')}</p>
        <ul class="recovery-codes">
          {codes.map((code) => <li key={code}><code>{code}</code></li>)}
        </ul>
        <p><a href="/dashboard/settings#two-factor">{t('nav.settings')}</a></p>
      </Section>
    </>,
  );
}

export const twoFactorPage: DashboardPage = {
  routes: [
    { method: 'POST', path: '/settings/two-factor/start', permission: 'account.read',
      beforeSecondFactor: true, handle: start },
    { method: 'POST', path: '/settings/two-factor/confirm', permission: 'account.read',
      beforeSecondFactor: true, handle: confirm },
    {
      method: 'POST', path: '/settings/two-factor/disable', permission: 'account.read',
      async handle(ctx) {
        const { userId, email } = ctx.session.user;
        if (ctx.session.twoFactorRequired) {
          return twoFactorOutcome(<Notice kind="error">{ctx.t('twoFactor.cannotDisable')}</Notice>,
            403);
        }
        if (!(await ctx.services.users.passwordMatches(userId, ctx.form.get('password') ?? ''))) {
          return twoFactorOutcome(<Notice kind="error">{ctx.t('twoFactor.wrongPassword')}</Notice>,
            400);
        }
        if (await ctx.services.twoFactor.disable(userId)) {
          await ctx.audit('user.twoFactorDisabled', email);
        }
        return { kind: 'redirect', to: '/dashboard/settings?notice=twoFactor.disabled' };
      },
    },
    {
      method: 'POST', path: '/settings/two-factor/required', permission: 'account.own',
      async handle(ctx) {
        const value = ctx.form.get('required');
        if (value !== 'true' && value !== 'false') return { kind: 'redirect',
          to: '/dashboard/settings#two-factor' };
        await ctx.services.twoFactor.setRequired(ctx.scope.accountId, value === 'true');
        await ctx.audit(value === 'true' ? 'account.twoFactorRequired'
          : 'account.twoFactorOptional');
        return { kind: 'redirect', to: '/dashboard/settings?notice=twoFactor.requiredSaved' };
      },
    },
  ],
};
