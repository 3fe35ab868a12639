import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import type { RateLimitPolicy } from '../../platform/operations.ts';
import { recordAudit } from '../audit/store.ts';
import type { DashboardServices } from '../context.ts';
import { clientAddress, csrfToken, csrfTokenMatches, readSignInCookie, sameOrigin, signInCookie }
  from '../http.ts';
import { isLocale, translator, type Locale, type MessageKey, type Translate } from
  '../i18n/index.ts';
import { PlainLayout } from '../layout.tsx';
import { INVITATION_PATH, LinkError, RESET_PATH } from '../links/service.ts';
import { sendHtml } from '../render.ts';
import { UserInputError } from '../users/service.ts';
import { StandaloneErrorPage } from './errors.tsx';

// The pages without a session that mail links lead to (docs/dashboard.md § Invitations and
// password resets): asking for a reset link, choosing a new password from one, and accepting an
// invitation. Their forms carry the sign-in form's CSRF token. Asking for a reset link answers
// the same whether or not the email has a user, and is counted per address and per email like
// sign-in attempts.

type PublicRoute = { method: 'GET' | 'POST'; path: string;
  handle(request: FastifyRequest, reply: FastifyReply,
    params: Record<string, string | undefined>): Promise<unknown> };

type Counter = { name: string; policy: RateLimitPolicy };
const RESET_PER_ADDRESS: Counter = { name: 'dashboard.reset.address',
  policy: { limit: 10, windowSeconds: 15 * 60 } };
// A mailbox gets at most three reset mails an hour, whoever asks.
const RESET_PER_EMAIL: Counter = { name: 'dashboard.reset.email',
  policy: { limit: 3, windowSeconds: 60 * 60 } };
const FIELD_LENGTH_MAX = 300;
const FORGOT_PATH = '/dashboard/forgot-password';

function localeOf(request: FastifyRequest): Locale {
  const lang = new URLSearchParams(request.url.split('?')[1] ?? '').get('lang');
  return isLocale(lang) ? lang : 'ko';
}

const formOf = (request: FastifyRequest) =>
  (request.body instanceof URLSearchParams ? request.body : new URLSearchParams());

const PASSWORD_PROBLEMS: Record<string, MessageKey> = {
  passwordTooShort: 'link.passwordTooShort',
  passwordTooLong: 'link.passwordTooLong',
  emailTaken: 'link.emailTaken',
};

function Problem({ text }: { text: string | undefined }) {
  return text === undefined ? null : <div class="notice error" role="alert">{text}</div>;
}

function PasswordForm(props: { t: Translate; action: string; csrf: string; email: string;
  submit: MessageKey }) {
  const { t } = props;
  return (
    <form method="post" action={props.action} class="stack">
      <input type="hidden" name="_csrf" value={props.csrf} />
      <input type="text" name="username" autocomplete="username" value={props.email} hidden
        readOnly />
      <label>{t('link.newPassword')} <span class="hint">{t('link.passwordHint')}</span>
        <input type="password" name="password" autocomplete="new-password" required
          minLength={10} maxLength={200} />
      </label>
      <div class="actions"><button type="submit" class="primary">{t(props.submit)}</button></div>
    </form>
  );
}

const linkStatus = (error: LinkError) => (error.reason === 'unknown' ? 404 : 410);

type Kit = ReturnType<typeof pageKit>;

