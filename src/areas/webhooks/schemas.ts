import { Type, type Static } from '@fastify/type-provider-typebox';
import { HasMore, pageQueryFields } from '../../platform/paging.ts';
import assert from 'node:assert/strict';
import {
  EVENT_CATALOGUE,
  EVENT_TYPES,
  SUBSCRIBABLE_EVENT_TYPES,
  type EventType,
} from '../../platform/event-catalogue.ts';
import { DELIVERY_ATTEMPTS_MAX } from './retry-schedule.ts';
import { ENDPOINTS_PER_SCOPE_MAX } from './store.ts';
import { ROTATION_OVERLAP_SECONDS_MAX } from './service.ts';

// Request and response schemas of the webhook management API (docs/webhooks.md).

// Browsers and most servers refuse longer URLs; a receiver URL needs far less.
const URL_LENGTH_MAX = 2_048;
const DESCRIPTION_LENGTH_MAX = 500;
// Room for our ids (prefix, underscore, 22 base64url characters) with margin.
const ID_LENGTH_MAX = 64;
// A day: long enough to deploy a new secret to every receiver without losing a delivery.
const ROTATION_OVERLAP_SECONDS_DEFAULT = 86_400;
// Control characters have no place in a URL or a description, and NUL cannot be stored.
const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001f\\u007f]*$';
const ID_PATTERN = '^[A-Za-z0-9_-]+$';

const timestamp = (description: string) => Type.String({ format: 'date-time', description });
const nullableTimestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

const EventTypeName = Type.Enum(EVENT_TYPES, {
  description: 'An event type of docs/webhooks.md § Event types.',
});
// The types an endpoint subscribes to and the event list shows: all but WEBHOOK_TEST, which is
// sent only on request (POST /v1/webhookEndpoints/{endpointId}:test).
const SubscribableEventTypeName = Type.Enum(SUBSCRIBABLE_EVENT_TYPES, {
  description: 'An event type of docs/webhooks.md § Event types other than WEBHOOK_TEST.',
});

const Id = (description: string) =>
  Type.String({ minLength: 1, maxLength: ID_LENGTH_MAX, pattern: ID_PATTERN, description });

export const EndpointParams = Type.Object(
  { endpointId: Id('The webhook endpoint id, e.g. `whe_…`.') },
  { additionalProperties: false },
);
export const EventParams = Type.Object(
  { eventId: Id('The event id, e.g. `evt_…`.') },
  { additionalProperties: false },
);

const Url = Type.String({
  minLength: 1,
  maxLength: URL_LENGTH_MAX,
  pattern: NO_CONTROL_CHARACTERS,
  description: 'Absolute URL the events are POSTed to, at a public address: loopback and ' +
    'private addresses only where the server sets WEBHOOK_PRIVATE_TARGETS_ALLOWED=true. ' +
    'Live keys: https. Test keys: http or https.',
  examples: ['https://example.com/etax/webhooks'],
});
const Events = Type.Array(SubscribableEventTypeName, {
  minItems: 1,
  maxItems: SUBSCRIBABLE_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The event types sent to this endpoint.',
});
const Description = Type.String({
  maxLength: DESCRIPTION_LENGTH_MAX,
  pattern: NO_CONTROL_CHARACTERS,
  description: `A note for people, up to ${DESCRIPTION_LENGTH_MAX} characters.`,
});

export const CreateEndpointBody = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  {
    title: 'CreateWebhookEndpointBody',
    additionalProperties: false,
    examples: [{
      url: 'https://example.com/etax/webhooks',
      events: ['TAX_INVOICE_ISSUANCE_SUCCESS', 'TAX_INVOICE_ISSUANCE_FAILURE'],
      description: 'Invoice status',
    }],
  },
);

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    enabled: Type.Optional(Type.Boolean({
      description: 'false stops deliveries; pending retries are canceled when they come due.',
    })),
  },
  {
    title: 'UpdateWebhookEndpointBody',
    additionalProperties: false,
    minProperties: 1,
    examples: [{ enabled: false }],
  },
);

export const RotateSecretBody = Type.Object(
  {
    overlapSeconds: Type.Integer({
      minimum: 0,
      maximum: ROTATION_OVERLAP_SECONDS_MAX,
      default: ROTATION_OVERLAP_SECONDS_DEFAULT,
      description: 'How long the previous secret keeps signing beside the new one; 0 ' +
        'retires it at once.',
    }),
  },
  { title: 'RotateWebhookSecretBody', additionalProperties: false,
    examples: [{ overlapSeconds: 86_400 }] },
);

