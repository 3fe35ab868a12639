import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../domain/canonical-json.ts';
import { newId } from '../../domain/ids.ts';
import { createBatcher } from '../batcher.ts';
import type { Db, Executor, Tx } from '../db/connect.ts';
import { ApiError } from '../errors.ts';
import * as store from './store.ts';

// `Service-Client-Reference-Id` as docs/idempotency.md describes it, one behaviour per area:
// - neverReusable (tax invoices): once used with a key, any further request with it is
//   400 INVALID_REQUEST, whatever its content or endpoint.
// - replayOrConflict (cash receipts, document issuance): the same content and request type
//   replays the stored response; anything else is 409 IDEMPOTENCY_CONFLICT.
// The claim is inserted in the caller's transaction, together with the work it guards, so a
// request that fails leaves no claim and a committed claim always has its response.

export const REFERENCE_ID_LENGTH_MAX = 255;

const IDEMPOTENCY_NAMESPACES = {
  taxInvoice: 'neverReusable',
  cashReceipt: 'replayOrConflict',
  document: 'replayOrConflict',
  // The confirmation tokens of the MCP server (docs/mcp.md): each is used once.
  mcpConfirmation: 'neverReusable',
  // Drafts saved together from an uploaded file in the dashboard: the same import sent again
  // answers the drafts it made.
  draftImport: 'replayOrConflict',
} as const;

export type IdempotencyNamespace = keyof typeof IDEMPOTENCY_NAMESPACES;
export type StoredResponse = { status: number; body: unknown };
export type IdempotentResult = StoredResponse & { replayed: boolean };

type Claim = {
  apiKeyId: string;
  namespace: IdempotencyNamespace;
  referenceId: string;
  fingerprint: string;
};

