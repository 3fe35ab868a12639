import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

// Operations without a body (docs/errors.md § Operations without a body) answer what clients
// send when they send nothing: no body, a zero-length one even with
// `Content-Type: application/json`, or `{}`. Anything else is 400, so a client that sends data
// (a reason, say) learns it was not read.

// Scoped to the plugin it is called in: elsewhere a zero-length JSON body stays 400.
export function acceptEmptyJsonBodies(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
}

// A preValidation hook for an operation that takes no body.
export async function refuseBody(request: FastifyRequest) {
  const { body } = request;
  if (body === undefined) return;
  const empty = typeof body === 'object' && body !== null && !Array.isArray(body) &&
    Object.keys(body).length === 0;
  if (!empty) {
    throw new ApiError('INVALID_REQUEST', 'This operation takes no body; send none.');
  }
}
