import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withHasMore } from '../../platform/paging.ts';
import { acceptEmptyJsonBodies } from '../../platform/bodyless.ts';
import { requestScope } from '../../platform/scope.ts';
import {
  bodyErrors,
  inputErrors,
  operationErrors,
  INPUT_CHECKED_AFTER_COUNTING,
} from '../../platform/error-responses.ts';
import {
  CreateEndpointBody,
  DeliveryListQuery,
  EndpointParams,
  EventListQuery,
  EventParams,
  ResendBody,
  RotateSecretBody,
  UpdateEndpointBody,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookEvent,
  WebhookEventPage,
} from './schemas.ts';
import type { WebhooksService } from './service.ts';

// The webhook management API (docs/webhooks.md). Endpoints, events and deliveries belong to the
// key's account and environment; an id from elsewhere is 404. No operation charges points.

const TAGS = ['Webhooks'];
// The endpoint id as a regular-expression parameter, so `:rotateSecret` can follow it. The
// expression is loose on purpose: any other segment reaches the route and its schema answers
// 400 naming the parameter, rather than a bare 404 for a route that seems not to exist.
const ENDPOINT_ID_PARAMETER = ':endpointId(^[^:/]+)';

type Options = { webhooks: WebhooksService };

export const registerWebhookRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { webhooks },
) => {
  await app.register(registerEndpointRoutes, { webhooks });
  await app.register(registerEndpointChangeRoutes, { webhooks });
  await app.register(registerDeliveryAndEventRoutes, { webhooks });
  await app.register(registerTestEventRoute, { webhooks });
};

const registerEndpointRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { webhooks }) => {
  app.post('/webhookEndpoints', {
    config: { operation: 'webhooks.endpoints.create' },
    schema: {
      operationId: 'createWebhookEndpoint', tags: TAGS,
      summary: 'Create a webhook endpoint',
      description: 'Creates an endpoint for the key\'s account and environment and returns it ' +
        'with its signing secret, shown only here. The URL is checked: see docs/webhooks.md ' +
        '§ Allowed URLs. At most 20 endpoints per account and environment. Free.',
      body: CreateEndpointBody,
      response: {
        201: WebhookEndpointWithSecret,
        ...bodyErrors('WEBHOOK_URL_NOT_ALLOWED', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'),
      },
    },
  }, async (request, reply) => {
    const endpoint = await webhooks.createEndpoint({ caller: requestScope(request),
      ...request.body });
    return reply.code(201).send(endpoint);
  });

  app.get('/webhookEndpoints', {
    config: { operation: 'webhooks.endpoints.list' },
    schema: {
      operationId: 'listWebhookEndpoints', tags: TAGS,
      summary: 'List webhook endpoints',
      description: 'Lists the endpoints of the key\'s account and environment, oldest first. Free.',
      response: { 200: WebhookEndpointList, ...operationErrors() },
    },
  }, async (request) => ({ ...await webhooks.listEndpoints({ caller: requestScope(request) }),
    nextCursor: null, hasMore: false }));

  app.get(`/webhookEndpoints/${ENDPOINT_ID_PARAMETER}`, {
    config: { operation: 'webhooks.endpoints.retrieve' },
    schema: {
      operationId: 'retrieveWebhookEndpoint', tags: TAGS,
      summary: 'Retrieve a webhook endpoint',
      description: 'Retrieves one endpoint; its secret is never shown again. Free.',
      params: EndpointParams,
      response: { 200: WebhookEndpoint, ...inputErrors('NOT_FOUND') },
    },
  }, async (request) => webhooks.getEndpoint({
    caller: requestScope(request), endpointId: request.params.endpointId,
  }));
};

const registerEndpointChangeRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { webhooks },
) => {
  app.patch(`/webhookEndpoints/${ENDPOINT_ID_PARAMETER}`, {
    config: { operation: 'webhooks.endpoints.update' },
    schema: {
      operationId: 'updateWebhookEndpoint', tags: TAGS,
      summary: 'Update a webhook endpoint',
      description: 'Changes the URL (checked again), the event types, the description, or ' +
        'enables or disables the endpoint. Fields left out keep their values. Free.',
      params: EndpointParams,
      body: UpdateEndpointBody,
      response: { 200: WebhookEndpoint,
        ...bodyErrors('WEBHOOK_URL_NOT_ALLOWED', 'NOT_FOUND') },
    },
  }, async (request) => webhooks.updateEndpoint({
    caller: requestScope(request), endpointId: request.params.endpointId, changes: request.body,
  }));

  app.delete(`/webhookEndpoints/${ENDPOINT_ID_PARAMETER}`, {
    config: { operation: 'webhooks.endpoints.delete' },
    schema: {
      operationId: 'deleteWebhookEndpoint', tags: TAGS,
      summary: 'Delete a webhook endpoint',
      description: 'Deletes the endpoint with its delivery log; pending retries are dropped. ' +
        'Events stay listed. Free.',
      params: EndpointParams,
      response: { 204: Type.Null({ description: 'Deleted.' }), ...bodyErrors('NOT_FOUND') },
    },
  }, async (request, reply) => {
    await webhooks.deleteEndpoint({
      caller: requestScope(request), endpointId: request.params.endpointId,
    });
    return reply.code(204).send(null);
  });

  app.post(`/webhookEndpoints/${ENDPOINT_ID_PARAMETER}::rotateSecret`, {
    config: { operation: 'webhooks.endpoints.rotateSecret' },
    schema: {
      operationId: 'rotateWebhookEndpointSecret', tags: TAGS,
      summary: 'Rotate a webhook endpoint\'s signing secret',
      description: 'Makes a new signing secret, shown only in this response. For ' +
        '`overlapSeconds` (default a day) the previous secret keeps signing too, so every ' +
        'delivery carries one `v1=` signature per secret and receivers can switch without ' +
        'missing one. Rotating again during an overlap retires the oldest secret. Free.',
      params: EndpointParams,
      body: RotateSecretBody,
      response: { 200: WebhookEndpointWithSecret, ...bodyErrors('NOT_FOUND') },
    },
  }, async (request) => webhooks.rotateSecret({
    caller: requestScope(request),
    endpointId: request.params.endpointId,
    overlapSeconds: request.body.overlapSeconds,
  }));
};

const registerDeliveryAndEventRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { webhooks },
) => {
  app.get(`/webhookEndpoints/${ENDPOINT_ID_PARAMETER}/deliveries`, {
    config: { operation: 'webhooks.deliveries.list' },
    schema: {
      operationId: 'listWebhookDeliveries', tags: TAGS,
      summary: 'List an endpoint\'s deliveries',
      description: 'The delivery log of one endpoint, newest first, each with its status and ' +
        'every attempt (response status, duration, error, times). Paged with an opaque ' +
        'cursor. Free.',
      params: EndpointParams,
      querystring: DeliveryListQuery,
      response: { 200: WebhookDeliveryPage,
        ...inputErrors(INPUT_CHECKED_AFTER_COUNTING, 'NOT_FOUND') },
    },
  }, async (request) => withHasMore(await webhooks.listDeliveries({
    caller: requestScope(request), endpointId: request.params.endpointId, ...request.query,
  })));

  app.post(`/webhookEndpoints/${ENDPOINT_ID_PARAMETER}/deliveries::resend`, {
    config: { operation: 'webhooks.deliveries.resend' },
    schema: {
      operationId: 'resendWebhookEvent', tags: TAGS,
      summary: 'Send an event to an endpoint again',
      description: 'Queues a new delivery of one event of the same account and environment to ' +
        'this endpoint, whether or not the endpoint subscribes to its type, with its own ' +
        'attempts and retries. The body is the same as the first time; the signature is new. ' +
        'A disabled endpoint is 409 WEBHOOK_ENDPOINT_DISABLED. Free.',
      params: EndpointParams,
      body: ResendBody,
      response: {
        202: WebhookDelivery,
        ...bodyErrors('NOT_FOUND', 'WEBHOOK_ENDPOINT_DISABLED'),
      },
    },
  }, async (request, reply) => {
    const delivery = await webhooks.resendEvent({
      caller: requestScope(request), endpointId: request.params.endpointId, ...request.body,
    });
    return reply.code(202).send(delivery);
  });

  app.get('/webhookEvents', {
    config: { operation: 'webhooks.events.list' },
    schema: {
      operationId: 'listWebhookEvents', tags: TAGS,
      summary: 'List events',
      description: 'The events of the key\'s account and environment, newest first, optionally ' +
        'of one type. Paged with an opaque cursor. Free.',
      querystring: EventListQuery,
      response: { 200: WebhookEventPage, ...inputErrors(INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => withHasMore(await webhooks.listEvents({ caller: requestScope(request),
    ...request.query })));

  app.get('/webhookEvents/:eventId', {
    config: { operation: 'webhooks.events.retrieve' },
    schema: {
      operationId: 'retrieveWebhookEvent', tags: TAGS,
      summary: 'Retrieve an event',
      description: 'One event, exactly as it is delivered. Free.',
      params: EventParams,
      response: { 200: WebhookEvent, ...inputErrors('NOT_FOUND') },
    },
  }, async (request) => webhooks.getEvent({
    caller: requestScope(request), eventId: request.params.eventId,
  }));
};

// The test event takes no body; its own plugin keeps the empty-body parser away from the other
// routes.
const registerTestEventRoute: FastifyPluginAsyncTypebox<Options> = async (app, { webhooks }) => {
  acceptEmptyJsonBodies(app);

  app.post(`/webhookEndpoints/${ENDPOINT_ID_PARAMETER}::test`, {
    config: { operation: 'webhooks.endpoints.test', body: 'none' },
    schema: {
      operationId: 'sendWebhookTestEvent', tags: TAGS,
      summary: 'Send a test event to an endpoint',
      description: 'Records a `WEBHOOK_TEST` event and queues one delivery of it to this ' +
        'endpoint only, signed like every delivery, so a receiver can be checked without ' +
        'issuing anything. The delivery is attempted once, without retries; its outcome is in ' +
        'the endpoint\'s delivery log. Test events are not listed by GET /v1/webhookEvents but ' +
        'can be read by their id. A disabled endpoint is 409 WEBHOOK_ENDPOINT_DISABLED. Body: ' +
        'none (an empty body or `{}` is ignored, anything else is 400). Free.',
      params: EndpointParams,
      response: {
        202: WebhookDelivery,
        ...bodyErrors('INVALID_REQUEST', 'NOT_FOUND', 'WEBHOOK_ENDPOINT_DISABLED'),
      },
    },
  }, async (request, reply) => {
    const delivery = await webhooks.sendTestEvent({
      caller: requestScope(request), endpointId: request.params.endpointId,
    });
    return reply.code(202).send(delivery);
  });
};
