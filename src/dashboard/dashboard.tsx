import type { FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import { contentDisposition } from '../platform/content-disposition.ts';
import { isDatabaseUnavailable } from '../platform/db/unavailable.ts';
import { findAsset } from './assets.ts';
import { recordAudit, type AuditAction } from './audit/store.ts';
import type { DashboardDeps, DashboardRoute, DashboardServices, Outcome, PageContext } from
  './context.ts';
import { clientAddress, csrfToken, csrfTokenMatches, readSessionCookie, sameOrigin } from
  './http.ts';
import { translator } from './i18n/index.ts';
import { Layout, type NavItem } from './layout.tsx';
import { errorOutcome, StandaloneErrorPage, type ErrorKind } from './pages/errors.tsx';
import { PAGES } from './pages/index.ts';
import { linkRoutes } from './pages/links.tsx';
import { publicRoutes, signInRedirect } from './pages/sign-in.tsx';
import { SECURITY_HEADERS, sendHtml } from './render.ts';
import type { UploadedFile } from './uploads.ts';
import { roleMay, type Role } from './roles.ts';
import { createSessionsService, type SignedIn } from './sessions/service.ts';
import { createShownOnce } from './sessions/shown-once.ts';
import { createUsersService } from './users/service.ts';
import { createResetRequests } from './links/reset-requests.ts';
import { createLinksService } from './links/service.ts';
import { createTwoFactorService } from './two-factor/service.ts';
import { createUsageCache } from './usage-cache.ts';

// The dashboard behind /dashboard (docs/dashboard.md): loaded by mount.ts on the first request,
// it routes each request to a page's route, after the checks every route shares, in this order:
// a session (else the sign-in page), the same origin and the CSRF token for a POST, the role's
// permission (roles.ts). Pages then call area services through their index.ts, scoped by the
// session's account and environment.

export type Dashboard = { handle(request: FastifyRequest, reply: FastifyReply): Promise<unknown> };

type Params = Record<string, string | undefined>;
type Handler = (request: FastifyRequest, reply: FastifyReply, params: Params) => Promise<unknown>;

const ASSET_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

// A multipart form's parts as @fastify/multipart attaches them to the body.
type Part = { type: 'field'; fieldname: string; value: unknown } |
  { type: 'file'; fieldname: string; value: UploadedFile };

// The POSTed form's fields, and the files of a multipart form.
function formOf(request: FastifyRequest): { form: URLSearchParams; files: UploadedFile[] } {
  const files: UploadedFile[] = [];
  if (request.body instanceof URLSearchParams) return { form: request.body, files };
  const form = new URLSearchParams();
  if (request.isMultipart() && request.body !== null && typeof request.body === 'object') {
    for (const parts of Object.values(request.body as Record<string, Part | Part[]>)) {
      for (const part of Array.isArray(parts) ? parts : [parts]) {
        if (part.type === 'file') files.push(part.value);
        else if (typeof part.value === 'string') form.append(part.fieldname, part.value);
      }
    }
  }
  return { form, files };
}

const navItems = (context: PageContext): NavItem[] => PAGES.flatMap((page) =>
  (page.nav && roleMay(context.role, page.nav.permission) &&
    (page.nav.operator !== true || context.session.user.operator) ? [page.nav] : []));

async function contextFor(services: DashboardServices, request: FastifyRequest,
  reply: FastifyReply, session: SignedIn, params: Params): Promise<PageContext> {
  // An operator looking at an account reads it as its Viewer would (the router refuses every
  // change, below); what they do themselves is audited in their own account.
  const { viewing } = session;
  const scope = { accountId: viewing?.accountId ?? session.user.accountId,
    environment: session.environment };
  const role: Role = viewing === null ? session.user.role : 'viewer';
  const actor = { userId: session.user.userId, email: session.user.email };
  const audit = (action: AuditAction, target?: string | null, environment?: string | null) =>
    recordAudit(services.platform.database.db, { accountId: session.user.accountId, environment,
      actor, action, target, address: clientAddress(request) });
  return { request, reply, params, query: new URLSearchParams(request.url.split('?')[1] ?? ''),
    ...formOf(request), session, scope, role,
    account: viewing === null ? session.account : { name: viewing.name, plan: viewing.plan },
    locale: session.user.locale, t: translator(session.user.locale),
    csrf: csrfToken(session.token), services, now: services.platform.outside.now,
    may: (permission) => roleMay(role, permission), audit };
}

function send(context: PageContext, outcome: Outcome) {
  const { reply } = context;
  switch (outcome.kind) {
    case 'redirect':
      return reply.header('cache-control', 'no-store').redirect(outcome.to, 303);
    case 'fragment':
      return sendHtml(reply, 200, outcome.body, false);
    case 'download':
      return reply.code(200).header('cache-control', 'no-store')
        .header('content-disposition', contentDisposition('attachment', outcome.filename))
        .type(outcome.contentType).send(outcome.body);
    case 'page':
      return sendHtml(reply, outcome.status ?? 200, (
        <Layout ctx={context} title={outcome.title} nav={navItems(context)}>
          {outcome.body}
        </Layout>
      ));
  }
}

// A page's route behind the checks every route shares.
function signedInRoute(services: DashboardServices, route: DashboardRoute): Handler {
  return async (request, reply, params) => {
    const session = await services.sessions.resolve(readSessionCookie(request));
    if (session === null) return signInRedirect(request, reply);
    const context = await contextFor(services, request, reply, session, params);
    const token = context.form.get('_csrf') ?? request.headers['x-csrf-token'];
    if (request.method === 'POST' &&
      !(sameOrigin(request) && csrfTokenMatches(session.token, token))) {
      return send(context, errorOutcome(context.t, 'csrf', 403));
    }
    // An operator's read-only look at an account: every change is refused here, whatever the
    // page would show, but what acts on the operator's own session.
    if (session.viewing !== null && request.method !== 'GET' && route.whileViewing !== true) {
      return send(context, errorOutcome(context.t, 'readOnlyView', 403,
        { account: session.viewing.name }));
    }
    if (session.twoFactorRequired && !session.user.twoFactor && route.beforeSecondFactor !== true) {
      if (request.method === 'GET') {
        return send(context, { kind: 'redirect', to: '/dashboard/settings#two-factor' });
      }
      return send(context, errorOutcome(context.t, 'twoFactorRequired', 403));
    }
    if (route.operator === true && !session.user.operator) {
      return send(context, errorOutcome(context.t, 'notOperator', 403));
    }
    if (!context.may(route.permission)) {
      return send(context, errorOutcome(context.t, 'forbidden', 403,
        { role: context.t(`role.${context.role}`) }));
    }
    return send(context, await route.handle(context));
  };
}

async function serveAsset(_request: FastifyRequest, reply: FastifyReply, params: Params) {
  const asset = findAsset(params.name ?? '');
  if (asset === null) return reply.code(404).type('text/plain; charset=utf-8').send('');
  return reply.header('cache-control', `public, max-age=${ASSET_MAX_AGE_SECONDS}, immutable`)
    .type(asset.contentType).send(await asset.body());
}

// A page that failed for no reason of its own: 503 while the database cannot be reached,
// 500 otherwise, logged with the trace id the page shows.
function failed(request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const unavailable = isDatabaseUnavailable(error);
  if (!unavailable) request.log.error({ err: error }, 'dashboard request failed');
  const kind: ErrorKind = unavailable ? 'unavailable' : 'internal';
  return sendHtml(reply, unavailable ? 503 : 500,
    <StandaloneErrorPage kind={kind} values={{ traceId: request.id }} />);
}

// An address the dashboard does not have: inside the layout for a signed-in user.
async function notFound(services: DashboardServices, request: FastifyRequest,
  reply: FastifyReply) {
  const session = await services.sessions.resolve(readSessionCookie(request));
  if (session === null) return sendHtml(reply, 404, <StandaloneErrorPage kind="notFound" />);
  const context = await contextFor(services, request, reply, session, {});
  return send(context, errorOutcome(context.t, 'notFound', 404));
}

export function createDashboard(deps: DashboardDeps): Dashboard {
  const { db } = deps.platform.database;
  const links = createLinksService({ db, queueMail: deps.platform.queueMail,
    publicBaseUrl: deps.platform.config.PUBLIC_BASE_URL, now: deps.platform.outside.now });
  const services: DashboardServices = {
    ...deps,
    users: createUsersService({ db, accounts: deps.platform.accounts }),
    sessions: createSessionsService({ db, now: deps.platform.outside.now }),
    links,
    shownOnce: createShownOnce({ db, sealing: deps.sealing }),
    resetRequests: createResetRequests({
      // A reset link mailed to the email's user, if it has one, and the request audited.
      async work(email, address) {
        const user = await links.requestReset(email);
        if (user === null) return;
        await recordAudit(db, { accountId: user.accountId, actor: null,
          action: 'user.passwordResetRequested', target: user.email, address });
      },
      log: (error, message) => deps.platform.log.error({ err: error }, message),
    }),
    twoFactor: createTwoFactorService({ db, sealing: deps.sealing,
      now: deps.platform.outside.now }),
    usageCache: createUsageCache(deps.platform.points),
  };
  const router = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: true, caseSensitive: true });
  const add = (method: 'GET' | 'POST', path: string, handle: Handler) =>
    router.on(method, path, () => {}, { handle });
  for (const page of PAGES) {
    for (const route of page.routes) {
      add(route.method, `/dashboard${route.path === '/' ? '' : route.path}`,
        signedInRoute(services, route));
    }
  }
  for (const route of [...publicRoutes(services), ...linkRoutes(services)]) {
    add(route.method, route.path, route.handle);
  }
  add('GET', '/dashboard/assets/:name', serveAsset);

  return {
    async handle(request, reply) {
      reply.headers(SECURITY_HEADERS);
      const method = request.method === 'HEAD' ? 'GET' : request.method;
      const found = router.find(method as 'GET', request.url.split('?')[0] ?? '');
      const handle = (found?.store as { handle?: Handler } | undefined)?.handle;
      try {
        if (found === null || handle === undefined) return await notFound(services, request, reply);
        return await handle(request, reply, found.params);
      } catch (error) {
        return failed(request, reply, error);
      }
    },
  };
}
