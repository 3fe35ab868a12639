import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardDeps } from './context.ts';
import type { Dashboard } from './dashboard.tsx';

// The dashboard's place in the server: two catch-all routes under /dashboard and the parser of
// its forms, registered at start. Everything else (the pages, Preact, the sessions) is imported
// on the first request to /dashboard, so a server that is only ever called through the API
// never loads it (docs/dashboard.md § Start-up).

// The largest form a dashboard page posts.
const FORM_BYTES_MAX = 64 * 1024;

export function dashboardPlugin(deps: () => DashboardDeps) {
  let loading: Promise<Dashboard> | null = null;

  function load(): Promise<Dashboard> {
    loading ??= import('./dashboard.tsx').then((module) => module.createDashboard(deps()))
      .catch((error: unknown) => {
        // The next request tries again.
        loading = null;
        throw error;
      });
    return loading;
  }

  async function handler(request: FastifyRequest, reply: FastifyReply) {
    return (await load()).handle(request, reply);
  }

  return async function dashboard(app: FastifyInstance) {
    await app.register(async (scope) => {
      scope.addContentTypeParser('application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: FORM_BYTES_MAX },
        (_request, body, done) => done(null, new URLSearchParams(body as string)));
      const schema = { hide: true };
      scope.route({ method: ['GET', 'POST'], url: '/dashboard', schema, handler });
      scope.route({ method: ['GET', 'POST'], url: '/dashboard/*', schema, handler });
    });
  };
}
