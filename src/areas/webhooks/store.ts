import {
  and, asc, desc, eq, gt, inArray, isNotNull, lt, or, sql, type Column, type SQL,
} from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import { insertJsonRows } from '../../platform/db/json-rows.ts';
import { executePrepared } from '../../platform/db/prepared.ts';
import {
  webhookDeliveries,
  webhookDeliveryAttempts,
  webhookEndpoints,
  webhookEvents,
} from './tables.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Scope } from '../../platform/scope.ts';

// Every statement on the webhook tables: the management API's (endpoints of one scope, their
// delivery log, the events of the scope; each bounded to the caller's account and environment),
// then recording events with their deliveries and the delivery worker's.

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type EventRow = typeof webhookEvents.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

// An account has at most this many endpoints per environment, so one event fans out to at
// most this many deliveries in the transaction that records it.
export const ENDPOINTS_PER_SCOPE_MAX = 20;

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

// With `forUpdate`, the row stays locked until the transaction ends, so changes that read it
// first (a secret rotation) take turns.
export async function findEndpoint(tx: Executor, scope: Scope, endpointId: string,
  options = { forUpdate: false }) {
  const query = tx.select().from(webhookEndpoints)
    .where(and(inScope(scope), eq(webhookEndpoints.id, endpointId))).limit(1);
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

type EndpointChanges = Partial<Pick<EndpointRow,
  'url' | 'eventTypes' | 'description' | 'enabled' | 'sealedSecret' | 'sealedPreviousSecret' |
  'plaintextSecret' | 'plaintextPreviousSecret' | 'previousSecretExpiresAt'>>;

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

// The scope's failed deliveries, the latest first, with their endpoint's URL (the dashboard's
// home page). A partial index holds failed deliveries only.
export async function listRecentFailedDeliveries(tx: Executor, scope: Scope, limit: number) {
  return tx.select({ delivery: webhookDeliveries, eventType: webhookEvents.type,
    url: webhookEndpoints.url })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.status, 'failed'), inScope(scope)))
    .orderBy(desc(webhookDeliveries.sequence))
    .limit(limit);
}

// The attempts of the given deliveries; each has at most DELIVERY_ATTEMPTS_MAX.
export async function listAttempts(tx: Executor, deliveryIds: string[], attemptsMax: number) {
  if (deliveryIds.length === 0) return [];
  return tx.select().from(webhookDeliveryAttempts)
    .where(inArray(webhookDeliveryAttempts.deliveryId, deliveryIds))
    .orderBy(webhookDeliveryAttempts.deliveryId, webhookDeliveryAttempts.attemptNumber)
    .limit(deliveryIds.length * attemptsMax);
}

// The scope's events of the given types.
export async function listEvents(
  tx: Executor,
  scope: Scope,
  page: Page & { types: readonly string[] },
) {
  return tx.select().from(webhookEvents)
    .where(and(
      eq(webhookEvents.accountId, scope.accountId),
      eq(webhookEvents.environment, scope.environment),
      inArray(webhookEvents.type, [...page.types]),
      before(webhookEvents.sequence, page),
    ))
    .orderBy(desc(webhookEvents.sequence))
    .limit(page.limit + 1);
}

// The document an event is about: its `issuanceKey`, or for an amendment the original's. The
// same expression is indexed (tables.ts), so a document's events are found without reading the
// scope's others.
const EVENT_DOCUMENT_KEY = sql`coalesce(${webhookEvents.data}->>'issuanceKey',
  ${webhookEvents.data}->>'originalIssuanceKey')`;

// The events of the scope about one document, oldest first, at most `limit`.
export async function findEventsAbout(tx: Executor, scope: Scope, issuanceKey: string,
  limit: number) {
  return tx.select().from(webhookEvents).where(and(
    eq(webhookEvents.accountId, scope.accountId),
    eq(webhookEvents.environment, scope.environment),
    sql`${EVENT_DOCUMENT_KEY} = ${issuanceKey}`,
  )).orderBy(webhookEvents.sequence).limit(limit);
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
  const [inserted] = await insertDeliveries(tx, [row]);
  return inserted!;
}

// The database's now() plus some seconds: the clock that stamps every other row.
export async function databaseNowPlus(tx: Executor, seconds: number): Promise<Date> {
  const result = await tx.execute<{ at: string }>(
    sql`select (now() + make_interval(secs => ${seconds}))::text as at`);
  return new Date(result.rows[0]!.at);
}

// Events are numbered in the order given.
export async function insertEvents(
  tx: Executor,
  rows: Array<{ id: string; scope: Scope; type: string; data: unknown }>,
): Promise<void> {
  if (rows.length === 0) return;
  // As one parameter (platform/db/json-rows.ts): a batch of documents records one event each.
  await executePrepared(tx, insertJsonRows(webhookEvents, rows.map((row) => ({
    id: row.id,
    accountId: row.scope.accountId,
    environment: row.scope.environment,
    type: row.type,
    data: row.data,
  }))));
}

