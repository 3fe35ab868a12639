import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../db/connect.ts';
import { insertJsonRows } from '../db/json-rows.ts';
import { executePrepared } from '../db/prepared.ts';
import { idempotencyClaims } from '../db/tables.ts';

type ClaimKey = { apiKeyId: string; namespace: string; referenceId: string };
type ClaimRow = typeof idempotencyClaims.$inferSelect;

// Claims a reference id. A concurrent claim of the same id waits on the unique index until the
// first transaction ends, then gets nothing back; that wait is what makes the claim race-safe.
export async function insertClaim(
  tx: Executor,
  claim: ClaimKey & { id: string; fingerprint: string },
): Promise<boolean> {
  const rows = await tx
    .insert(idempotencyClaims)
    .values(claim)
    .onConflictDoNothing()
    .returning({ id: idempotencyClaims.id });
  return rows.length === 1;
}

// Claims several reference ids in one statement; returns the ids of the claims inserted. Each
// claim of another transaction waits as insertClaim does.
export async function insertClaims(
  tx: Executor,
  claims: Array<ClaimKey & { id: string; fingerprint: string }>,
): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  // As one JSON parameter (db/json-rows.ts), like insertClaimsWithResponses: a batch of accepted
  // requests claims a reference id each.
  const result = await executePrepared<{ id: string }>(tx, insertJsonRows(idempotencyClaims,
    claims.map(({ id, apiKeyId, namespace, referenceId, fingerprint }) =>
      ({ id, apiKeyId, namespace, referenceId, fingerprint })),
    { onConflictDoNothing: true, returning: 'id' }));
  return new Set(result.rows.map((row) => row.id));
}

// Claims several reference ids in one statement with the response each will answer, for work
// whose response is known before it is done; returns the ids of the claims inserted. Each claim
// of another transaction waits as insertClaim does.
export async function insertClaimsWithResponses(
  tx: Executor,
  claims: Array<ClaimKey & { id: string; fingerprint: string;
    response: { status: number; body: unknown } }>,
): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const result = await executePrepared<{ id: string }>(tx, insertJsonRows(idempotencyClaims,
    claims.map(({ response, ...claim }) => ({ ...claim, responseStatus: response.status,
      responseBody: response.body })), { onConflictDoNothing: true, returning: 'id' }));
  return new Set(result.rows.map((row) => row.id));
}

export async function findClaim(tx: Executor, key: ClaimKey): Promise<ClaimRow | null> {
  const [row] = await tx
    .select()
    .from(idempotencyClaims)
    .where(
      and(
        eq(idempotencyClaims.apiKeyId, key.apiKeyId),
        eq(idempotencyClaims.namespace, key.namespace),
        eq(idempotencyClaims.referenceId, key.referenceId),
      ),
    )
    .limit(1);
  return row ?? null;
}

export async function storeResponse(
  tx: Executor,
  claimId: string,
  response: { status: number; body: unknown },
): Promise<number> {
  const rows = await tx
    .update(idempotencyClaims)
    .set({
      responseStatus: response.status,
      responseBody: sql`${JSON.stringify(response.body)}::jsonb`,
    })
    .where(eq(idempotencyClaims.id, claimId))
    .returning({ id: idempotencyClaims.id });
  return rows.length;
}

// The claims whose (key, namespace, reference id) is one of `keys`.
function withKeyIn(keys: readonly ClaimKey[]): SQL {
  const wanted = sql.join(keys.map((key) =>
    sql`(${key.apiKeyId}, ${key.namespace}, ${key.referenceId})`), sql`, `);
  return sql`(${idempotencyClaims.apiKeyId}, ${idempotencyClaims.namespace},
    ${idempotencyClaims.referenceId}) in (${wanted})`;
}

// The claims of many reference ids in one round trip; absent ones are left out.
export async function findClaims(tx: Executor, keys: readonly ClaimKey[]): Promise<ClaimRow[]> {
  if (keys.length === 0) return [];
  return tx.select().from(idempotencyClaims).where(withKeyIn(keys));
}

// Removes claims made earlier in the same transaction, for requests refused after their claim
// (a batch member whose charge was refused): as if they had never been made, so a retry of the
// same request is a first request and a claim waiting on one of them goes ahead.
export async function deleteClaims(tx: Executor, keys: readonly ClaimKey[]): Promise<void> {
  if (keys.length === 0) return;
  await tx.delete(idempotencyClaims).where(withKeyIn(keys));
}
