import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from './errors.ts';
import { sendError } from './error-handler.ts';

// While the server shuts down it finishes requests in flight and stops listening; a request that
// still arrives on an open keep-alive connection gets 503 SERVICE_UNAVAILABLE in our error shape
// (Fastify's own 503 has neither our body nor a Trace-Id), and the connection is closed so the
// client reconnects to another process.
async function shutdownPlugin(app: FastifyInstance) {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    reply.header('Connection', 'close').header('Retry-After', '1');
    const message = 'The server is shutting down. Retry the request.';
    return sendError(request, reply, new ApiError('SERVICE_UNAVAILABLE', message));
  });
}

export const shutdown = fp(shutdownPlugin, { name: 'etax-shutdown' });
