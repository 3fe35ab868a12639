import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitPolicy } from '../../platform/operations.ts';
import type { DashboardServices } from '../context.ts';
import {
  clientAddress,
  csrfToken,
  csrfTokenMatches,
  readSessionCookie,
  readSignInCookie,
  sameOrigin,
  setSessionCookie,
  signInCookie,
} from '../http.ts';
import { isLocale, translator, type Locale } from '../i18n/index.ts';
import { PlainLayout } from '../layout.tsx';
import { recordAudit } from '../audit/store.ts';
import { sendHtml } from '../render.ts';
import { safeReturnPath } from '../return-path.ts';
import type { SignedIn } from '../sessions/service.ts';
import { StandaloneErrorPage } from './errors.tsx';

// Signing in (docs/dashboard.md § Signing in): the only page without a session. Attempts are
// counted per address and per email, known or not, with the platform's rate limiter: past
// either limit every attempt is refused with the same words until the window ends, so the
// answer never tells whether an email has a user. A sign-in always starts a new session.

type SignInCounter = { name: string; policy: RateLimitPolicy };
const SIGN_IN_PER_ADDRESS: SignInCounter = { name: 'dashboard.signIn.address',
  policy: { limit: 30, windowSeconds: 15 * 60 } };
const SIGN_IN_PER_EMAIL: SignInCounter = { name: 'dashboard.signIn.email',
  policy: { limit: 10, windowSeconds: 15 * 60 } };
// Longer is not an email or a password anyone types; it is refused unhashed.
const FIELD_LENGTH_MAX = 300;

type PublicRoute = { method: 'GET' | 'POST'; path: string;
  handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown> };

const SIGN_IN_PATH = '/dashboard/sign-in';
const CODE_PATH = '/dashboard/sign-in/code';
// Codes given to one waiting sign-in's user: six digits are a million guesses.
const SIGN_IN_CODE_PER_USER: SignInCounter = { name: 'dashboard.signIn.code',
  policy: { limit: 10, windowSeconds: 15 * 60 } };
function nextPath(value: string | null | undefined): string {
  const path = safeReturnPath(value);
  return path.startsWith(SIGN_IN_PATH) ? '/dashboard' : path;
}

// A page that needs a session, asked for without one: GETs come back after the sign-in.
export function signInRedirect(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0] ?? '';
  const next = request.method === 'GET' && path !== '/dashboard'
    ? `?next=${encodeURIComponent(path)}` : '';
  return reply.code(303).header('cache-control', 'no-store').redirect(`${SIGN_IN_PATH}${next}`,
    303);
}

const SIGN_IN_NOTICES = ['signedOut', 'expired', 'passwordReset', 'invitationAccepted'] as const;

function SignInPage(props: { locale: Locale; csrf: string; next: string; email?: string;
  problem?: string; notice?: string }) {
  const t = translator(props.locale);
  const other = props.locale === 'ko' ? 'en' : 'ko';
  return (
    <PlainLayout locale={props.locale} title={t('signIn.title')} appName={t('app.name')}>
      {props.notice && <div class="notice success" role="status">{props.notice}</div>}
      {props.problem && <div class="notice error" role="alert">{props.problem}</div>}
      <p>{t('signIn.lead')}</p>
      <form method="post" action={`${SIGN_IN_PATH}?lang=${props.locale}`} class="stack">
        <input type="hidden" name="_csrf" value={props.csrf} />
        <input type="hidden" name="next" value={props.next} />
        <label>{t('signIn.email')}
          <input type="email" name="email" autocomplete="username" required
            maxLength={254} value={props.email ?? ''} />
        </label>
        <label>{t('signIn.password')}
          <input type="password" name="password" autocomplete="current-password" required
            maxLength={200} />
        </label>
        <div class="actions">
          <button type="submit" class="primary">{t('signIn.submit')}</button>
        </div>
      </form>
      <p>
        <a href={`/dashboard/forgot-password?lang=${props.locale}`}>{t('signIn.forgot')}</a>
      </p>
      <p>
        <a href={`${SIGN_IN_PATH}?lang=${other}`} lang={other}>{t('signIn.otherLanguage')}</a>
      </p>
    </PlainLayout>
  );
}

