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

export async function insertEvent(
  tx: Executor,
  row: { id: string; scope: Scope; type: string; data: unknown },
) {
  const [inserted] = await tx.insert(webhookEvents).values({
    id: row.id,
    accountId: row.scope.accountId,
    environment: row.scope.environment,
    type: row.type,
    data: row.data,
  }).returning({ id: webhookEvents.id });
  return inserted!;
}

// The enabled endpoints of the scope that subscribe to this event type.
export async function findSubscribedEndpointIds(tx: Executor, scope: Scope, type: string) {
  const rows = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(and(
    eq(webhookEndpoints.accountId, scope.accountId),
    eq(webhookEndpoints.environment, scope.environment),
    eq(webhookEndpoints.enabled, true),
    sql`${type} = any(${webhookEndpoints.eventTypes})`,
  )).orderBy(webhookEndpoints.sequence).limit(ENDPOINTS_PER_SCOPE_MAX);
  return rows.map((row) => row.id);
}

export async function insertDelivery(
  tx: Executor,
  row: { id: string; endpointId: string; eventId: string },
) {
  const [inserted] = await tx.insert(webhookDeliveries).values(row).returning();
  return inserted!;
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
