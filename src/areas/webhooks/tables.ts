import { sql } from 'drizzle-orm';
import {
  bigint, boolean, check, index, integer, jsonb, pgTable, primaryKey, text,
} from 'drizzle-orm/pg-core';
import { createdAt, timestampTz, updatedAt } from '../../platform/db/columns.ts';

// Webhook tables (docs/webhooks.md). Endpoints and events belong to one account and one
// environment; a delivery is one event sent to one endpoint, retried as attempts. Lists page by
// `sequence`, a monotonic column, so a cursor never skips or repeats a row that shares a
// timestamp with another.

const sequence = () => bigint('sequence', { mode: 'number' }).generatedAlwaysAsIdentity();

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    sequence: sequence(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    url: text('url').notNull(),
    eventTypes: text('event_types').array().notNull(),
    description: text('description'),
    enabled: boolean('enabled').notNull().default(true),
    // The signing secret, sealed with the encryption key and the endpoint id as context
    // (secrets-at-rest.ts): it must be readable to sign with, but a copy of the database alone
    // must not let anyone sign. It is shown to the client only when made.
    sealedSecret: text('sealed_secret'),
    // After a rotation the previous secret signs too, until it expires; sealed the same way.
    sealedPreviousSecret: text('sealed_previous_secret'),
    previousSecretExpiresAt: timestampTz('previous_secret_expires_at'),
    // Secrets as releases before sealing stored them, in plain text: never written any more,
    // signed with until every process start seals them (secrets-at-rest.ts), then null.
    plaintextSecret: text('secret'),
    plaintextPreviousSecret: text('previous_secret'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    index('webhook_endpoints_scope_idx').on(table.accountId, table.environment, table.sequence),
    check('webhook_endpoints_environment_known', sql`${table.environment} in ('test', 'live')`),
    check('webhook_endpoints_url_length', sql`char_length(${table.url}) between 1 and 2048`),
    check(
      'webhook_endpoints_event_types_count',
      sql`coalesce(array_length(${table.eventTypes}, 1), 0) between 1 and 50`,
    ),
    check(
      'webhook_endpoints_description_length',
      sql`char_length(${table.description}) <= 500`,
    ),
    // One form of each secret: sealed, or (rows not sealed yet) in plain text.
    check(
      'webhook_endpoints_one_secret',
      sql`(${table.sealedSecret} is null) <> (${table.plaintextSecret} is null)`,
    ),
    check(
      'webhook_endpoints_one_previous_secret',
      sql`${table.sealedPreviousSecret} is null or ${table.plaintextPreviousSecret} is null`,
    ),
    check(
      'webhook_endpoints_previous_secret_pair',
      sql`(coalesce(${table.sealedPreviousSecret}, ${table.plaintextPreviousSecret}) is null)
        = (${table.previousSecretExpiresAt} is null)`,
    ),
  ],
);

export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    sequence: sequence(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    index('webhook_events_scope_idx').on(table.accountId, table.environment, table.sequence),
    // The events about one document, for its timeline (store.ts, EVENT_DOCUMENT_KEY).
    index('webhook_events_document_idx').on(table.accountId, table.environment,
      sql`(coalesce(${table.data}->>'issuanceKey', ${table.data}->>'originalIssuanceKey'))`),
    check('webhook_events_environment_known', sql`${table.environment} in ('test', 'live')`),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    sequence: sequence(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id),
    status: text('status').notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestampTz('next_attempt_at'),
    lastResponseStatus: integer('last_response_status'),
    lastDurationMs: integer('last_duration_ms'),
    lastError: text('last_error'),
    createdAt: createdAt(),
    completedAt: timestampTz('completed_at'),
  },
  (table) => [
    index('webhook_deliveries_endpoint_idx').on(table.endpointId, table.sequence),
    index('webhook_deliveries_event_idx').on(table.eventId),
    // Failed deliveries only, per endpoint, for the newest failures of a scope (at most
    // ENDPOINTS_PER_SCOPE_MAX endpoints; the dashboard's home page).
    index('webhook_deliveries_failed_idx').on(table.endpointId, table.sequence)
      .where(sql`${table.status} = 'failed'`),
    check(
      'webhook_deliveries_status_known',
      sql`${table.status} in ('pending', 'succeeded', 'failed', 'canceled')`,
    ),
    check('webhook_deliveries_attempt_count_range', sql`${table.attemptCount} between 0 and 8`),
  ],
);

export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attemptNumber: integer('attempt_number').notNull(),
    outcome: text('outcome').notNull(),
    responseStatus: integer('response_status'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
    // The start of the receiver's answer (deliver.ts): at most RESPONSE_BODY_KEPT_BYTES of it,
    // as text, and whether there was more.
    responseBody: text('response_body'),
    responseBodyTruncated: boolean('response_body_truncated').notNull().default(false),
    startedAt: timestampTz('started_at').notNull(),
    finishedAt: timestampTz('finished_at').notNull(),
  },
  (table) => [
    // One row per attempt: a job run twice records its attempt once.
    primaryKey({ columns: [table.deliveryId, table.attemptNumber] }),
    check('webhook_delivery_attempts_outcome_known',
      sql`${table.outcome} in ('succeeded', 'failed')`),
    check('webhook_delivery_attempts_number_range', sql`${table.attemptNumber} between 1 and 8`),
  ],
);