function localeOf(request: FastifyRequest): Locale {
  const lang = new URLSearchParams(request.url.split('?')[1] ?? '').get('lang');
  return isLocale(lang) ? lang : 'ko';
}

export function publicRoutes(services: DashboardServices): PublicRoute[] {
  const { users, sessions, rateLimiter } = services;
  const { db } = services.platform.database;

  function showForm(request: FastifyRequest, reply: FastifyReply, status: number,
    extra: { email?: string; problem?: string; next?: string }) {
    const locale = localeOf(request);
    const query = new URLSearchParams(request.url.split('?')[1] ?? '');
    const notice = SIGN_IN_NOTICES.find((known) => known === query.get('notice'));
    const csrf = csrfToken(signInCookie(request, reply));
    return sendHtml(reply, status, (
      <SignInPage locale={locale} csrf={csrf} next={extra.next ?? nextPath(query.get('next'))}
        email={extra.email} problem={extra.problem}
        notice={notice === undefined ? undefined : translator(locale)(`signIn.${notice}`)} />
    ));
  }

  async function signIn(request: FastifyRequest, reply: FastifyReply) {
    const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
    if (!sameOrigin(request) || !csrfTokenMatches(readSignInCookie(request), form.get('_csrf'))) {
      return sendHtml(reply, 403, <StandaloneErrorPage kind="csrf" />);
    }
    const t = translator(localeOf(request));
    const email = (form.get('email') ?? '').trim().slice(0, FIELD_LENGTH_MAX);
    const password = form.get('password') ?? '';
    const next = nextPath(form.get('next'));
    const address = clientAddress(request);
    for (const [counter, key] of [[SIGN_IN_PER_ADDRESS, address],
      [SIGN_IN_PER_EMAIL, email.toLowerCase()]] as const) {
      const retryAfterSeconds = await rateLimiter.attempt(counter.name, counter.policy, key);
      if (retryAfterSeconds !== null) {
        reply.header('retry-after', String(retryAfterSeconds));
        return showForm(request, reply, 429, { email, next, problem: t('signIn.limited',
          { minutes: Math.ceil(retryAfterSeconds / 60) }) });
      }
    }
    const user = password.length > FIELD_LENGTH_MAX ? null
      : await users.authenticate(email, password);
    if (user === null) {
      return showForm(request, reply, 401, { email, next, problem: t('signIn.failed') });
    }
    if (user.twoFactor) {
      // The password was right; a session that opens nothing but the code's page waits for the
      // second factor, and the code's answer starts the real one.
      const pending = await sessions.start({ userId: user.userId, address,
        userAgent: request.headers['user-agent'], secondFactorPending: true });
      setSessionCookie(request, reply, pending.token);
      return reply.code(303).header('cache-control', 'no-store').redirect(
        `${CODE_PATH}?lang=${localeOf(request)}&next=${encodeURIComponent(next)}`, 303);
    }
    const started = await sessions.start({ userId: user.userId, address,
      userAgent: request.headers['user-agent'] });
    await recordAudit(db, { accountId: user.accountId, actor: { userId: user.userId,
      email: user.email }, action: 'user.signedIn', address });
    setSessionCookie(request, reply, started.token);
    return reply.code(303).header('cache-control', 'no-store').redirect(next, 303);
  }

  return [
    ...codeRoutes(services),
    { method: 'GET', path: SIGN_IN_PATH, async handle(request, reply) {
      // Already signed in: nothing to do here.
      if (await sessions.resolve(readSessionCookie(request)) !== null) {
        return reply.code(303).redirect('/dashboard', 303);
      }
      return showForm(request, reply, 200, {});
    } },
    { method: 'POST', path: SIGN_IN_PATH, handle: signIn },
  ];
}

