import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { runInRequest } from './request-context.ts';
import { traceIdOfTraceparent } from './traceparent.ts';

export const TRACE_ID_HEADER = 'Trace-Id';

// A trace id is a random (version 4) UUID written as 32 hex digits: the W3C trace-id size, so it
// can be carried into tracing systems unchanged. randomUUID draws from a buffered pool of
// randomness, four times cheaper than randomBytes per call, and every request pays for one.
// Incoming headers are never trusted as our trace id.
export function newTraceId(): string {
  return randomUUID().replaceAll('-', '');
}

// Sets the Trace-Id header first thing, so every response, including 401 and 404, carries it.
// A caller's W3C traceparent is logged beside it (callerTraceId) on every line of the request.
async function tracePlugin(app: FastifyInstance) {
  app.addHook('onRequest', async (request, reply) => {
    reply.header(TRACE_ID_HEADER, request.id);
    const callerTraceId = traceIdOfTraceparent(request.headers.traceparent);
    if (callerTraceId !== null) request.log = request.log.child({ callerTraceId });
  });
  // The handler runs inside the request's context (request-context.ts). Entered in the last
  // hook before it rather than at onRequest: a body is read in the socket's own async context,
  // which would lose a context entered earlier. The handler is called from `done`, so it and
  // everything it awaits inherit the context.
  app.addHook('preHandler', (request, _reply, done) => {
    runInRequest(request.id, done);
  });
}

export const trace = fp(tracePlugin, { name: 'etax-trace' });
