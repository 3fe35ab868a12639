import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from './errors.ts';

// Operations without a body, or whose body may be left out (docs/errors.md § Operations without
// a body), answer what clients send when they send nothing: no body, or a zero-length one even
// with `Content-Type: application/json`. A route says which it is with `config.body`; this
// module installs the hook that reads the request accordingly, and the OpenAPI document
// declares the body from the same word (src/platform/openapi-requests.ts).

declare module 'fastify' {
  interface FastifyContextConfig {
    // 'none': the operation takes no body; no body, a zero-length one or `{}` is accepted and
    // anything else is 400, so a client that sends data (a reason, say) learns it was not read.
    // 'optional': the body schema's fields are all optional and the body may be left out; it
    // then reads as `{}`. Without it, an operation with a body schema requires a body.
    body?: BodyRule;
  }
}

export type BodyRule = 'none' | 'optional';

// Scoped to the plugin it is called in: elsewhere a zero-length JSON body stays 400. Every plugin
// with a route of `config.body` calls it.
export function acceptEmptyJsonBodies(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, body as string, done);
  });
}

async function refuseBody(request: FastifyRequest) {
  const { body } = request;
  if (body === undefined) return;
  const empty = typeof body === 'object' && body !== null && !Array.isArray(body) &&
    Object.keys(body).length === 0;
  if (!empty) {
    throw new ApiError('INVALID_REQUEST', 'This operation takes no body; send none.');
  }
}

async function defaultToEmptyBody(request: FastifyRequest) {
  request.body ??= {};
}

const HOOKS = { none: refuseBody, optional: defaultToEmptyBody };

// Runs before validation, so the schema sees the body as the operation reads it. A rule that
// contradicts the route's schema stops the boot.
export function applyBodyRule(route: RouteOptions): void {
  const rule = route.config?.body;
  if (rule === undefined) return;
  const name = `${String(route.method)} ${route.url}`;
  const hasSchema = route.schema?.body !== undefined;
  if (rule === 'none' && hasSchema) {
    throw new Error(`${name}: config.body 'none' with a body schema`);
  }
  if (rule === 'optional' && !hasSchema) {
    throw new Error(`${name}: config.body 'optional' without a body schema`);
  }
  route.preValidation = [HOOKS[rule], ...[route.preValidation ?? []].flat()];
}

async function bodyRulesPlugin(app: FastifyInstance) {
  app.addHook('onRoute', applyBodyRule);
}

export const bodyRules = fp(bodyRulesPlugin, { name: 'etax-body-rules' });
