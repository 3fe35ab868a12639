import assert from 'node:assert/strict';
import { newId } from '../../domain/ids.ts';
import type { Db } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import {
  SUBSCRIBABLE_EVENT_TYPES,
  type EventData,
  type EventType,
  type SubscribableEventType,
} from '../../platform/event-catalogue.ts';
import type { QueueDelivery } from './recorder.ts';
import { DELIVERY_ATTEMPTS_MAX } from './retry-schedule.ts';
import { generateSigningSecret } from './signature.ts';
import { sealedCurrentSecret, sealSecret } from './secrets-at-rest.ts';
import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Scope } from '../../platform/scope.ts';
import {
  checkTargetUrl,
  targetPolicyFor,
} from './target-policy.ts';
import * as store from './store.ts';
import { ENDPOINTS_PER_SCOPE_MAX } from './store.ts';
import { sequenceCursors, type PageCursors } from '../../platform/cursor.ts';
import type { ResolveHost } from '../../platform/outside.ts';

// The webhook management API (docs/webhooks.md): endpoints of the caller's account and
// environment, their secrets, their delivery log and resends, and the events of the scope.
// Every lookup is scoped, so another account's or environment's id is simply not found. These
// operations charge no points.

type WebhooksServiceDeps = {
  db: Db;
  // Seals signing secrets at rest (secrets-at-rest.ts).
  sealing: SealingKey;
  queueDelivery: QueueDelivery;
  resolveHost: ResolveHost;
  privateTargetsAllowed: boolean;
  cursors: PageCursors;
};


function toEndpoint(row: store.EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.eventTypes as SubscribableEventType[],
    description: row.description,
    enabled: row.enabled,
    previousSecretExpiresAt: row.previousSecretExpiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// An event of one of these types as the API shows and delivers it; the data matches its type's
// payload.
type EventRecordOf<Types extends EventType> = {
  [T in Types]: { id: string; type: T; eventType: T; createdAt: string; data: EventData<T> };
}[Types];
type EventRecord = EventRecordOf<EventType>;

function toEvent(row: store.EventRow): EventRecord {
  // The recorder checked the data against its type's schema when it wrote the row.
  return {
    id: row.id,
    type: row.type,
    eventType: row.type,
    createdAt: row.createdAt.toISOString(),
    data: row.data,
  } as EventRecord;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

function toAttempt(row: store.AttemptRow) {
  return {
    attemptNumber: row.attemptNumber,
    outcome: row.outcome as 'succeeded' | 'failed',
    responseStatus: row.responseStatus,
    durationMs: row.durationMs,
    error: row.error,
    responseBody: row.responseBody,
    responseBodyTruncated: row.responseBodyTruncated,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt.toISOString(),
  };
}

function toDelivery(row: store.DeliveryRow, eventType: string, attempts: store.AttemptRow[]) {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: eventType as EventType,
    status: row.status as 'pending' | 'succeeded' | 'failed' | 'canceled',
    attemptCount: row.attemptCount,
    nextAttemptAt: iso(row.nextAttemptAt),
    lastResponseStatus: row.lastResponseStatus,
    lastDurationMs: row.lastDurationMs,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    completedAt: iso(row.completedAt),
    attempts: attempts.map(toAttempt),
  };
}

const notFound = (what: string) => new ApiError('NOT_FOUND', `No ${what} with this id.`);

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { db } = deps;

  async function checkUrl(caller: Scope, url: string) {
    const policy = targetPolicyFor(caller.environment, deps.privateTargetsAllowed);
    const checked = await checkTargetUrl(url, policy, deps.resolveHost);
    if (!checked.ok) throw new ApiError('WEBHOOK_URL_NOT_ALLOWED', `body.url ${checked.reason}.`);
    // Stored as parsed, so what is shown is exactly what is requested.
    return checked.url.href;
  }

  async function endpointOrThrow(scope: Scope, endpointId: string) {
    const row = await store.findEndpoint(db, scope, endpointId);
    if (row === null) throw notFound('webhook endpoint');
    return row;
  }

  async function createEndpoint(input: {
    caller: Scope; url: string; events: SubscribableEventType[]; description?: string;
  }) {
    const url = await checkUrl(input.caller, input.url);
    const id = newId('webhookEndpoint');
    const secret = generateSigningSecret();
    const row = await db.transaction(async (tx) => {
      await store.lockScope(tx, input.caller);
      if (await store.countEndpoints(tx, input.caller) >= ENDPOINTS_PER_SCOPE_MAX) {
        throw new ApiError('WEBHOOK_ENDPOINT_LIMIT_REACHED');
      }
      return store.insertEndpoint(tx, {
        id,
        accountId: input.caller.accountId,
        environment: input.caller.environment,
        url,
        eventTypes: input.events,
        description: input.description ?? null,
        sealedSecret: sealSecret(deps.sealing, id, secret),
      });
    });
    return { ...toEndpoint(row), secret };
  }

  async function updateEndpoint(input: {
    caller: Scope; endpointId: string;
    changes: {
      url?: string; events?: SubscribableEventType[]; description?: string | null;
      enabled?: boolean;
    };
  }) {
    const { events, description, enabled } = input.changes;
    const url = input.changes.url === undefined
      ? undefined
      : await checkUrl(input.caller, input.changes.url);
    const row = await store.updateEndpoint(db, input.caller, input.endpointId, {
      url, eventTypes: events, description, enabled,
    });
    if (row === null) throw notFound('webhook endpoint');
    return toEndpoint(row);
  }

  return {
    createEndpoint,
    updateEndpoint,
    ...managementReads(deps, endpointOrThrow),
    ...secretsAndDeletion(deps),
    ...deliveryLog(deps, endpointOrThrow),
    ...testEvents(deps, endpointOrThrow),
  };
}