export const ResendBody = Type.Object(
  { eventId: Id('The event to send again.') },
  { title: 'ResendWebhookEventBody', additionalProperties: false,
    examples: [{ eventId: 'evt_3q2xJbWm0vJ8f1d0oQk2Aw' }] },
);

const endpointFields = {
  id: Type.String({ description: 'Webhook endpoint id.' }),
  url: Type.String({ description: 'Where events are POSTed.' }),
  events: Type.Array(SubscribableEventTypeName, { description: 'The event types sent.' }),
  description: Type.Union([Type.String(), Type.Null()], { description: 'The note, or null.' }),
  enabled: Type.Boolean({ description: 'false: nothing is sent.' }),
  previousSecretExpiresAt: nullableTimestamp('While a rotated secret still signs, when it ' +
    'stops; otherwise null.'),
  createdAt: timestamp('When the endpoint was created.'),
  updatedAt: timestamp('When the endpoint last changed.'),
};

export const WebhookEndpoint = Type.Object(endpointFields, {
  title: 'WebhookEndpoint', description: 'A webhook endpoint, without its signing secret.',
  additionalProperties: false,
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({
      description: 'The signing secret. Shown only in this response: store it now.',
      examples: ['whsec_0jv7yW2hE0q3m1B3pS4yFZ6n8o9XkqvC2bW7rj0Gm5U'],
    }),
  },
  { title: 'WebhookEndpointWithSecret',
    description: 'A webhook endpoint with its new signing secret, shown only here.',
    additionalProperties: false },
);

export const WebhookEndpointList = Type.Object(
  { results: Type.Array(WebhookEndpoint, { description: 'Oldest first; at most 20.',
    maxItems: ENDPOINTS_PER_SCOPE_MAX }),
    // Every endpoint fits one page: the fields every list has, for clients that page them all.
    nextCursor: Type.Null({ description: 'Always null: every endpoint is on this page.' }),
    hasMore: Type.Boolean({ description: 'Always false: every endpoint is on this page.' }) },
  { title: 'WebhookEndpointList', description: 'Every webhook endpoint of the key\'s account ' +
    'and environment.', additionalProperties: false },
);

function eventSchema<T extends EventType>(type: T) {
  return Type.Object(
    {
      id: Type.String({ description: 'Event id; receivers dedupe on it.' }),
      type: Type.Literal(type),
      eventType: Type.Literal(type, { description: 'The same as `type`, under a second ' +
        'name for receivers that switch on `eventType`.' }),
      createdAt: timestamp('When the event happened.'),
      data: EVENT_CATALOGUE[type].data,
    },
    { title: `${type}_Event`, description: EVENT_CATALOGUE[type].description,
      additionalProperties: false },
  );
}

