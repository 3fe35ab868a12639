import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardDeps } from './context.ts';
import type { Dashboard } from './dashboard.tsx';

// The dashboard's place in the server: two catch-all routes under /dashboard and the parser of
// its forms, registered at start. Everything else (the pages, Preact, the sessions) is imported
// on the first request to /dashboard, so a server that is only ever called through the API
// never loads it (docs/dashboard.md § Start-up).

// The largest form a dashboard page posts.
const FORM_BYTES_MAX = 64 * 1024;
// The largest file form: a tax invoice's attachments (5 files of 5 MiB) and the form's fields.
// Only the pages that take files are sent one; any other page answers it 415 unread.
const FILE_FORM_BYTES_MAX = 5 * 5 * 1024 * 1024 + FORM_BYTES_MAX;
const FILE_FORM_PATH = /^\/dashboard\/tax-invoices\/[A-Za-z0-9_-]{1,100}\/attachments$/u;

// A posted multipart form: its fields, and its files in the order sent.
export type FileForm = { fields: URLSearchParams;
  files: Array<{ field: string; fileName: string; content: Buffer }> };

// The form's parts by the platform's own multipart reader (the Fetch API's), which decodes
// UTF-8 file names; a form it cannot read is answered 400 by Fastify.
async function readFileForm(contentType: string, body: Buffer): Promise<FileForm> {
  const parsed = await new Response(body as unknown as BodyInit,
    { headers: { 'content-type': contentType } })
    .formData();
  const form: FileForm = { fields: new URLSearchParams(), files: [] };
  for (const [field, value] of parsed.entries()) {
    if (typeof value === 'string') form.fields.append(field, value);
    else form.files.push({ field, fileName: value.name,
      content: Buffer.from(await value.arrayBuffer()) });
  }
  return form;
}

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
      scope.addContentTypeParser('multipart/form-data',
        { parseAs: 'buffer', bodyLimit: FILE_FORM_BYTES_MAX },
        (request, body, done) => {
          if (request.method !== 'POST' || !FILE_FORM_PATH.test(request.url)) {
            done(Object.assign(new Error('This page takes no files.'), { statusCode: 415 }));
            return;
          }
          readFileForm(request.headers['content-type'] ?? '', body as Buffer)
            .then((form) => done(null, form),
              () => done(Object.assign(new Error('The form could not be read.'),
                { statusCode: 400 })));
        });
      const schema = { hide: true };
      scope.route({ method: ['GET', 'POST'], url: '/dashboard', schema, handler });
      scope.route({ method: ['GET', 'POST'], url: '/dashboard/*', schema, handler });
    });
  };
}