type SubscribedEndpoint = { id: string; scope: Scope; eventTypes: string[] };

// The enabled endpoints of these scopes that subscribe to any of these event types, oldest first.
export async function findSubscribedEndpoints(
  tx: Executor,
  scopes: readonly Scope[],
  types: readonly string[],
): Promise<SubscribedEndpoint[]> {
  // Arrays, not lists, so the text is the same for any number of scopes and types and runs as
  // one prepared statement (platform/db/prepared.ts): every batch of documents asks this.
  const { rows } = await executePrepared<{ id: string; account_id: string; environment: string;
    event_types: string[] }>(tx, sql`select e.id, e.account_id, e.environment, e.event_types
      from webhook_endpoints e
     where (e.account_id, e.environment) in (
             select * from unnest(${sql.param(scopes.map((scope) => scope.accountId))}::text[],
                                  ${sql.param(scopes.map((scope) => scope.environment))}::text[]))
       and e.enabled
       and e.event_types && ${sql.param([...types])}::text[]
     order by e.sequence`);
  return rows.map((row) => ({ id: row.id, eventTypes: row.event_types,
    scope: { accountId: row.account_id, environment: row.environment as Environment } }));
}

export async function insertDeliveries(
  tx: Executor,
  rows: Array<{ id: string; endpointId: string; eventId: string }>,
): Promise<DeliveryRow[]> {
  if (rows.length === 0) return [];
  return tx.insert(webhookDeliveries).values(rows).returning();
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

type NewAttemptRow = typeof webhookDeliveryAttempts.$inferInsert;

// Records an attempt once; false when this attempt number is already recorded (a job that ran
// twice).
export async function insertAttempt(tx: Executor, row: NewAttemptRow): Promise<boolean> {
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

// Secrets at rest (secrets-at-rest.ts): rows still holding a plain-text secret, and the sealed
// secrets `etax reseal` seals again. Both page by id.

const afterId = (id: string | null) => (id === null ? undefined : gt(webhookEndpoints.id, id));

export async function listPlaintextSecrets(tx: Executor, after: string | null, limit: number) {
  return tx.select({
    id: webhookEndpoints.id,
    plaintextSecret: webhookEndpoints.plaintextSecret,
    plaintextPreviousSecret: webhookEndpoints.plaintextPreviousSecret,
  }).from(webhookEndpoints)
    .where(and(afterId(after), or(isNotNull(webhookEndpoints.plaintextSecret),
      isNotNull(webhookEndpoints.plaintextPreviousSecret))))
    .orderBy(asc(webhookEndpoints.id)).limit(limit);
}

type PlaintextSecrets = Awaited<ReturnType<typeof listPlaintextSecrets>>[number];

// Replaces a row's plain-text secrets with their sealed forms, where the row still holds the
// plain text that was read (another process may have sealed it, or an API rotation replaced it).
export async function sealPlaintextSecrets(
  tx: Executor,
  read: PlaintextSecrets,
  sealed: { sealedSecret?: string; sealedPreviousSecret?: string },
) {
  await tx.update(webhookEndpoints)
    .set({ ...sealed, plaintextSecret: null, plaintextPreviousSecret: null })
    .where(and(
      eq(webhookEndpoints.id, read.id),
      sql`${webhookEndpoints.plaintextSecret} is not distinct from ${read.plaintextSecret}`,
      sql`${webhookEndpoints.plaintextPreviousSecret}
        is not distinct from ${read.plaintextPreviousSecret}`,
    ));
}

const SEALED_COLUMNS = {
  sealedSecret: webhookEndpoints.sealedSecret,
  sealedPreviousSecret: webhookEndpoints.sealedPreviousSecret,
};
export type SealedSecretColumn = keyof typeof SEALED_COLUMNS;

export async function listSealedSecrets(
  tx: Executor,
  column: SealedSecretColumn,
  after: string | null,
  limit: number,
) {
  const rows = await tx.select({ key: webhookEndpoints.id, box: SEALED_COLUMNS[column] })
    .from(webhookEndpoints)
    .where(and(afterId(after), isNotNull(SEALED_COLUMNS[column])))
    .orderBy(asc(webhookEndpoints.id)).limit(limit);
  return rows.map((row) => ({ key: row.key, box: row.box! }));
}

// Replaces one sealed secret where the row still holds the box that was read.
export async function replaceSealedSecret(
  tx: Executor,
  column: SealedSecretColumn,
  id: string,
  box: string,
  resealed: string,
) {
  await tx.update(webhookEndpoints).set({ [column]: resealed })
    .where(and(eq(webhookEndpoints.id, id), eq(SEALED_COLUMNS[column], box)));
}