// What every page here shares: the layout with the sign-in form's CSRF token, the page of a
// link that does not open, the CSRF check, the redirect to sign-in.
function pageKit() {
  function page(request: FastifyRequest, reply: FastifyReply, status: number, title: MessageKey,
    body: (t: Translate, csrf: string, locale: Locale) => ComponentChildren) {
    const locale = localeOf(request);
    const t = translator(locale);
    const csrf = csrfToken(signInCookie(request, reply));
    return sendHtml(reply, status, (
      <PlainLayout locale={locale} title={t(title)} appName={t('app.name')}>
        {body(t, csrf, locale)}
      </PlainLayout>
    ));
  }

  function linkFailed(request: FastifyRequest, reply: FastifyReply, error: unknown) {
    if (!(error instanceof LinkError)) throw error;
    return page(request, reply, linkStatus(error), 'link.unknown.title', (t, _csrf, locale) => (
      <>
        <p>{t(`link.${error.reason}`)}</p>
        <p><a href={`${FORGOT_PATH}?lang=${locale}`}>{t('signIn.forgot')}</a></p>
      </>
    ));
  }

  // Same origin and the sign-in cookie's token, as the sign-in form.
  function refused(request: FastifyRequest, reply: FastifyReply) {
    if (sameOrigin(request) && csrfTokenMatches(readSignInCookie(request),
      formOf(request).get('_csrf'))) {
      return null;
    }
    return sendHtml(reply, 403, <StandaloneErrorPage kind="csrf" />);
  }

  const signInWith = (reply: FastifyReply, notice: string, locale: Locale) =>
    reply.code(303).header('cache-control', 'no-store')
      .redirect(`/dashboard/sign-in?notice=${notice}&lang=${locale}`, 303);

  return { page, linkFailed, refused, signInWith };
}

function forgotRoutes(services: DashboardServices, kit: Kit): PublicRoute[] {
  const { resetRequests, rateLimiter } = services;
  const { page, refused } = kit;
  function forgotForm(request: FastifyRequest, reply: FastifyReply, status: number,
    extra: { problem?: string; notice?: string; email?: string } = {}) {
    return page(request, reply, status, 'forgot.title', (t, csrf, locale) => (
      <>
        {extra.notice && <div class="notice success" role="status">{extra.notice}</div>}
        <Problem text={extra.problem} />
        <p>{t('forgot.lead')}</p>
        <form method="post" action={`${FORGOT_PATH}?lang=${locale}`} class="stack">
          <input type="hidden" name="_csrf" value={csrf} />
          <label>{t('signIn.email')}
            <input type="email" name="email" autocomplete="username" required maxLength={254}
              value={extra.email ?? ''} />
          </label>
          <div class="actions">
            <button type="submit" class="primary">{t('forgot.submit')}</button>
          </div>
        </form>
        <p><a href={`/dashboard/sign-in?lang=${locale}`}>{t('forgot.backToSignIn')}</a></p>
      </>
    ));
  }

  async function requestReset(request: FastifyRequest, reply: FastifyReply) {
    const refusal = refused(request, reply);
    if (refusal !== null) return refusal;
    const t = translator(localeOf(request));
    const email = (formOf(request).get('email') ?? '').trim().slice(0, FIELD_LENGTH_MAX);
    const address = clientAddress(request);
    for (const [counter, key] of [[RESET_PER_ADDRESS, address],
      [RESET_PER_EMAIL, email.toLowerCase()]] as const) {
      const retryAfterSeconds = await rateLimiter.attempt(counter.name, counter.policy, key);
      if (retryAfterSeconds !== null) {
        reply.header('retry-after', String(retryAfterSeconds));
        return forgotForm(request, reply, 429, { email, problem: t('forgot.limited',
          { minutes: Math.ceil(retryAfterSeconds / 60) }) });
      }
    }
    // The same steps and the same page whether or not a user has the email: the lookup, the
    // link and the mail happen after the answer (links/reset-requests.ts).
    resetRequests.submit(email, address);
    return forgotForm(request, reply, 200, { notice: t('forgot.sent') });
  }

  return [
    { method: 'GET', path: FORGOT_PATH, handle: async (request, reply) =>
      forgotForm(request, reply, 200) },
    { method: 'POST', path: FORGOT_PATH, handle: requestReset },
  ];
}

