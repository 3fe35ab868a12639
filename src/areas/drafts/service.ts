import { newId } from '../../domain/ids.ts';
import { sequenceCursors, type PageCursors } from '../../platform/cursor.ts';
import type { Db, Tx } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import type { EventInput } from '../../platform/event-catalogue.ts';
import type { RecordEvents } from '../../platform/events.ts';
import { mergePatch } from '../../platform/partial-schema.ts';
import type { Caller, Scope } from '../../platform/scope.ts';
import { createBodyChecker } from '../../platform/validation.ts';
import type { DraftView } from './schemas.ts';
import * as store from './store.ts';
import type { DraftKind, DraftStatus } from './tables.ts';

// Drafts (docs/drafts.md): issuance request bodies saved, changed, listed, read, deleted and
// issued later, and the approval some accounts require before one is issued. A draft is of one
// kind (a tax invoice or a cash receipt); everything here is the same for both, and what differs
// is the kind's Issuance below, given by the area that issues it. Everything is scoped to the
// caller's account and environment; a draft of another scope is 404 NOT_FOUND.
//
// Issuing a draft runs its issuance exactly as the issue route does, at that moment (the body's
// schema and rules, the deadline and lateness, the supplier's eligibility, the points, the
// reference id), and marks the draft ISSUED in the transaction that records the document: a
// `guard` changes the draft only if it is still in the status and version that was checked, so
// of two concurrent issues one records a document and the other records nothing and is charged
// nothing.


// What a kind's area offers to issue a draft: the checks issue makes, without keeping anything,
// and issue itself with the draft's work in its transaction.
export type DraftIssuance = {
  kind: DraftKind;
  // The issuance body's schema, which a draft must meet to be issued.
  issueBody: object;
  // The draft's own schema (every field optional), which a saved body must meet.
  draftBody: object;
  // Throws the ApiError issuance would answer for this body now.
  preview(input: { caller: Caller; supplierKey: string; body: unknown }): Promise<void>;
  issue(input: { caller: Caller; supplierKey: string; referenceId: string; body: unknown;
    route: string; guard(tx: Tx): Promise<void>;
    onRecorded(tx: Tx, issuanceKey: string): Promise<void> }): Promise<{ issuanceKey: string }>;
  // The route a draft's issue names in its reference id's fingerprint.
  route(draftId: string): string;
  events: { submitted: 'TAX_INVOICE_DRAFT_SUBMITTED' | 'CASH_RECEIPT_DRAFT_SUBMITTED';
    approved: 'TAX_INVOICE_DRAFT_APPROVED' | 'CASH_RECEIPT_DRAFT_APPROVED';
    returned: 'TAX_INVOICE_DRAFT_RETURNED' | 'CASH_RECEIPT_DRAFT_RETURNED' };
};

type ServiceDeps = {
  db: Db;
  now: () => Date;
  cursors: PageCursors;
  recordEvents: RecordEvents;
  // A Supplier-Key given with a draft must name an issuer of the caller's scope (404 if not),
  // as it must on every operation that takes one.
  requireSupplier(scope: Scope, supplierKey: string): Promise<unknown>;
};

const NO_SUCH_DRAFT = 'No draft has this id.';
const RETURN_REASON_LENGTH_MAX = 500;

const scopeOf = (caller: Caller): Scope =>
  ({ accountId: caller.accountId, environment: caller.environment });

