import type { Executor } from './db/connect.ts';
import type { EventInput } from './event-catalogue.ts';
import type { Scope } from './scope-types.ts';

// What an area calls to announce something that happened, in its own transaction: the event is
// recorded and every subscribed webhook endpoint's delivery is queued with it, or nothing is
// when the transaction rolls back (docs/webhooks.md). The webhooks area implements it.

// Records an event of the catalogue (src/platform/event-catalogue.ts) in the caller's
// transaction and queues its deliveries. `data` must match the type's payload.
export type RecordEvent = (
  executor: Executor,
  scope: Scope,
  event: EventInput,
) => Promise<{ id: string }>;

// Records many events the same way, in one round trip per table: for work that emits an event
// per document of a batch.
export type RecordEvents = (
  executor: Executor,
  events: ReadonlyArray<{ scope: Scope; event: EventInput }>,
) => Promise<Array<{ id: string }>>;