// A request's fingerprint: the request type (method and route) and its body in canonical JSON
// (RFC 8785), so key order and whitespace do not make two equal requests differ.
export function requestFingerprint(input: { method: string; route: string; body: unknown }) {
  const canonical = canonicalJson({
    method: input.method.toUpperCase(),
    route: input.route,
    body: input.body ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

// Counts characters (code points), as the header schema and the database check do, so an id
// with emoji is measured the same everywhere.
export function isValidReferenceId(referenceId: string): boolean {
  const characterCount = [...referenceId].length;
  return (
    characterCount >= 1 &&
    characterCount <= REFERENCE_ID_LENGTH_MAX &&
    referenceId.trim().length > 0
  );
}

export const REFERENCE_ID_REUSED_MESSAGE =
  'Service-Client-Reference-Id was already used with this API key.';

// Gives each claim of a batch an id, in the order sent, and keeps the claims to insert: an
// earlier claim of the same key, namespace and reference id takes it, and a later one gets no id
// (it was not this request's to make).
function withClaimIds<C extends Claim>(claims: C[]) {
  const seen = new Set<string>();
  const fresh: Array<C & { id: string }> = [];
  const idOf = claims.map((claim) => {
    const key = JSON.stringify([claim.apiKeyId, claim.namespace, claim.referenceId]);
    if (seen.has(key)) return null;
    seen.add(key);
    const id = newId('idempotencyClaim');
    fresh.push({ ...claim, id });
    return id;
  });
  return { idOf, fresh };
}

// Claims many never-reusable reference ids (tax invoices) in one statement of the caller's
// transaction, for requests whose work is recorded together. Answers, per claim, whether it is
// now this request's: false when it was used before, by a committed request or by an earlier
// claim of the same call.
export async function claimNeverReusable(tx: Tx, claims: Claim[]): Promise<boolean[]> {
  for (const claim of claims) {
    assert.equal(IDEMPOTENCY_NAMESPACES[claim.namespace], 'neverReusable');
    assert(isValidReferenceId(claim.referenceId), 'reference id must be validated by the route');
  }
  const { idOf, fresh } = withClaimIds(claims);
  const inserted = await store.insertClaims(tx, fresh);
  return idOf.map((id) => id !== null && inserted.has(id));
}

// Claims many replay-or-conflict reference ids in one statement of the caller's transaction,
// each stored with the response its request answers (known before the work is done), for
// requests whose work is recorded together. Answers, per claim, whether it is now this
// request's: false when the reference id was taken, by a committed request (a concurrent one is
// waited for) or by an earlier claim of the same call. A request whose claim was taken learns
// after the transaction, with findReplay, whether it replays or conflicts. Claims are inserted
// in one order (key, reference id) so that two such statements never wait on each other.
export async function claimReplayable(tx: Tx, claims: Array<Claim & {
  response: StoredResponse }>): Promise<boolean[]> {
  for (const claim of claims) {
    assert.equal(IDEMPOTENCY_NAMESPACES[claim.namespace], 'replayOrConflict');
    assert(isValidReferenceId(claim.referenceId), 'reference id must be validated by the route');
    assert.equal(claim.fingerprint.length, 64);
  }
  const { idOf, fresh } = withClaimIds(claims);
  fresh.sort((a, b) => (a.apiKeyId === b.apiKeyId
    ? (a.referenceId < b.referenceId ? -1 : a.referenceId > b.referenceId ? 1 : 0)
    : (a.apiKeyId < b.apiKeyId ? -1 : 1)));
  const inserted = await store.insertClaimsWithResponses(tx, fresh);
  return idOf.map((id) => id !== null && inserted.has(id));
}

// Takes back claims made by claimReplayable earlier in the same transaction, for requests
// refused after their claim (store.deleteClaims).
export async function releaseClaims(tx: Tx, claims: readonly Claim[]): Promise<void> {
  await store.deleteClaims(tx, claims);
}

export async function runIdempotent(
  tx: Tx,
  claim: Claim,
  work: (tx: Tx) => Promise<StoredResponse>,
): Promise<IdempotentResult> {
  assert(isValidReferenceId(claim.referenceId), 'reference id must be validated by the route');
  assert.equal(claim.fingerprint.length, 64);
  const claimId = newId('idempotencyClaim');
  const claimed = await store.insertClaim(tx, { ...claim, id: claimId });
  if (claimed) {
    const response = await work(tx);
    // A never-reusable claim is never replayed, so its response is not kept.
    if (IDEMPOTENCY_NAMESPACES[claim.namespace] !== 'neverReusable') {
      assert.equal(await store.storeResponse(tx, claimId, response), 1);
    }
    return { ...response, replayed: false };
  }
  const existing = await store.findClaim(tx, claim);
  assert(existing !== null, 'a conflicting claim must be visible once its transaction ended');
  if (IDEMPOTENCY_NAMESPACES[claim.namespace] === 'neverReusable') {
    throw new ApiError('INVALID_REQUEST', REFERENCE_ID_REUSED_MESSAGE);
  }
  if (existing.fingerprint !== claim.fingerprint) throw new ApiError('IDEMPOTENCY_CONFLICT');
  assert(existing.responseStatus !== null, 'a committed claim always has its response');
  return { status: existing.responseStatus, body: existing.responseBody, replayed: true };
}

// Whether a reference id is taken, for a request that only asks what its claim would answer
// (the validation endpoints) and claims nothing.
export async function isReferenceIdClaimed(executor: Executor,
  key: Pick<Claim, 'apiKeyId' | 'namespace' | 'referenceId'>): Promise<boolean> {
  return (await store.findClaim(executor, key)) !== null;
}

// Claims a value once per key, outside any other work: true the first time, false after. The
// MCP server's confirmation tokens are used once this way, in every process that shares the
// database.
export async function claimOnce(db: Db, claim: Claim): Promise<boolean> {
  const [claimed] = await db.transaction((tx) => claimNeverReusable(tx, [claim]));
  return claimed === true;
}

// The stored answer of a claim made before, looked up before a request does any work of its own
// (validation that depends on the day, an issuer lookup, a charge): a replay must answer what
// the first request answered, whatever changed since. Null when the reference id is free (or
// its claim is still in flight: runIdempotent then waits for it). Throws 409
// IDEMPOTENCY_CONFLICT for another request's content or type. replayOrConflict areas only.
export async function findReplay(executor: Executor, claim: Claim):
  Promise<IdempotentResult | null> {
  return replayOf(claim, await store.findClaim(executor, claim));
}

function replayOf(claim: Claim, existing: Awaited<ReturnType<typeof store.findClaim>>):
  IdempotentResult | null {
  assert.equal(IDEMPOTENCY_NAMESPACES[claim.namespace], 'replayOrConflict');
  if (existing === null) return null;
  if (existing.fingerprint !== claim.fingerprint) throw new ApiError('IDEMPOTENCY_CONFLICT');
  assert(existing.responseStatus !== null, 'a committed claim always has its response');
  return { status: existing.responseStatus, body: existing.responseBody, replayed: true };
}

const REPLAY_LOOKUPS_IN_FLIGHT_MAX = 2;
const REPLAY_LOOKUPS_PER_BATCH_MAX = 200;

const claimKeyString = (key: { apiKeyId: string; namespace: string; referenceId: string }) =>
  JSON.stringify([key.apiKeyId, key.namespace, key.referenceId]);

// findReplay for the hot path: every request of a replayOrConflict area looks its reference id
// up first, and concurrent lookups share one query (platform/batcher.ts). Each answers exactly
// what findReplay would, from a query that started after it was asked.
export function createReplayFinder(db: Executor) {
  const find = createBatcher<Claim, IdempotentResult | null>({
    inFlightMax: REPLAY_LOOKUPS_IN_FLIGHT_MAX,
    itemsPerBatchMax: REPLAY_LOOKUPS_PER_BATCH_MAX,
    async run(claims) {
      const rows = new Map((await store.findClaims(db, claims))
        .map((row) => [claimKeyString(row), row]));
      // A conflict rejects its own lookup only: the batcher rejects an item answered with an
      // Error.
      return claims.map((claim) => {
        try {
          return replayOf(claim, rows.get(claimKeyString(claim)) ?? null);
        } catch (error) {
          return error as never;
        }
      });
    },
  });
  return find;
}
