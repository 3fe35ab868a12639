import { and, desc, eq, inArray, lt, sql, type Column, type SQL } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import {
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookEndpoints,
  webhookEvents,
} from '../../platform/webhooks/schema.ts';
import { ENDPOINTS_PER_SCOPE_MAX, type Scope } from '../../platform/webhooks/store.ts';

// The SQL of the webhook management API: endpoints of one scope, their delivery log, and the
// events of the scope. Every query is bounded to the caller's account and environment.

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type EventRow = typeof webhookEvents.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

const inScope = (scope: Scope) => and(
  eq(webhookEndpoints.accountId, scope.accountId),
  eq(webhookEndpoints.environment, scope.environment),
);

// Serializes endpoint creation within a scope, so the count check holds under concurrency.
export async function lockScope(tx: Executor, scope: Scope) {
  const key = `webhook-endpoints:${scope.accountId}:${scope.environment}`;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}

export async function countEndpoints(tx: Executor, scope: Scope): Promise<number> {
  const [row] = await tx.select({ count: sql<number>`count(*)::int` })
    .from(webhookEndpoints).where(inScope(scope));
  return row!.count;
}

export async function insertEndpoint(tx: Executor, row: typeof webhookEndpoints.$inferInsert) {
  const [inserted] = await tx.insert(webhookEndpoints).values(row).returning();
  return inserted!;
}

export async function listEndpoints(tx: Executor, scope: Scope) {
  return tx.select().from(webhookEndpoints).where(inScope(scope))
    .orderBy(webhookEndpoints.sequence).limit(ENDPOINTS_PER_SCOPE_MAX);
}

export async function findEndpoint(tx: Executor, scope: Scope, endpointId: string) {
  const [row] = await tx.select().from(webhookEndpoints)
    .where(and(inScope(scope), eq(webhookEndpoints.id, endpointId))).limit(1);
  return row ?? null;
}

type EndpointChanges = Partial<Pick<EndpointRow,
  'url' | 'eventTypes' | 'description' | 'enabled' | 'secret' | 'previousSecret' |
  'previousSecretExpiresAt'>>;

export async function updateEndpoint(
  tx: Executor,
  scope: Scope,
  endpointId: string,
  changes: EndpointChanges,
) {
  const [row] = await tx.update(webhookEndpoints)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(inScope(scope), eq(webhookEndpoints.id, endpointId)))
    .returning();
  return row ?? null;
}

export async function deleteEndpoint(tx: Executor, scope: Scope, endpointId: string) {
  const deleted = await tx.delete(webhookEndpoints)
    .where(and(inScope(scope), eq(webhookEndpoints.id, endpointId)))
    .returning({ id: webhookEndpoints.id });
  return deleted.length === 1;
}

type Page = { beforeSequence: number | null; limit: number };

const before = (column: Column, page: Page): SQL | undefined =>
  page.beforeSequence === null ? undefined : lt(column, page.beforeSequence);

// Newest first; one row more than the page, so the caller knows whether another page exists.
export async function listDeliveries(
  tx: Executor,
  endpointId: string,
  page: Page & { status: string | null },
) {
  return tx.select({ delivery: webhookDeliveries, eventType: webhookEvents.type })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(
      eq(webhookDeliveries.endpointId, endpointId),
      page.status === null ? undefined : eq(webhookDeliveries.status, page.status),
      before(webhookDeliveries.sequence, page),
    ))
    .orderBy(desc(webhookDeliveries.sequence))
    .limit(page.limit + 1);
}

// The attempts of the given deliveries; each has at most DELIVERY_ATTEMPTS_MAX.
export async function listAttempts(tx: Executor, deliveryIds: string[], attemptsMax: number) {
  if (deliveryIds.length === 0) return [];
  return tx.select().from(webhookDeliveryAttempts)
    .where(inArray(webhookDeliveryAttempts.deliveryId, deliveryIds))
    .orderBy(webhookDeliveryAttempts.deliveryId, webhookDeliveryAttempts.attemptNumber)
    .limit(deliveryIds.length * attemptsMax);
}

export async function listEvents(tx: Executor, scope: Scope, page: Page & { type: string | null }) {
  return tx.select().from(webhookEvents)
    .where(and(
      eq(webhookEvents.accountId, scope.accountId),
      eq(webhookEvents.environment, scope.environment),
      page.type === null ? undefined : eq(webhookEvents.type, page.type),
      before(webhookEvents.sequence, page),
    ))
    .orderBy(desc(webhookEvents.sequence))
    .limit(page.limit + 1);
}

export async function findEvent(tx: Executor, scope: Scope, eventId: string) {
  const [row] = await tx.select().from(webhookEvents).where(and(
    eq(webhookEvents.accountId, scope.accountId),
    eq(webhookEvents.environment, scope.environment),
    eq(webhookEvents.id, eventId),
  )).limit(1);
  return row ?? null;
}

export async function insertDeliveryRow(
  tx: Executor,
  row: { id: string; endpointId: string; eventId: string },
) {
  const [inserted] = await tx.insert(webhookDeliveries).values(row).returning();
  return inserted!;
}

// The database's now() plus some seconds: the clock that stamps every other row.
export async function databaseNowPlus(tx: Executor, seconds: number): Promise<Date> {
  const result = await tx.execute<{ at: string }>(
    sql`select (now() + make_interval(secs => ${seconds}))::text as at`);
  return new Date(result.rows[0]!.at);
}