function codeForm(request: FastifyRequest, reply: FastifyReply, session: SignedIn,
  status: number, next: string, problem?: string) {
  const locale = localeOf(request);
  const t = translator(locale);
  return sendHtml(reply, status, (
    <PlainLayout locale={locale} title={t('signIn.code.title')} appName={t('app.name')}>
      {problem && <div class="notice error" role="alert">{problem}</div>}
      <p>{t('signIn.code.lead')}</p>
      <form method="post" action={`${CODE_PATH}?lang=${locale}`} class="stack">
        <input type="hidden" name="_csrf" value={csrfToken(session.token)} />
        <input type="hidden" name="next" value={next} />
        <label>{t('signIn.code.label')}
          <input type="text" name="code" autocomplete="one-time-code" required maxLength={40}
            autofocus />
        </label>
        <div class="actions">
          <button type="submit" class="primary">{t('signIn.code.submit')}</button>
        </div>
      </form>
    </PlainLayout>
  ));
}


// The second step of a sign-in whose user has a second factor: the code's page, behind the
// session that gave the right password and opens nothing else.
function codeRoutes(services: DashboardServices): PublicRoute[] {
  const { sessions, rateLimiter } = services;
  const { db } = services.platform.database;

  const expired = (reply: FastifyReply) => reply.code(303).header('cache-control', 'no-store')
    .redirect(`${SIGN_IN_PATH}?notice=expired`, 303);

  async function checkCode(request: FastifyRequest, reply: FastifyReply) {
    const pending = await sessions.resolvePending(readSessionCookie(request));
    if (pending === null) return expired(reply);
    const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
    if (!sameOrigin(request) || !csrfTokenMatches(pending.token, form.get('_csrf'))) {
      return sendHtml(reply, 403, <StandaloneErrorPage kind="csrf" />);
    }
    const t = translator(localeOf(request));
    const next = nextPath(form.get('next'));
    const retryAfterSeconds = await rateLimiter.attempt(SIGN_IN_CODE_PER_USER.name,
      SIGN_IN_CODE_PER_USER.policy, pending.user.userId);
    if (retryAfterSeconds !== null) {
      // Past the limit the waiting sign-in ends: the next try starts from the password.
      await sessions.end(pending.token);
      reply.header('retry-after', String(retryAfterSeconds));
      return sendHtml(reply, 429, (
        <PlainLayout locale={localeOf(request)} title={t('signIn.code.title')}
          appName={t('app.name')}>
          <div class="notice error" role="alert">
            {t('signIn.code.limited', { minutes: Math.ceil(retryAfterSeconds / 60) })}
          </div>
          <p><a href={SIGN_IN_PATH}>{t('signIn.title')}</a></p>
        </PlainLayout>
      ));
    }
    const { user } = pending;
    const verified = await services.twoFactor.verify(user.userId, user.email,
      (form.get('code') ?? '').slice(0, 40));
    if (verified === null) {
      return codeForm(request, reply, pending, 401, next, t('signIn.code.failed'));
    }
    await sessions.end(pending.token);
    const address = clientAddress(request);
    const started = await sessions.start({ userId: user.userId, address,
      userAgent: request.headers['user-agent'] });
    const actor = { userId: user.userId, email: user.email };
    if (verified === 'recoveryCode') {
      await recordAudit(db, { accountId: user.accountId, actor, action: 'user.recoveryCodeUsed',
        address });
    }
    await recordAudit(db, { accountId: user.accountId, actor, action: 'user.signedIn', address });
    setSessionCookie(request, reply, started.token);
    return reply.code(303).header('cache-control', 'no-store').redirect(next, 303);
  }

  return [
    { method: 'GET', path: CODE_PATH, async handle(request, reply) {
      const pending = await sessions.resolvePending(readSessionCookie(request));
      if (pending === null) return expired(reply);
      const query = new URLSearchParams(request.url.split('?')[1] ?? '');
      return codeForm(request, reply, pending, 200, nextPath(query.get('next')));
    } },
    { method: 'POST', path: CODE_PATH, handle: checkCode },
  ];
}
