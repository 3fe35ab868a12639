import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Environment } from '../../platform/accounts/keys.ts';
import { timestampPosition } from '../../platform/cursor-timestamps.ts';
import type { Executor } from '../../platform/db/connect.ts';
import type { Scope } from '../../platform/scope.ts';
import { connectionLinks, connections } from './tables.ts';

export type ConnectionRow = typeof connections.$inferSelect;
export type ConnectionKind = 'HOMETAX' | 'BANK_ACCOUNT';

const inScope = (scope: Scope) =>
  and(eq(connections.accountId, scope.accountId), eq(connections.environment, scope.environment));

export async function listConnections(tx: Executor, scope: Scope, kind?: ConnectionKind) {
  return tx.select().from(connections)
    .where(and(inScope(scope), kind === undefined ? undefined : eq(connections.kind, kind)))
    .orderBy(asc(connections.createdAt), asc(connections.id));
}

// A page of the scope's connections, oldest first, each with its position for the next page's
// cursor (src/platform/cursor-timestamps.ts).
export async function listConnectionsPage(tx: Executor, scope: Scope, input: {
  kind?: ConnectionKind; after?: { position: string; id: string }; limit: number }) {
  const { after } = input;
  return tx.select({ row: connections, position: timestampPosition(connections.createdAt) })
    .from(connections)
    .where(and(inScope(scope),
      input.kind === undefined ? undefined : eq(connections.kind, input.kind),
      after === undefined ? undefined
        : sql`(${connections.createdAt}, ${connections.id}) >
              (${after.position}::timestamptz, ${after.id})`))
    .orderBy(asc(connections.createdAt), asc(connections.id))
    .limit(input.limit);
}

export async function findConnection(tx: Executor, scope: Scope, id: string) {
  const [row] = await tx.select().from(connections)
    .where(and(inScope(scope), eq(connections.id, id))).limit(1);
  return row ?? null;
}

// Inserts the connection, or replaces the credentials and state of the one that reaches the same
// subject. The id of a replaced connection stays, so it is sealed again with its own id.
export async function upsertConnection(tx: Executor, row: typeof connections.$inferInsert) {
  const [saved] = await tx.insert(connections).values(row)
    .onConflictDoUpdate({
      target: [connections.accountId, connections.environment, connections.kind,
        connections.subject],
      set: { method: row.method, displayName: row.displayName, state: row.state,
        failureCode: row.failureCode ?? null, failureMessage: row.failureMessage ?? null,
        sealedCredentials: row.sealedCredentials, connectedAt: row.connectedAt ?? null,
        maskedAccountNumber: row.maskedAccountNumber ?? null,
        updatedAt: sql`now()` },
    })
    .returning();
  return saved!;
}

// The scope's connection of `kind` whose subject is one of `subjects` (a bank account's digests
// under every configured key).
export async function findConnectionBySubjects(tx: Executor, scope: Scope,
  kind: ConnectionKind, subjects: string[]) {
  const [row] = await tx.select({ id: connections.id, subject: connections.subject })
    .from(connections)
    .where(and(inScope(scope), eq(connections.kind, kind), inArray(connections.subject, subjects)))
    .limit(1);
  return row ?? null;
}

// Rewrites a subject (a digest under a replaced key) where the row still holds `subject`.
export async function replaceSubject(tx: Executor, id: string, subject: string,
  replacement: string) {
  await tx.update(connections).set({ subject: replacement, updatedAt: sql`now()` })
    .where(and(eq(connections.id, id), eq(connections.subject, subject)));
}

export async function deleteConnection(tx: Executor, scope: Scope, id: string) {
  const [row] = await tx.delete(connections).where(and(inScope(scope), eq(connections.id, id)))
    .returning({ id: connections.id });
  return row !== undefined;
}

export async function recordSync(tx: Executor, id: string, change: { syncedAt: Date } |
  { failureCode: string; failureMessage: string; state: 'FAILED' | 'EXPIRED' }) {
  const set = 'syncedAt' in change
    ? { lastSyncedAt: change.syncedAt, state: 'CONNECTED', failureCode: null,
      failureMessage: null }
    : { state: change.state, failureCode: change.failureCode,
      failureMessage: change.failureMessage };
  await tx.update(connections).set({ ...set, updatedAt: sql`now()` })
    .where(eq(connections.id, id));
}