// One schema per event type, so the document shows each payload with its type. The record
// makes a type added to the catalogue and missing here a compile error.
const EVENT_SCHEMAS = {
  TAX_INVOICE_ISSUANCE_SUCCESS: eventSchema('TAX_INVOICE_ISSUANCE_SUCCESS'),
  TAX_INVOICE_ISSUANCE_FAILURE: eventSchema('TAX_INVOICE_ISSUANCE_FAILURE'),
  TAX_INVOICE_BULK_COMPLETED: eventSchema('TAX_INVOICE_BULK_COMPLETED'),
  TAX_INVOICE_REVERSE_ISSUANCE_REQUESTED: eventSchema('TAX_INVOICE_REVERSE_ISSUANCE_REQUESTED'),
  TAX_INVOICE_REVERSE_ISSUANCE_APPROVED: eventSchema('TAX_INVOICE_REVERSE_ISSUANCE_APPROVED'),
  TAX_INVOICE_REVERSE_ISSUANCE_REFUSED: eventSchema('TAX_INVOICE_REVERSE_ISSUANCE_REFUSED'),
  TAX_INVOICE_REVERSE_ISSUANCE_CANCELED: eventSchema('TAX_INVOICE_REVERSE_ISSUANCE_CANCELED'),
  TAX_INVOICE_AMENDMENT_ISSUED: eventSchema('TAX_INVOICE_AMENDMENT_ISSUED'),
  TAX_INVOICE_EMAIL_SENT: eventSchema('TAX_INVOICE_EMAIL_SENT'),
  TAX_INVOICE_EMAIL_FAILED: eventSchema('TAX_INVOICE_EMAIL_FAILED'),
  CERTIFICATE_REGISTRATION_SUCCESS: eventSchema('CERTIFICATE_REGISTRATION_SUCCESS'),
  CERTIFICATE_REGISTRATION_FAILURE: eventSchema('CERTIFICATE_REGISTRATION_FAILURE'),
  CASH_RECEIPT_ISSUED: eventSchema('CASH_RECEIPT_ISSUED'),
  CASH_RECEIPT_CANCELED: eventSchema('CASH_RECEIPT_CANCELED'),
  CASH_RECEIPT_FAILED: eventSchema('CASH_RECEIPT_FAILED'),
  CASH_RECEIPT_BULK_COMPLETED: eventSchema('CASH_RECEIPT_BULK_COMPLETED'),
  CASH_RECEIPT_TRANSMITTED: eventSchema('CASH_RECEIPT_TRANSMITTED'),
  DOCUMENT_ISSUANCE_SUCCESS: eventSchema('DOCUMENT_ISSUANCE_SUCCESS'),
  DOCUMENT_ISSUANCE_FAILURE: eventSchema('DOCUMENT_ISSUANCE_FAILURE'),
  BANK_ACCOUNT_SYNCED: eventSchema('BANK_ACCOUNT_SYNCED'),
  BANK_ACCOUNT_SYNC_FAILED: eventSchema('BANK_ACCOUNT_SYNC_FAILED'),
  BANK_TRANSACTION_CREATED: eventSchema('BANK_TRANSACTION_CREATED'),
  TAX_INVOICE_DRAFT_SUBMITTED: eventSchema('TAX_INVOICE_DRAFT_SUBMITTED'),
  TAX_INVOICE_DRAFT_APPROVED: eventSchema('TAX_INVOICE_DRAFT_APPROVED'),
  TAX_INVOICE_DRAFT_RETURNED: eventSchema('TAX_INVOICE_DRAFT_RETURNED'),
  CASH_RECEIPT_DRAFT_SUBMITTED: eventSchema('CASH_RECEIPT_DRAFT_SUBMITTED'),
  CASH_RECEIPT_DRAFT_APPROVED: eventSchema('CASH_RECEIPT_DRAFT_APPROVED'),
  CASH_RECEIPT_DRAFT_RETURNED: eventSchema('CASH_RECEIPT_DRAFT_RETURNED'),
  WEBHOOK_TEST: eventSchema('WEBHOOK_TEST'),
} satisfies Record<EventType, unknown>;

// An event the list shows: any but a test event.
const ListedWebhookEvent = Type.Union([
  EVENT_SCHEMAS.TAX_INVOICE_ISSUANCE_SUCCESS,
  EVENT_SCHEMAS.TAX_INVOICE_ISSUANCE_FAILURE,
  EVENT_SCHEMAS.TAX_INVOICE_BULK_COMPLETED,
  EVENT_SCHEMAS.TAX_INVOICE_REVERSE_ISSUANCE_REQUESTED,
  EVENT_SCHEMAS.TAX_INVOICE_REVERSE_ISSUANCE_APPROVED,
  EVENT_SCHEMAS.TAX_INVOICE_REVERSE_ISSUANCE_REFUSED,
  EVENT_SCHEMAS.TAX_INVOICE_REVERSE_ISSUANCE_CANCELED,
  EVENT_SCHEMAS.TAX_INVOICE_AMENDMENT_ISSUED,
  EVENT_SCHEMAS.TAX_INVOICE_EMAIL_SENT,
  EVENT_SCHEMAS.TAX_INVOICE_EMAIL_FAILED,
  EVENT_SCHEMAS.CERTIFICATE_REGISTRATION_SUCCESS,
  EVENT_SCHEMAS.CERTIFICATE_REGISTRATION_FAILURE,
  EVENT_SCHEMAS.CASH_RECEIPT_ISSUED,
  EVENT_SCHEMAS.CASH_RECEIPT_CANCELED,
  EVENT_SCHEMAS.CASH_RECEIPT_FAILED,
  EVENT_SCHEMAS.CASH_RECEIPT_BULK_COMPLETED,
  EVENT_SCHEMAS.CASH_RECEIPT_TRANSMITTED,
  EVENT_SCHEMAS.DOCUMENT_ISSUANCE_SUCCESS,
  EVENT_SCHEMAS.DOCUMENT_ISSUANCE_FAILURE,
  EVENT_SCHEMAS.BANK_ACCOUNT_SYNCED,
  EVENT_SCHEMAS.BANK_ACCOUNT_SYNC_FAILED,
  EVENT_SCHEMAS.BANK_TRANSACTION_CREATED,
  EVENT_SCHEMAS.TAX_INVOICE_DRAFT_SUBMITTED,
  EVENT_SCHEMAS.TAX_INVOICE_DRAFT_APPROVED,
  EVENT_SCHEMAS.TAX_INVOICE_DRAFT_RETURNED,
  EVENT_SCHEMAS.CASH_RECEIPT_DRAFT_SUBMITTED,
  EVENT_SCHEMAS.CASH_RECEIPT_DRAFT_APPROVED,
  EVENT_SCHEMAS.CASH_RECEIPT_DRAFT_RETURNED,
], { title: 'ListedWebhookEvent', description: 'An event, exactly as it is delivered.' });
assert.equal(ListedWebhookEvent.anyOf.length, SUBSCRIBABLE_EVENT_TYPES.length);

