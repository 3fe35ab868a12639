import assert from 'node:assert/strict';
import Value from 'typebox/value';
import { newId } from '../../domain/ids.ts';
import type { Executor } from '../db/connect.ts';
import type { StageJob } from '../jobs.ts';
import { EVENT_CATALOGUE, type EventInput } from './catalogue.ts';
import { findSubscribedEndpointIds, insertDelivery, insertEvent, type Scope } from './store.ts';

// Recording an event is the transactional outbox of webhooks (DESIGN.md § Async work): the
// event row, one delivery row per subscribed endpoint and one job per delivery are written in
// the caller's transaction. If it commits, every delivery is worked even when the process dies
// right after; if it rolls back, nothing was ever queued.

export const DELIVERY_QUEUE = 'webhook-deliveries';

export type DeliveryJobData = { deliveryId: string; attemptNumber: number };

// Records an event of the catalogue (src/platform/webhooks/catalogue.ts) in the caller's
// transaction and queues its deliveries. `data` must match the type's payload.
export type RecordEvent = (
  executor: Executor,
  scope: Scope,
  event: EventInput,
) => Promise<{ id: string }>;

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

export function createEventRecorder(queueDelivery: QueueDelivery): RecordEvent {
  return async (executor, scope, event) => {
    const schema = EVENT_CATALOGUE[event.type].data;
    // The types already make a wrong payload a compile error; this catches an `as` cast.
    assert(Value.Check(schema, event.data), `${event.type} data does not match its schema`);
    // A savepoint inside the caller's transaction, or a transaction of its own if the caller
    // passed the database: the event and its jobs commit together either way.
    return executor.transaction(async (tx) => {
      const { id } = await insertEvent(tx, {
        id: newId('webhookEvent'),
        scope,
        type: event.type,
        data: event.data,
      });
      const endpointIds = await findSubscribedEndpointIds(tx, scope, event.type);
      for (const endpointId of endpointIds) {
        const delivery = await insertDelivery(tx, {
          id: newId('webhookDelivery'),
          endpointId,
          eventId: id,
        });
        await queueDelivery(tx, { deliveryId: delivery.id, attemptNumber: 1 });
      }
      return { id };
    });
  };
}