// The CONNECTED bank account connections of every scope after connection id `after`, in id
// order: what the bank transaction schedule syncs.
export async function connectedBankAccountsAfter(tx: Executor, after: string | null,
  limit: number) {
  return tx.select().from(connections)
    .where(and(eq(connections.kind, 'BANK_ACCOUNT'), eq(connections.state, 'CONNECTED'),
      after === null ? undefined : gt(connections.id, after)))
    .orderBy(asc(connections.id)).limit(limit);
}

// The accounts whose HOMETAX connection reaches one of the businesses, each named by its
// environment and number: one row per account and business.
export async function scopesConnectedTo(tx: Executor,
  businesses: ReadonlyArray<{ environment: Environment; number: string }>) {
  if (businesses.length === 0) return [];
  return tx.select({ accountId: connections.accountId, environment: connections.environment,
    number: connections.subject }).from(connections)
    .where(and(eq(connections.kind, 'HOMETAX'),
      sql`(${connections.environment}, ${connections.subject}) in (${sql.join(businesses.map(
        (business) => sql`(${business.environment}, ${business.number})`), sql`, `)})`));
}

export async function insertLink(tx: Executor, row: typeof connectionLinks.$inferInsert) {
  await tx.insert(connectionLinks).values(row);
}

export async function findLink(tx: Executor, tokenHash: string, options = { forUpdate: false }) {
  const query = tx.select().from(connectionLinks)
    .where(eq(connectionLinks.tokenHash, tokenHash)).limit(1);
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function useLink(tx: Executor, tokenHash: string, at: Date) {
  const [row] = await tx.update(connectionLinks).set({ usedAt: at })
    .where(and(eq(connectionLinks.tokenHash, tokenHash), isNull(connectionLinks.usedAt),
      gt(connectionLinks.expiresAt, at)))
    .returning({ tokenHash: connectionLinks.tokenHash });
  return row !== undefined;
}

// Counts a failed login through the link; returns the count.
export async function countFailedLogin(tx: Executor, tokenHash: string): Promise<number> {
  const [row] = await tx.update(connectionLinks)
    .set({ failedLogins: sql`${connectionLinks.failedLogins} + 1` })
    .where(eq(connectionLinks.tokenHash, tokenHash))
    .returning({ failedLogins: connectionLinks.failedLogins });
  return row?.failedLogins ?? 0;
}

export async function listSealedCredentials(tx: Executor, after: string | null, limit: number) {
  return tx.select({ key: connections.id, box: connections.sealedCredentials })
    .from(connections)
    .where(after === null ? undefined : gt(connections.id, after))
    .orderBy(asc(connections.id)).limit(limit);
}

export async function replaceSealedCredentials(tx: Executor, id: string, box: string,
  resealed: string) {
  await tx.update(connections).set({ sealedCredentials: resealed })
    .where(and(eq(connections.id, id), eq(connections.sealedCredentials, box)));
}

// Bank account connections, after id `after` in id order: what migrateData and `etax reseal`
// walk to keep every subject a digest under the current key.
export async function listBankAccountSubjects(tx: Executor, after: string | null,
  limit: number) {
  return tx.select({ id: connections.id, subject: connections.subject,
    maskedAccountNumber: connections.maskedAccountNumber,
    sealedCredentials: connections.sealedCredentials }).from(connections)
    .where(and(eq(connections.kind, 'BANK_ACCOUNT'),
      after === null ? undefined : gt(connections.id, after)))
    .orderBy(asc(connections.id)).limit(limit);
}

export async function replaceBankAccountSubject(tx: Executor, id: string, subject: string,
  replacement: { subject: string; maskedAccountNumber: string }) {
  await tx.update(connections).set({ ...replacement, updatedAt: sql`now()` })
    .where(and(eq(connections.id, id), eq(connections.subject, subject)));
}
