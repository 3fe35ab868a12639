import type { Tx } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import type { EventInput } from '../../platform/event-catalogue.ts';
import type { Caller, Scope } from '../../platform/scope.ts';
import { noSuchDraft, notEditable, scopeOf, toView, type DraftParts } from './reading.ts';
import type { DraftView } from './schemas.ts';
import * as store from './store.ts';
import type { DraftStatus } from './tables.ts';

// Issuing drafts (docs/drafts.md § Issuing a draft, § Approval): issue, and the approval's
// submit, approve and send back.
//
// Issuing a draft runs its issuance exactly as the issue route does, at that moment (the body's
// schema and rules, the deadline and lateness, the supplier's eligibility, the points, the
// reference id), and marks the draft ISSUED in the transaction that records the document: a
// `guard` changes the draft only if it is still in the status and version that was checked, so
// of two concurrent issues one records a document and the other records nothing and is charged
// nothing.

const RETURN_REASON_LENGTH_MAX = 500;

const eventOf = (scope: Scope, input: EventInput) => [{ scope, event: input }];

const changedMeanwhile = () => new ApiError('DRAFT_CHANGED', 'The draft was changed by ' +
  'another request at the same time; read it and try again.');

const notSubmitted = (row: store.DraftRow) => new ApiError('DRAFT_NOT_SUBMITTED',
  `The draft is ${row.status}; only a SUBMITTED draft is approved or sent back.`);

// An issued draft answers the same issue again (the same caller and reference id) and refuses
// any other.
function issuedAgain(row: store.DraftRow, caller: Caller, referenceId: string) {
  if (row.issuedBy === caller.apiKeyId && row.issueReferenceId === referenceId) {
    return toView(row, null);
  }
  throw new ApiError('DRAFT_ALREADY_ISSUED', `The draft was already issued as ` +
    `${row.issuanceKey ?? 'a document'}; a draft is issued once.`);
}

// Marks the draft SUBMITTED (from DRAFT) with its event; a submitted draft stays as it is.
async function submitRow(parts: DraftParts, caller: Caller, row: store.DraftRow):
  Promise<store.DraftRow> {
  if (row.status === 'SUBMITTED') return row;
  const { deps, issuance } = parts;
  await parts.reader.firstProblemThrows(caller, row);
  const scope = scopeOf(caller);
  const now = deps.now();
  const submitted = await deps.db.transaction(async (tx) => {
    const changed = await store.changeDraft(tx, { scope, kind: issuance.kind,
      draftId: row.draftId, from: ['DRAFT'], version: row.version }, { status: 'SUBMITTED',
      submittedAt: now, submittedBy: caller.apiKeyId, updatedAt: now,
      updatedBy: caller.apiKeyId });
    if (changed === null) return null;
    await deps.recordEvents(tx, eventOf(scope, { type: issuance.events.submitted,
      data: { draftId: row.draftId, actor: caller.apiKeyId } }));
    return changed;
  });
  if (submitted === null) throw changedMeanwhile();
  return submitted;
}

type IssueAt = { caller: Caller; row: store.DraftRow; referenceId: string;
  from: readonly DraftStatus[]; approved: boolean };

// Marks the draft ISSUED inside the issuance's transaction, if it is still as it was checked.
function guardOf(parts: DraftParts, at: IssueAt) {
  const { deps, issuance: { kind } } = parts;
  const { caller, row } = at;
  const scope = scopeOf(caller);
  return async (tx: Tx) => {
    const now = deps.now();
    const changed = await store.changeDraft(tx, { scope, kind, draftId: row.draftId,
      from: at.from, version: row.version }, { status: 'ISSUED', issuedAt: now,
      issuedBy: caller.apiKeyId, issueReferenceId: at.referenceId, updatedAt: now,
      updatedBy: caller.apiKeyId });
    if (changed !== null) return;
    const current = await store.findDraft(tx, scope, kind, row.draftId);
    if (current === null) throw noSuchDraft();
    // Issued meanwhile: refused here, and answered as a repeat by issueNow when it was this one.
    if (current.status === 'ISSUED') {
      throw new ApiError('DRAFT_ALREADY_ISSUED', 'The draft was already issued; a draft is ' +
        'issued once.');
    }
    throw new ApiError('DRAFT_CHANGED');
  };
}