// An event read by its id, a test event too.
export const WebhookEvent = Type.Union([...ListedWebhookEvent.anyOf, EVENT_SCHEMAS.WEBHOOK_TEST],
  { title: 'WebhookEvent', description: 'An event, exactly as it is delivered.' });
assert.equal(WebhookEvent.anyOf.length, EVENT_TYPES.length);

const nextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as `cursor` for the next page; null on the last page.',
});

export const WebhookEventPage = Type.Object(
  {
    results: Type.Array(ListedWebhookEvent, {
      description: 'Newest first. Test events are not listed; read one by its id.',
    }),
    nextCursor,
    hasMore: HasMore,
  },
  { title: 'WebhookEventPage', description: 'A page of events, newest first.',
    additionalProperties: false },
);

const Attempt = Type.Object(
  {
    attemptNumber: Type.Integer({ minimum: 1, maximum: DELIVERY_ATTEMPTS_MAX }),
    outcome: Type.Enum(['succeeded', 'failed'] as const),
    responseStatus: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The receiver\'s HTTP status; null when no answer came.',
    }),
    durationMs: Type.Integer({ description: 'From sending to the end of the answer.' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed, or null.' }),
    startedAt: timestamp('When the attempt started.'),
    finishedAt: timestamp('When the attempt ended.'),
  },
  { title: 'WebhookDeliveryAttempt', additionalProperties: false },
);

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'Delivery id.' }),
    endpointId: Type.String(),
    eventId: Type.String(),
    eventType: EventTypeName,
    status: Type.Enum(DELIVERY_STATUSES, {
      description: '`pending` (an attempt is due), `succeeded` (2xx), `failed` (every attempt ' +
        'failed) or `canceled` (the endpoint was disabled).',
    }),
    attemptCount: Type.Integer({ minimum: 0, maximum: DELIVERY_ATTEMPTS_MAX }),
    nextAttemptAt: nullableTimestamp('When the next attempt is due; null when none is.'),
    lastResponseStatus: Type.Union([Type.Integer(), Type.Null()]),
    lastDurationMs: Type.Union([Type.Integer(), Type.Null()]),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: timestamp('When the delivery was queued.'),
    completedAt: nullableTimestamp('When it succeeded, failed or was canceled.'),
    attempts: Type.Array(Attempt, { description: 'Every attempt, first first.' }),
  },
  { title: 'WebhookDelivery', description: 'A delivery of one event to one endpoint, with its ' +
    'attempts.', additionalProperties: false },
);

export const WebhookDeliveryPage = Type.Object(
  { results: Type.Array(WebhookDelivery, { description: 'Newest first.' }), nextCursor,
    hasMore: HasMore },
  { title: 'WebhookDeliveryPage', description: 'A page of deliveries, newest first.',
    additionalProperties: false },
);

const pageFields = pageQueryFields('results');

export const EventListQuery = Type.Object(
  { ...pageFields, type: Type.Optional(SubscribableEventTypeName) },
  { additionalProperties: false },
);
export const DeliveryListQuery = Type.Object(
  { ...pageFields, status: Type.Optional(Type.Enum(DELIVERY_STATUSES)) },
  { additionalProperties: false },
);
