import assert from 'node:assert/strict';
import Value from 'typebox/value';
import { newId } from '../../domain/ids.ts';
import type { Executor } from '../../platform/db/connect.ts';
import type { StageJob, StageJobs } from '../../platform/jobs.ts';
import { EVENT_CATALOGUE } from '../../platform/event-catalogue.ts';
import type { RecordEvent, RecordEvents } from '../../platform/events.ts';
import {
  ENDPOINTS_PER_SCOPE_MAX,
  findSubscribedEndpoints,
  insertDeliveries,
  insertEvents,
} from './store.ts';
import type { Scope } from '../../platform/scope.ts';

// Recording an event is the transactional outbox of webhooks: the
// event row, one delivery row per subscribed endpoint and one job per delivery are written in
// the caller's transaction. If it commits, every delivery is worked even when the process dies
// right after; if it rolls back, nothing was ever queued.

export const DELIVERY_QUEUE = 'webhook-deliveries';

export type DeliveryJobData = { deliveryId: string; attemptNumber: number };

// Queues an attempt of a delivery in the caller's transaction, at once or at `startAfter`.
export type QueueDelivery = (
  executor: Executor,
  job: DeliveryJobData & { startAfter?: Date },
) => Promise<void>;

export function createDeliveryQueuer(stage: StageJob): QueueDelivery {
  return async (executor, { deliveryId, attemptNumber, startAfter }) => {
    const data: DeliveryJobData = { deliveryId, attemptNumber };
    // The retry schedule is ours (retry-schedule.ts); pg-boss only retries a job whose worker
    // crashed, and the attempt record makes that rerun harmless.
    await stage(executor, DELIVERY_QUEUE, data, startAfter ? { startAfter } : {});
  };
}

const sameScope = (a: Scope, b: Scope) =>
  a.accountId === b.accountId && a.environment === b.environment;

// The first deliveries of new events are staged together, as their first attempts.
export function createEventRecorder(stageMany: StageJobs): RecordEvents {
  return async (executor, events) => {
    if (events.length === 0) return [];
    for (const { event } of events) {
      // The types already make a wrong payload or a test event a compile error; these catch an
      // `as` cast.
      assert(Value.Check(EVENT_CATALOGUE[event.type].data, event.data),
        `${event.type} data does not match its schema`);
      assert(EVENT_CATALOGUE[event.type].subscribable, `${event.type} is sent only on request`);
    }
    const rows = events.map(({ scope, event }) => ({ id: newId('webhookEvent'), scope,
      type: event.type, data: event.data }));
    // A savepoint inside the caller's transaction, or a transaction of its own if the caller
    // passed the database: the events and their jobs commit together either way.
    return executor.transaction(async (tx) => {
      await insertEvents(tx, rows);
      const endpoints = await findSubscribedEndpoints(tx, rows.map((row) => row.scope),
        [...new Set(rows.map((row) => row.type))]);
      const deliveries = rows.flatMap((row) => endpoints
        .filter((endpoint) => sameScope(endpoint.scope, row.scope) &&
          endpoint.eventTypes.includes(row.type))
        .slice(0, ENDPOINTS_PER_SCOPE_MAX)
        .map((endpoint) => ({ id: newId('webhookDelivery'), endpointId: endpoint.id,
          eventId: row.id })));
      await insertDeliveries(tx, deliveries);
      await stageMany(tx, DELIVERY_QUEUE, deliveries.map(({ id }) => ({
        data: { deliveryId: id, attemptNumber: 1 } satisfies DeliveryJobData })));
      return rows.map(({ id }) => ({ id }));
    });
  };
}

// One event, for work that emits one.
export function oneAtATime(recordEvents: RecordEvents): RecordEvent {
  return async (executor, scope, event) => (await recordEvents(executor, [{ scope, event }]))[0]!;
}