function resetRoutes(services: DashboardServices, kit: Kit): PublicRoute[] {
  const { links, sessions } = services;
  const { db } = services.platform.database;
  const { page, linkFailed, refused, signInWith } = kit;
  function resetForm(request: FastifyRequest, reply: FastifyReply, token: string, email: string,
    status = 200, problem?: MessageKey) {
    return page(request, reply, status, 'reset.title', (t, csrf, locale) => (
      <>
        <Problem text={problem && t(problem)} />
        <p>{t('reset.lead', { email })}</p>
        <PasswordForm t={t} csrf={csrf} email={email} submit="reset.submit"
          action={`${RESET_PATH}/${token}?lang=${locale}`} />
      </>
    ));
  }

  return [
    {
      method: 'GET', path: `${RESET_PATH}/:token`, async handle(request, reply, params) {
        const token = params.token ?? '';
        try {
          const { email } = await links.readReset(token);
          return resetForm(request, reply, token, email);
        } catch (error) {
          return linkFailed(request, reply, error);
        }
      },
    },
    {
      method: 'POST', path: `${RESET_PATH}/:token`, async handle(request, reply, params) {
        const refusal = refused(request, reply);
        if (refusal !== null) return refusal;
        const token = params.token ?? '';
        const password = formOf(request).get('password') ?? '';
        try {
          const user = await links.resetPassword(token, password);
          // Whoever held the old password is signed out.
          await sessions.endAll(user.userId);
          await recordAudit(db, { accountId: user.accountId, actor: { userId: user.userId,
            email: user.email }, action: 'user.passwordResetByLink', target: user.email,
          address: clientAddress(request) });
          return signInWith(reply, 'passwordReset', localeOf(request));
        } catch (error) {
          if (error instanceof UserInputError) {
            const { email } = await links.readReset(token).catch(() => ({ email: '' }));
            return resetForm(request, reply, token, email, 400,
              PASSWORD_PROBLEMS[error.problem] ?? 'link.passwordTooShort');
          }
          return linkFailed(request, reply, error);
        }
      },
    },
  ];
}

function invitationRoutes(services: DashboardServices, kit: Kit): PublicRoute[] {
  const { links } = services;
  const { db } = services.platform.database;
  const { page, linkFailed, refused, signInWith } = kit;
  function invitationForm(request: FastifyRequest, reply: FastifyReply, token: string,
    invitation: { email: string; role: string }, status = 200, problem?: MessageKey) {
    return page(request, reply, status, 'invitation.title', (t, csrf, locale) => (
      <>
        <Problem text={problem && t(problem)} />
        <p>{t('invitation.lead', { email: invitation.email,
          role: t(`role.${invitation.role as 'viewer'}`) })}</p>
        <PasswordForm t={t} csrf={csrf} email={invitation.email} submit="invitation.submit"
          action={`${INVITATION_PATH}/${token}?lang=${locale}`} />
      </>
    ));
  }

  return [
    {
      method: 'GET', path: `${INVITATION_PATH}/:token`, async handle(request, reply, params) {
        const token = params.token ?? '';
        try {
          return invitationForm(request, reply, token, await links.readInvitation(token));
        } catch (error) {
          return linkFailed(request, reply, error);
        }
      },
    },
    {
      method: 'POST', path: `${INVITATION_PATH}/:token`, async handle(request, reply, params) {
        const refusal = refused(request, reply);
        if (refusal !== null) return refusal;
        const token = params.token ?? '';
        const password = formOf(request).get('password') ?? '';
        try {
          const user = await links.acceptInvitation(token, password);
          await recordAudit(db, { accountId: user.accountId, actor: { userId: user.userId,
            email: user.email }, action: 'user.invitationAccepted',
          target: `${user.email} → ${user.role}`, address: clientAddress(request) });
          return signInWith(reply, 'invitationAccepted', localeOf(request));
        } catch (error) {
          if (error instanceof UserInputError) {
            try {
              return invitationForm(request, reply, token, await links.readInvitation(token), 400,
                PASSWORD_PROBLEMS[error.problem] ?? 'link.passwordTooShort');
            } catch (linkError) {
              return linkFailed(request, reply, linkError);
            }
          }
          return linkFailed(request, reply, error);
        }
      },
    },
  ];
}

export function linkRoutes(services: DashboardServices): PublicRoute[] {
  const kit = pageKit();
  return [...forgotRoutes(services, kit), ...resetRoutes(services, kit),
    ...invitationRoutes(services, kit)];
}
