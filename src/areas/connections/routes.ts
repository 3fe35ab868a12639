import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@fastify/type-provider-typebox';
import {
  BODY_ERRORS,
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../platform/error-responses.ts';
import { requestScope } from '../../platform/scope.ts';
import type { ConnectionLinks } from './links.ts';
import {
  ConnectionIdParams,
  ConnectionList,
  ConnectionListQuery,
  ConnectionUrl,
  ConnectionUrlQuery,
} from './schemas.ts';
import type { ConnectionsService } from './service.ts';

// Connections under /v1 (docs/connections.md): list, disconnect, and the one-time link of the
// hosted page where they are made. Free on every plan.

const TAGS = ['Connections'];

type Options = { connections: ConnectionsService; links: ConnectionLinks };

export const registerConnectionRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app, { connections, links }) => {
  app.get('/connections', {
    config: { operation: 'connections.list' },
    schema: {
      operationId: 'listConnections', tags: TAGS,
      summary: 'List connections',
      description: 'The connections of the key\'s account and environment with their state ' +
        'and last sync, oldest first, a page at a time. Credentials are never returned.',
      querystring: ConnectionListQuery,
      response: { 200: ConnectionList,
        ...errorResponses(...PLATFORM_ERRORS, 'INVALID_REQUEST', INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => connections.listPage(requestScope(request), request.query));

  app.get('/connections/url', {
    config: { operation: 'connections.url' },
    schema: {
      operationId: 'getConnectionUrl', tags: TAGS,
      summary: 'Get a one-time connection page URL',
      description: 'A page served by etax where the business owner types the credentials of ' +
        'the tax portal (`kind=HOMETAX`) or of a bank account (`kind=BANK_ACCOUNT`) and sees at ' +
        'once whether the login worked. Valid 10 minutes; a connection uses it up, a failed ' +
        'login can be tried again on it.',
      querystring: ConnectionUrlQuery,
      response: { 200: ConnectionUrl,
        ...errorResponses(...PLATFORM_ERRORS, 'INVALID_REQUEST') },
    },
  }, async (request) => links.createLink(requestScope(request), request.query.kind));

  app.delete('/connections/:connectionId', {
    config: { operation: 'connections.delete' },
    schema: {
      operationId: 'deleteConnection', tags: TAGS,
      summary: 'Disconnect',
      description: 'Deletes the connection and its sealed credentials. What was collected ' +
        'through it stays.',
      params: ConnectionIdParams,
      response: { 204: Type.Null({ description: 'Disconnected.' }),
        ...errorResponses(...PLATFORM_ERRORS, ...BODY_ERRORS, 'NOT_FOUND') },
    },
  }, async (request, reply) => {
    await connections.disconnect(requestScope(request), request.params.connectionId);
    return reply.code(204).send(null);
  });
};