// A document has a handful of events; a timeline shows no more than this many.
const DOCUMENT_EVENTS_MAX = 100;

type EndpointOrThrow = (scope: Scope, endpointId: string) => Promise<store.EndpointRow>;

function managementReads(deps: WebhooksServiceDeps, endpointOrThrow: EndpointOrThrow) {
  return {
    async listEndpoints(input: { caller: Scope }) {
      const rows = await store.listEndpoints(deps.db, input.caller);
      return { results: rows.map(toEndpoint) };
    },
    async getEndpoint(input: { caller: Scope; endpointId: string }) {
      return toEndpoint(await endpointOrThrow(input.caller, input.endpointId));
    },
    // Test events are left out: the list is what happened in the scope, and clients that page
    // it to catch up on missed deliveries have nothing to do with a check of a receiver.
    async listEvents(input: {
      caller: Scope; limit: number; cursor?: string; type?: SubscribableEventType;
    }) {
      const cursors = sequenceCursors(deps.cursors, 'webhooks.events.list');
      const beforeSequence = cursors.decode(input.caller, input.cursor) ?? null;
      const rows = await store.listEvents(deps.db, input.caller, {
        beforeSequence, limit: input.limit,
        types: input.type === undefined ? SUBSCRIBABLE_EVENT_TYPES : [input.type],
      });
      const { page, nextCursor } = cursors.pageOf(input.caller, rows, input.limit);
      // The store returned events of subscribable types only.
      const results = page.map(toEvent) as Array<EventRecordOf<SubscribableEventType>>;
      return { results, nextCursor };
    },
    // The events recorded about one document (a tax invoice's, an amendment's of it), oldest
    // first, for the dashboard's timeline of the document.
    async eventsAbout(input: { caller: Scope; issuanceKey: string }) {
      const rows = await store.findEventsAbout(deps.db, input.caller, input.issuanceKey,
        DOCUMENT_EVENTS_MAX);
      return rows.map(toEvent);
    },
    async getEvent(input: { caller: Scope; eventId: string }) {
      const row = await store.findEvent(deps.db, input.caller, input.eventId);
      if (row === null) throw notFound('webhook event');
      return toEvent(row);
    },
  };
}

// The longest a rotated secret keeps signing: a week is enough to roll out a new secret to
// every receiver.
export const ROTATION_OVERLAP_SECONDS_MAX = 604_800;

function secretsAndDeletion(deps: WebhooksServiceDeps) {
  return {
    async rotateSecret(input: { caller: Scope; endpointId: string; overlapSeconds: number }) {
      assert(Number.isSafeInteger(input.overlapSeconds));
      assert(input.overlapSeconds >= 0 && input.overlapSeconds <= ROTATION_OVERLAP_SECONDS_MAX);
      const secret = generateSigningSecret();
      const row = await deps.db.transaction(async (tx) => {
        // Locked: concurrent rotations take turns, each keeping the one before it as the
        // previous secret, so every secret answered is one that signs, in the order answered.
        const current = await store.findEndpoint(tx, input.caller, input.endpointId,
          { forUpdate: true });
        if (current === null) throw notFound('webhook endpoint');
        const overlapping = input.overlapSeconds > 0;
        // The database clock decides expiry, the same clock that stamps every other row.
        const expiresAt = await store.databaseNowPlus(tx, input.overlapSeconds);
        return store.updateEndpoint(tx, input.caller, input.endpointId, {
          sealedSecret: sealSecret(deps.sealing, current.id, secret),
          sealedPreviousSecret: overlapping ? sealedCurrentSecret(deps.sealing, current) : null,
          previousSecretExpiresAt: overlapping ? expiresAt : null,
          // A row from before secrets were sealed leaves its plain text behind here.
          plaintextSecret: null,
          plaintextPreviousSecret: null,
        });
      });
      assert(row !== null);
      return { ...toEndpoint(row), secret };
    },
    async deleteEndpoint(input: { caller: Scope; endpointId: string }) {
      const deleted = await store.deleteEndpoint(deps.db, input.caller, input.endpointId);
      if (!deleted) throw notFound('webhook endpoint');
    },
  };
}

