import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { multipartOptions } from '../platform/multipart.ts';
import type { DashboardDeps } from './context.ts';
import type { Dashboard } from './dashboard.tsx';
import {
  FILE_BYTES_MAX, FILES_MAX, UPLOAD_BYTES_MAX, type UploadedFile,
} from './uploads.ts';

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
      // Forms with files: the fields and the files are read before the page runs.
      await scope.register(multipart, { ...multipartOptions({ fileSize: FILE_BYTES_MAX,
        // A field as large as a file: the invoice upload's confirmation carries its rows back.
        files: FILES_MAX, fields: 30, fieldSize: UPLOAD_BYTES_MAX, parts: 30 + FILES_MAX,
        headerPairs: 20 }),
      attachFieldsToBody: true, throwFileSizeLimit: false,
      async onFile(part) {
        const buffer = await part.toBuffer();
        const file: UploadedFile = { field: part.fieldname, buffer,
          truncated: part.file.truncated, fileName: part.filename };
        (part as unknown as { value: UploadedFile }).value = file;
      } });
      const schema = { hide: true };
      scope.route({ method: ['GET', 'POST'], url: '/dashboard', schema, handler });
      scope.route({ method: ['GET', 'POST'], url: '/dashboard/*', schema, handler });
    });
  };
}