function toView(row: store.DraftRow, issueProblems: DraftView['issueProblems']): DraftView {
  return {
    draftId: row.draftId, status: row.status, supplierKey: row.supplierKey, body: row.body,
    issueProblems, issuanceKey: row.issuanceKey, returnReason: row.returnReason,
    createdBy: row.createdBy, createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    submittedAt: row.status === 'SUBMITTED' ? row.submittedAt?.toISOString() ?? null : null,
    issuedAt: row.issuedAt?.toISOString() ?? null,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

// One closure over the draft kind's checks, shared by every operation of a draft.
// eslint-disable-next-line max-lines-per-function -- to be split into editing and issuing
export function createDraftService(deps: ServiceDeps, issuance: DraftIssuance) {
  const { db, kind } = { ...deps, kind: issuance.kind };
  const checkSaved = createBodyChecker(issuance.draftBody);
  const checkComplete = createBodyChecker(issuance.issueBody);
  const listCursors = sequenceCursors(deps.cursors, `drafts.${kind}.list`);

  async function requireDraft(scope: Scope, draftId: string) {
    const row = await store.findDraft(db, scope, kind, draftId);
    if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_DRAFT);
    return row;
  }

  // A saved body must have the types and sizes issuance requires; the first field that does
  // not is a 400 naming it, as a route's schema would answer.
  function requireSavable(body: unknown): Record<string, unknown> {
    if (!isObject(body)) throw new ApiError('INVALID_REQUEST', 'body must be object.');
    const message = checkSaved(body);
    if (message !== null) throw new ApiError('INVALID_REQUEST', message);
    return body;
  }

  // What issuance would refuse now, in the order it checks: the body's schema, the
  // Supplier-Key, then everything issue checks of a well-formed request (one implementation of
  // each rule: the kind's own preview).
  async function problemsOf(caller: Caller, row: store.DraftRow):
    Promise<Array<{ code: string; message: string }>> {
    const problems: Array<{ code: string; message: string }> = [];
    const message = checkComplete(row.body);
    if (message !== null) problems.push({ code: 'INVALID_REQUEST', message });
    if (row.supplierKey === null) {
      problems.push({ code: 'INVALID_REQUEST', message: 'headers.supplier-key is required: ' +
        'give the draft a Supplier-Key before issuing it.' });
    }
    if (problems.length > 0) return problems;
    try {
      await issuance.preview({ caller, supplierKey: row.supplierKey!, body: row.body });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      problems.push({ code: error.code, message: error.message });
    }
    return problems;
  }

  async function viewOf(caller: Caller, row: store.DraftRow) {
    return toView(row, row.status === 'ISSUED' ? null : await problemsOf(caller, row));
  }

  async function firstProblemThrows(caller: Caller, row: store.DraftRow) {
    const [problem] = await problemsOf(caller, row);
    if (problem !== undefined) {
      throw new ApiError(problem.code as ApiError['code'], problem.message);
    }
  }

  const event = (scope: Scope, input: EventInput) => [{ scope, event: input }];

  async function create(input: { caller: Caller; supplierKey?: string | null | undefined;
    body: unknown }): Promise<DraftView> {
    const body = requireSavable(input.body);
    if (input.supplierKey) await deps.requireSupplier(scopeOf(input.caller), input.supplierKey);
    const now = deps.now();
    const row = await store.insertDraft(db, {
      draftId: newId('draft'), accountId: input.caller.accountId,
      environment: input.caller.environment, kind, status: 'DRAFT',
      supplierKey: input.supplierKey ?? null, body, createdBy: input.caller.apiKeyId,
      updatedBy: input.caller.apiKeyId, createdAt: now, updatedAt: now,
    });
    return viewOf(input.caller, row);
  }

  async function get(input: { caller: Caller; draftId: string }): Promise<DraftView> {
    return viewOf(input.caller, await requireDraft(scopeOf(input.caller), input.draftId));
  }

  async function list(input: { scope: Scope; statuses?: DraftStatus[] | undefined;
    limit: number; cursor?: string | undefined }) {
    const afterSequence = listCursors.decode(input.scope, input.cursor);
    const rows = await store.listDrafts(db, input.scope, kind,
      { statuses: input.statuses, ...(afterSequence === undefined ? {} : { afterSequence }) },
      input.limit + 1);
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    return {
      drafts: page.map((row) => toView(row, null)),
      nextCursor: rows.length > input.limit && last
        ? listCursors.encode(input.scope, last.sequence) : null,
    };
  }

  const notEditable = (row: store.DraftRow) => new ApiError('DRAFT_NOT_EDITABLE',
    `The draft is ${row.status}; only a DRAFT can be changed or deleted` +
    (row.status === 'SUBMITTED' ? ': an approver sends it back to make it editable.' : '.'));

  // Changes the body by a JSON merge patch and the supplier key when given.
  async function update(input: { caller: Caller; draftId: string; patch?: unknown;
    supplierKey?: string | null | undefined }): Promise<DraftView> {
    const scope = scopeOf(input.caller);
    const row = await requireDraft(scope, input.draftId);
    if (row.status !== 'DRAFT') throw notEditable(row);
    if (input.supplierKey) await deps.requireSupplier(scope, input.supplierKey);
    const body = input.patch === undefined ? row.body
      : requireSavable(mergePatch(row.body, input.patch));
    const changed = await store.changeDraft(db, { scope, kind, draftId: row.draftId,
      from: ['DRAFT'], version: row.version }, {
      body, supplierKey: input.supplierKey === undefined ? row.supplierKey : input.supplierKey,
      updatedBy: input.caller.apiKeyId, updatedAt: deps.now() });
    if (changed === null) {
      const current = await requireDraft(scope, input.draftId);
      if (current.status !== 'DRAFT') throw notEditable(current);
      throw new ApiError('DRAFT_CHANGED', 'The draft was changed by another request at the ' +
        'same time; read it and apply the change again.');
    }
    return viewOf(input.caller, changed);
  }

  async function remove(input: { scope: Scope; draftId: string }): Promise<void> {
    const row = await requireDraft(input.scope, input.draftId);
    if (row.status === 'ISSUED') throw notEditable(row);
    const deleted = await store.deleteDraft(db, { scope: input.scope, kind,
      draftId: row.draftId, from: ['DRAFT', 'SUBMITTED'] });
    if (deleted === null) throw notEditable(await requireDraft(input.scope, input.draftId));
  }

  // An issued draft answers the same issue again (the same caller and reference id) and
  // refuses any other.
  function issuedAgain(row: store.DraftRow, caller: Caller, referenceId: string) {
    if (row.issuedBy === caller.apiKeyId && row.issueReferenceId === referenceId) {
      return toView(row, null);
    }
    throw new ApiError('DRAFT_ALREADY_ISSUED', `The draft was already issued as ` +
      `${row.issuanceKey ?? 'a document'}; a draft is issued once.`);
  }

  // Marks the draft SUBMITTED (from DRAFT) with its event; a submitted draft stays as it is.
  async function submitRow(caller: Caller, row: store.DraftRow): Promise<store.DraftRow> {
    if (row.status === 'SUBMITTED') return row;
    await firstProblemThrows(caller, row);
    const scope = scopeOf(caller);
    const now = deps.now();
    const submitted = await db.transaction(async (tx) => {
      const changed = await store.changeDraft(tx, { scope, kind, draftId: row.draftId,
        from: ['DRAFT'], version: row.version }, { status: 'SUBMITTED', submittedAt: now,
        submittedBy: caller.apiKeyId, updatedAt: now, updatedBy: caller.apiKeyId });
      if (changed === null) return null;
      await deps.recordEvents(tx, event(scope, { type: issuance.events.submitted,
        data: { draftId: row.draftId, actor: caller.apiKeyId } }));
      return changed;
    });
    if (submitted === null) {
      throw new ApiError('DRAFT_CHANGED', 'The draft was changed by another request at the ' +
        'same time; read it and try again.');
    }
    return submitted;
  }

  // Issues the draft now, from one of `from`; `approved` when an approver's approval issues it.
  async function issueNow(caller: Caller, row: store.DraftRow, referenceId: string,
    from: readonly DraftStatus[], approved: boolean): Promise<DraftView> {
    await firstProblemThrows(caller, row);
    const scope = scopeOf(caller);
    const target = { scope, kind, draftId: row.draftId };
    const guard = async (tx: Tx) => {
      const now = deps.now();
      const changed = await store.changeDraft(tx, { ...target, from, version: row.version },
        { status: 'ISSUED', issuedAt: now, issuedBy: caller.apiKeyId,
          issueReferenceId: referenceId, updatedAt: now, updatedBy: caller.apiKeyId });
      if (changed !== null) return;
      const current = await store.findDraft(tx, scope, kind, row.draftId);
      if (current === null) throw new ApiError('NOT_FOUND', NO_SUCH_DRAFT);
      // Issued meanwhile: refused here, and answered as a repeat below when it was this one.
      if (current.status === 'ISSUED') {
        throw new ApiError('DRAFT_ALREADY_ISSUED', 'The draft was already issued; a draft is ' +
          'issued once.');
      }
      throw new ApiError('DRAFT_CHANGED');
    };
    const onRecorded = async (tx: Tx, issuanceKey: string) => {
      await store.changeDraft(tx, { ...target, from: ['ISSUED'] }, { issuanceKey });
      if (approved) {
        await deps.recordEvents(tx, event(scope, { type: issuance.events.approved,
          data: { draftId: row.draftId, actor: caller.apiKeyId, issuanceKey } }));
      }
    };
    try {
      await issuance.issue({ caller, supplierKey: row.supplierKey!, referenceId,
        body: row.body, route: issuance.route(row.draftId), guard, onRecorded });
    } catch (error) {
      // The same issue made at the same moment, which recorded the document first: answer it.
      if (error instanceof ApiError) {
        const current = await store.findDraft(db, scope, kind, row.draftId);
        if (current?.status === 'ISSUED' && current.issuedBy === caller.apiKeyId &&
          current.issueReferenceId === referenceId) return toView(current, null);
      }
      throw error;
    }
    return toView(await requireDraft(scope, row.draftId), null);
  }

  async function approvalRequired(accountId: string): Promise<boolean> {
    return store.findApprovalRequired(db, accountId);
  }

  // `:issue` of the API. With an API key, while the account requires approval, the draft is
  // submitted instead and the answer is 403 DRAFT_APPROVAL_REQUIRED; `asApprover` is the
  // dashboard's issue by a person who may issue.
  async function issue(input: { caller: Caller; draftId: string; referenceId: string;
    asApprover?: boolean }): Promise<DraftView> {
    const scope = scopeOf(input.caller);
    const row = await requireDraft(scope, input.draftId);
    if (row.status === 'ISSUED') return issuedAgain(row, input.caller, input.referenceId);
    if (!input.asApprover && await approvalRequired(input.caller.accountId)) {
      await submitRow(input.caller, row);
      throw new ApiError('DRAFT_APPROVAL_REQUIRED');
    }
    return issueNow(input.caller, row, input.referenceId, ['DRAFT', 'SUBMITTED'],
      row.status === 'SUBMITTED');
  }

  // The dashboard: a person who may not issue submits a draft for approval.
  async function submit(input: { caller: Caller; draftId: string }): Promise<DraftView> {
    const row = await requireDraft(scopeOf(input.caller), input.draftId);
    if (row.status === 'ISSUED') throw notEditable(row);
    return toView(await submitRow(input.caller, row), null);
  }

  const notSubmitted = (row: store.DraftRow) => new ApiError('DRAFT_NOT_SUBMITTED',
    `The draft is ${row.status}; only a SUBMITTED draft is approved or sent back.`);

  // The dashboard: an approver approves a submitted draft, which issues it.
  async function approve(input: { caller: Caller; draftId: string; referenceId: string }):
    Promise<DraftView> {
    const row = await requireDraft(scopeOf(input.caller), input.draftId);
    if (row.status === 'ISSUED') return issuedAgain(row, input.caller, input.referenceId);
    if (row.status !== 'SUBMITTED') throw notSubmitted(row);
    return issueNow(input.caller, row, input.referenceId, ['SUBMITTED'], true);
  }

  // The dashboard: an approver sends a submitted draft back with a reason; it is a DRAFT again.
  async function sendBack(input: { caller: Caller; draftId: string; reason: string }):
    Promise<DraftView> {
    const reason = input.reason.trim();
    if (reason === '' || reason.length > RETURN_REASON_LENGTH_MAX) {
      throw new ApiError('INVALID_REQUEST', `reason must be 1 to ${RETURN_REASON_LENGTH_MAX} ` +
        'characters.');
    }
    const scope = scopeOf(input.caller);
    const row = await requireDraft(scope, input.draftId);
    if (row.status !== 'SUBMITTED') throw notSubmitted(row);
    const now = deps.now();
    const returned = await db.transaction(async (tx) => {
      const changed = await store.changeDraft(tx, { scope, kind, draftId: row.draftId,
        from: ['SUBMITTED'], version: row.version }, { status: 'DRAFT', returnReason: reason,
        returnedAt: now, returnedBy: input.caller.apiKeyId, submittedAt: null,
        submittedBy: null, updatedAt: now, updatedBy: input.caller.apiKeyId });
      if (changed === null) return null;
      await deps.recordEvents(tx, event(scope, { type: issuance.events.returned,
        data: { draftId: row.draftId, actor: input.caller.apiKeyId, reason } }));
      return changed;
    });
    if (returned === null) throw notSubmitted(await requireDraft(scope, input.draftId));
    return toView(returned, null);
  }

  return { kind, create, get, list, update, remove, issue, submit, approve, sendBack };
}

export type DraftService = ReturnType<typeof createDraftService>;

// The account's approval setting, the same for every kind of draft.
export function createApprovalSettings(deps: Pick<ServiceDeps, 'db' | 'now'>) {
  return {
    approvalRequired: (accountId: string) => store.findApprovalRequired(deps.db, accountId),
    setApprovalRequired: (input: { accountId: string; approvalRequired: boolean;
      actor: string }) => store.saveApprovalRequired(deps.db, { accountId: input.accountId,
      approvalRequired: input.approvalRequired, updatedBy: input.actor,
      updatedAt: deps.now() }),
  };
}

export type ApprovalSettings = ReturnType<typeof createApprovalSettings>;