function deliveryLog(deps: WebhooksServiceDeps, endpointOrThrow: EndpointOrThrow) {
  return {
    // The scope's latest failed deliveries, newest first, over every endpoint.
    async recentFailedDeliveries(input: { caller: Scope; limit: number }) {
      const rows = await store.listRecentFailedDeliveries(deps.db, input.caller, input.limit);
      return rows.map((row) => ({ ...toDelivery(row.delivery, row.eventType, []),
        endpointUrl: row.url, completedAt: iso(row.delivery.completedAt) }));
    },
    async listDeliveries(input: {
      caller: Scope; endpointId: string; limit: number; cursor?: string; status?: string;
    }) {
      // A cursor of one endpoint's deliveries opens for that endpoint only.
      const cursors = sequenceCursors(deps.cursors,
        `webhooks.deliveries.list ${input.endpointId}`);
      const beforeSequence = cursors.decode(input.caller, input.cursor) ?? null;
      await endpointOrThrow(input.caller, input.endpointId);
      const rows = await store.listDeliveries(deps.db, input.endpointId, {
        beforeSequence, limit: input.limit, status: input.status ?? null,
      });
      const { page, nextCursor } = cursors.pageOf(input.caller,
        rows.map((row) => ({ ...row, sequence: row.delivery.sequence })), input.limit);
      const attempts = await store.listAttempts(
        deps.db, page.map((row) => row.delivery.id), DELIVERY_ATTEMPTS_MAX);
      const results = page.map((row) => toDelivery(row.delivery, row.eventType,
        attempts.filter((attempt) => attempt.deliveryId === row.delivery.id)));
      return { results, nextCursor };
    },
    // Sends one event to one endpoint again, as a new delivery with its own attempts.
    async resendEvent(input: { caller: Scope; endpointId: string; eventId: string }) {
      const endpoint = await endpointOrThrow(input.caller, input.endpointId);
      if (!endpoint.enabled) throw new ApiError('WEBHOOK_ENDPOINT_DISABLED');
      const event = await store.findEvent(deps.db, input.caller, input.eventId);
      if (event === null) throw notFound('webhook event');
      const delivery = await deps.db.transaction(async (tx) => {
        const row = await store.insertDeliveryRow(tx, {
          id: newId('webhookDelivery'), endpointId: endpoint.id, eventId: event.id,
        });
        await deps.queueDelivery(tx, { deliveryId: row.id, attemptNumber: 1 });
        return row;
      });
      return toDelivery(delivery, event.type, []);
    },
  };
}

// What a test event says to whoever reads it at the receiver.
export const TEST_EVENT_MESSAGE = 'This is a test event from etax, sent on request to check ' +
  'this endpoint. Nothing happened in the account.';

function testEvents(deps: WebhooksServiceDeps, endpointOrThrow: EndpointOrThrow) {
  return {
    // Records a WEBHOOK_TEST event and queues its one delivery, to this endpoint only, through
    // the same worker and signature as every other delivery (docs/webhooks.md § Testing a
    // receiver). The recorder is not used: it fans an event out to subscribers, and no endpoint
    // subscribes to test events.
    async sendTestEvent(input: { caller: Scope; endpointId: string }) {
      const endpoint = await endpointOrThrow(input.caller, input.endpointId);
      if (!endpoint.enabled) throw new ApiError('WEBHOOK_ENDPOINT_DISABLED');
      const type = 'WEBHOOK_TEST';
      const data: EventData<typeof type> = { endpointId: endpoint.id, message: TEST_EVENT_MESSAGE };
      const eventId = newId('webhookEvent');
      const delivery = await deps.db.transaction(async (tx) => {
        await store.insertEvents(tx, [{ id: eventId, scope: input.caller, type, data }]);
        const row = await store.insertDeliveryRow(tx, {
          id: newId('webhookDelivery'), endpointId: endpoint.id, eventId,
        });
        await deps.queueDelivery(tx, { deliveryId: row.id, attemptNumber: 1 });
        return row;
      });
      return toDelivery(delivery, type, []);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