// Issues the draft now, from one of `from`; `approved` when an approver's approval issues it.
async function issueNow(parts: DraftParts, at: IssueAt): Promise<DraftView> {
  const { deps, issuance, reader } = parts;
  const { caller, row, referenceId } = at;
  await reader.firstProblemThrows(caller, row);
  const scope = scopeOf(caller);
  const target = { scope, kind: issuance.kind, draftId: row.draftId };
  const onRecorded = async (tx: Tx, issuanceKey: string) => {
    await store.changeDraft(tx, { ...target, from: ['ISSUED'] }, { issuanceKey });
    if (at.approved) {
      await deps.recordEvents(tx, eventOf(scope, { type: issuance.events.approved,
        data: { draftId: row.draftId, actor: caller.apiKeyId, issuanceKey } }));
    }
  };
  try {
    await issuance.issue({ caller, supplierKey: row.supplierKey!, referenceId,
      body: row.body, route: issuance.route(row.draftId), guard: guardOf(parts, at),
      onRecorded });
  } catch (error) {
    // The same issue made at the same moment, which recorded the document first: answer it.
    if (error instanceof ApiError) {
      const current = await store.findDraft(deps.db, scope, issuance.kind, row.draftId);
      if (current?.status === 'ISSUED' && current.issuedBy === caller.apiKeyId &&
        current.issueReferenceId === referenceId) return toView(current, null);
    }
    throw error;
  }
  return toView(await reader.requireDraft(scope, row.draftId), null);
}

// `:issue` of the API. With an API key, while the account requires approval, the draft is
// submitted instead and the answer is 403 DRAFT_APPROVAL_REQUIRED; `asApprover` is the
// dashboard's issue by a person who may issue.
async function issue(parts: DraftParts, input: { caller: Caller; draftId: string;
  referenceId: string; asApprover?: boolean }): Promise<DraftView> {
  const row = await parts.reader.requireDraft(scopeOf(input.caller), input.draftId);
  if (row.status === 'ISSUED') return issuedAgain(row, input.caller, input.referenceId);
  if (!input.asApprover &&
    await store.findApprovalRequired(parts.deps.db, input.caller.accountId)) {
    await submitRow(parts, input.caller, row);
    throw new ApiError('DRAFT_APPROVAL_REQUIRED');
  }
  return issueNow(parts, { caller: input.caller, row, referenceId: input.referenceId,
    from: ['DRAFT', 'SUBMITTED'], approved: row.status === 'SUBMITTED' });
}

// The dashboard: an approver sends a submitted draft back with a reason; it is a DRAFT again.
async function sendBack(parts: DraftParts, input: { caller: Caller; draftId: string;
  reason: string }): Promise<DraftView> {
  const { deps, issuance } = parts;
  const reason = input.reason.trim();
  if (reason === '' || reason.length > RETURN_REASON_LENGTH_MAX) {
    throw new ApiError('INVALID_REQUEST', `reason must be 1 to ${RETURN_REASON_LENGTH_MAX} ` +
      'characters.');
  }
  const scope = scopeOf(input.caller);
  const row = await parts.reader.requireDraft(scope, input.draftId);
  if (row.status !== 'SUBMITTED') throw notSubmitted(row);
  const now = deps.now();
  const actor = input.caller.apiKeyId;
  const returned = await deps.db.transaction(async (tx) => {
    const changed = await store.changeDraft(tx, { scope, kind: issuance.kind,
      draftId: row.draftId, from: ['SUBMITTED'], version: row.version }, { status: 'DRAFT',
      returnReason: reason, returnedAt: now, returnedBy: actor, submittedAt: null,
      submittedBy: null, updatedAt: now, updatedBy: actor });
    if (changed === null) return null;
    await deps.recordEvents(tx, eventOf(scope, { type: issuance.events.returned,
      data: { draftId: row.draftId, actor, reason } }));
    return changed;
  });
  if (returned === null) throw notSubmitted(await parts.reader.requireDraft(scope, input.draftId));
  return toView(returned, null);
}

export function createDraftIssuing(parts: DraftParts) {
  const { reader } = parts;
  return {
    issue: (input: Parameters<typeof issue>[1]) => issue(parts, input),
    sendBack: (input: Parameters<typeof sendBack>[1]) => sendBack(parts, input),
    // The dashboard: a person who may not issue submits a draft for approval.
    async submit(input: { caller: Caller; draftId: string }): Promise<DraftView> {
      const row = await reader.requireDraft(scopeOf(input.caller), input.draftId);
      if (row.status === 'ISSUED') throw notEditable(row);
      return toView(await submitRow(parts, input.caller, row), null);
    },
    // The dashboard: an approver approves a submitted draft, which issues it.
    async approve(input: { caller: Caller; draftId: string; referenceId: string }):
      Promise<DraftView> {
      const row = await reader.requireDraft(scopeOf(input.caller), input.draftId);
      if (row.status === 'ISSUED') return issuedAgain(row, input.caller, input.referenceId);
      if (row.status !== 'SUBMITTED') throw notSubmitted(row);
      return issueNow(parts, { caller: input.caller, row, referenceId: input.referenceId,
        from: ['SUBMITTED'], approved: true });
    },
  };
}
