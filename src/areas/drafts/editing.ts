import { newId } from '../../domain/ids.ts';
import { sequenceCursors } from '../../platform/cursor.ts';
import { ApiError } from '../../platform/errors.ts';
import { requestFingerprint, runIdempotent } from '../../platform/idempotency/claims.ts';
import { mergePatch } from '../../platform/partial-schema.ts';
import type { Caller, Scope } from '../../platform/scope.ts';
import { createBodyChecker } from '../../platform/validation.ts';
import { notEditable, scopeOf, toView, type DraftParts } from './reading.ts';
import type { DraftView } from './schemas.ts';
import * as store from './store.ts';
import type { DraftStatus } from './tables.ts';

// Editing drafts (docs/drafts.md § Saving and changing): saving one or many, reading, listing,
// changing by a JSON merge patch and deleting. Nothing here issues; issuing.ts does.

// The most drafts one import saves, as many as a bulk issues.
const IMPORT_DRAFTS_MAX = 100;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

type Editing = DraftParts & {
  requireSavable(body: unknown): Record<string, unknown>;
};

type SaveInput = { caller: Caller; supplierKey?: string | null | undefined; body: unknown };

function rowOf(caller: Caller, editing: Editing, input: { supplierKey?: string | null;
  body: Record<string, unknown> }, now: Date): store.NewDraftRow {
  return {
    draftId: newId('draft'), accountId: caller.accountId, environment: caller.environment,
    kind: editing.issuance.kind, status: 'DRAFT', supplierKey: input.supplierKey ?? null,
    body: input.body, createdBy: caller.apiKeyId, updatedBy: caller.apiKeyId, createdAt: now,
    updatedAt: now,
  };
}

async function create(editing: Editing, input: SaveInput): Promise<DraftView> {
  const body = editing.requireSavable(input.body);
  const { deps } = editing;
  if (input.supplierKey) await deps.requireSupplier(scopeOf(input.caller), input.supplierKey);
  const row = await store.insertDraft(deps.db, rowOf(input.caller, editing,
    { supplierKey: input.supplierKey, body }, deps.now()));
  return editing.reader.viewOf(input.caller, row);
}

// Many drafts of one issuer saved together (an uploaded file's rows), once per reference id:
// the same import sent again (a double click, a reload) answers the drafts it made and saves
// nothing more; the reference id with other bodies is 409 IDEMPOTENCY_CONFLICT.
async function importMany(editing: Editing, input: { caller: Caller; supplierKey: string;
  bodies: unknown[]; referenceId: string }): Promise<{ draftIds: string[] }> {
  if (input.bodies.length === 0 || input.bodies.length > IMPORT_DRAFTS_MAX) {
    throw new ApiError('INVALID_REQUEST', `An import saves 1 to ${IMPORT_DRAFTS_MAX} drafts.`);
  }
  const bodies = input.bodies.map((body) => editing.requireSavable(body));
  const { deps, issuance } = editing;
  await deps.requireSupplier(scopeOf(input.caller), input.supplierKey);
  const fingerprint = requestFingerprint({ method: 'POST', route: `drafts.${issuance.kind}.import`,
    body: { supplierKey: input.supplierKey, bodies } });
  const now = deps.now();
  const result = await deps.db.transaction((tx) => runIdempotent(tx, {
    apiKeyId: input.caller.apiKeyId, namespace: 'draftImport', referenceId: input.referenceId,
    fingerprint }, async () => {
    const rows = await store.insertDrafts(tx, bodies.map((body) =>
      rowOf(input.caller, editing, { supplierKey: input.supplierKey, body }, now)));
    return { status: 201, body: { draftIds: rows.map((row) => row.draftId) } };
  }));
  return result.body as { draftIds: string[] };
}

// Changes the body by a JSON merge patch and the supplier key when given; with
// `expectedVersion`, only the draft as it was read then (409 DRAFT_CHANGED otherwise).
async function update(editing: Editing, input: { caller: Caller; draftId: string;
  patch?: unknown; supplierKey?: string | null | undefined; expectedVersion?: number }):
  Promise<DraftView> {
  const { deps, reader, issuance: { kind } } = editing;
  const scope = scopeOf(input.caller);
  const row = await reader.requireDraft(scope, input.draftId);
  if (row.status !== 'DRAFT') throw notEditable(row);
  const changedMeanwhile = () => new ApiError('DRAFT_CHANGED', 'The draft was changed by ' +
    'another request since it was read; read it and apply the change again.');
  if (input.expectedVersion !== undefined && input.expectedVersion !== row.version) {
    throw changedMeanwhile();
  }
  if (input.supplierKey) await deps.requireSupplier(scope, input.supplierKey);
  const body = input.patch === undefined ? row.body
    : editing.requireSavable(mergePatch(row.body, input.patch));
  const changed = await store.changeDraft(deps.db, { scope, kind, draftId: row.draftId,
    from: ['DRAFT'], version: row.version }, {
    body, supplierKey: input.supplierKey === undefined ? row.supplierKey : input.supplierKey,
    updatedBy: input.caller.apiKeyId, updatedAt: deps.now() });
  if (changed === null) {
    const current = await reader.requireDraft(scope, input.draftId);
    if (current.status !== 'DRAFT') throw notEditable(current);
    throw changedMeanwhile();
  }
  return reader.viewOf(input.caller, changed);
}

async function remove(editing: Editing, input: { scope: Scope; draftId: string }):
  Promise<void> {
  const { deps, reader, issuance: { kind } } = editing;
  const row = await reader.requireDraft(input.scope, input.draftId);
  if (row.status === 'ISSUED') throw notEditable(row);
  const deleted = await store.deleteDraft(deps.db, { scope: input.scope, kind,
    draftId: row.draftId, from: ['DRAFT', 'SUBMITTED'] });
  if (deleted === null) throw notEditable(await reader.requireDraft(input.scope, input.draftId));
}

export function createDraftEditing(parts: DraftParts) {
  const { deps, issuance: { kind }, reader } = parts;
  const checkSaved = createBodyChecker(parts.issuance.draftBody);
  const listCursors = sequenceCursors(deps.cursors, `drafts.${kind}.list`);
  const editing: Editing = {
    ...parts,
    // A saved body must have the types and sizes issuance requires; the first field that does
    // not is a 400 naming it, as a route's schema would answer.
    requireSavable(body) {
      if (!isObject(body)) throw new ApiError('INVALID_REQUEST', 'body must be object.');
      const message = checkSaved(body);
      if (message !== null) throw new ApiError('INVALID_REQUEST', message);
      return body;
    },
  };
  return {
    create: (input: SaveInput) => create(editing, input),
    importMany: (input: Parameters<typeof importMany>[1]) => importMany(editing, input),
    update: (input: Parameters<typeof update>[1]) => update(editing, input),
    remove: (input: { scope: Scope; draftId: string }) => remove(editing, input),
    async get(input: { caller: Caller; draftId: string }): Promise<DraftView> {
      return reader.viewOf(input.caller,
        await reader.requireDraft(scopeOf(input.caller), input.draftId));
    },
    async list(input: { scope: Scope; statuses?: DraftStatus[] | undefined; limit: number;
      cursor?: string | undefined }) {
      const afterSequence = listCursors.decode(input.scope, input.cursor);
      const rows = await store.listDrafts(deps.db, input.scope, kind,
        { statuses: input.statuses, ...(afterSequence === undefined ? {} : { afterSequence }) },
        input.limit + 1);
      const { page, nextCursor } = listCursors.pageOf(input.scope, rows, input.limit);
      return { drafts: page.map((row) => toView(row, null)), nextCursor };
    },
  };
}
