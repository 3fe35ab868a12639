import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../db/connect.ts';
import type { Environment } from '../accounts/keys.ts';
import {
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookEndpoints,
  webhookEvents,
} from './schema.ts';

// The SQL of recording events and delivering them. The endpoint management API has its own
// store (src/areas/webhooks/store.ts).

export type Scope = { accountId: string; environment: Environment };

// An account has at most this many endpoints per environment, so one event fans out to at
// most this many deliveries in the transaction that records it.
export const ENDPOINTS_PER_SCOPE_MAX = 20;

// Events are numbered in the order given.
export async function insertEvents(
  tx: Executor,
  rows: Array<{ id: string; scope: Scope; type: string; data: unknown }>,
): Promise<void> {
  if (rows.length === 0) return;
  await tx.insert(webhookEvents).values(rows.map((row) => ({
    id: row.id,
    accountId: row.scope.accountId,
    environment: row.scope.environment,
    type: row.type,
    data: row.data,
  })));
}

export type SubscribedEndpoint = { id: string; scope: Scope; eventTypes: string[] };

// The enabled endpoints of these scopes that subscribe to any of these event types, oldest first.
export async function findSubscribedEndpoints(
  tx: Executor,
  scopes: readonly Scope[],
  types: readonly string[],
): Promise<SubscribedEndpoint[]> {
  const pairs = sql.join(scopes.map((scope) => sql`(${scope.accountId}, ${scope.environment})`),
    sql`, `);
  const typeList = sql.join(types.map((type) => sql`${type}`), sql`, `);
  const rows = await tx.select({ id: webhookEndpoints.id, accountId: webhookEndpoints.accountId,
    environment: webhookEndpoints.environment, eventTypes: webhookEndpoints.eventTypes })
    .from(webhookEndpoints).where(and(
      sql`(${webhookEndpoints.accountId}, ${webhookEndpoints.environment}) in (${pairs})`,
      eq(webhookEndpoints.enabled, true),
      sql`${webhookEndpoints.eventTypes} && array[${typeList}]::text[]`,
    )).orderBy(webhookEndpoints.sequence);
  return rows.map((row) => ({ id: row.id, eventTypes: row.eventTypes,
    scope: { accountId: row.accountId, environment: row.environment as Environment } }));
}

export async function insertDeliveries(
  tx: Executor,
  rows: Array<{ id: string; endpointId: string; eventId: string }>,
): Promise<void> {
  if (rows.length === 0) return;
  await tx.insert(webhookDeliveries).values(rows);
}

// Everything one attempt needs: the delivery, its endpoint and its event.
export async function findDeliveryForAttempt(tx: Executor, deliveryId: string) {
  const [row] = await tx.select({
    delivery: webhookDeliveries,
    endpoint: webhookEndpoints,
    event: webhookEvents,
  }).from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(eq(webhookDeliveries.id, deliveryId))
    .limit(1);
  return row ?? null;
}

// Locks a delivery that still waits for this attempt; false when it was deleted with its
// endpoint, finished, canceled or already moved past this attempt meanwhile.
export async function lockDeliveryForAttempt(
  tx: Executor,
  deliveryId: string,
  attemptNumber: number,
): Promise<boolean> {
  const rows = await tx.select({ id: webhookDeliveries.id }).from(webhookDeliveries)
    .where(and(
      eq(webhookDeliveries.id, deliveryId),
      eq(webhookDeliveries.status, 'pending'),
      lt(webhookDeliveries.attemptCount, attemptNumber),
    ))
    .for('update')
    .limit(1);
  return rows.length === 1;
}

export type AttemptRow = typeof webhookDeliveryAttempts.$inferInsert;

// Records an attempt once; false when this attempt number is already recorded (a job that ran
// twice).
export async function insertAttempt(tx: Executor, row: AttemptRow): Promise<boolean> {
  const inserted = await tx.insert(webhookDeliveryAttempts).values(row)
    .onConflictDoNothing().returning({ deliveryId: webhookDeliveryAttempts.deliveryId });
  return inserted.length === 1;
}

type DeliveryUpdate = {
  deliveryId: string;
  attemptNumber: number;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: Date | null;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  completedAt: Date | null;
};

// Moves a pending delivery on by one attempt; false when it was no longer pending.
export async function updateDeliveryAfterAttempt(tx: Executor, update: DeliveryUpdate) {
  const updated = await tx.update(webhookDeliveries).set({
    status: update.status,
    attemptCount: update.attemptNumber,
    nextAttemptAt: update.nextAttemptAt,
    lastResponseStatus: update.responseStatus,
    lastDurationMs: update.durationMs,
    lastError: update.error,
    completedAt: update.completedAt,
  }).where(and(
    eq(webhookDeliveries.id, update.deliveryId),
    eq(webhookDeliveries.status, 'pending'),
  )).returning({ id: webhookDeliveries.id });
  return updated.length === 1;
}

export async function cancelDelivery(tx: Executor, deliveryId: string, reason: string) {
  await tx.update(webhookDeliveries)
    .set({ status: 'canceled', lastError: reason, nextAttemptAt: null, completedAt: sql`now()` })
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.status, 'pending')));
}
