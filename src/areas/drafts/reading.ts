import type { PageCursors } from '../../platform/cursor.ts';
import type { Db, Tx } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import type { RecordEvents } from '../../platform/events.ts';
import type { Caller, Scope } from '../../platform/scope.ts';
import { createBodyChecker } from '../../platform/validation.ts';
import type { DraftView } from './schemas.ts';
import * as store from './store.ts';
import type { DraftKind } from './tables.ts';

// What editing (editing.ts) and issuing (issuing.ts) a draft share: the kind's issuance, finding
// a draft of the caller's scope, and what issuance would refuse of it now. Everything is scoped
// to the caller's account and environment; a draft of another scope is 404 NOT_FOUND.

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

export type ServiceDeps = {
  db: Db;
  now: () => Date;
  cursors: PageCursors;
  recordEvents: RecordEvents;
  // A Supplier-Key given with a draft must name an issuer of the caller's scope (404 if not),
  // as it must on every operation that takes one.
  requireSupplier(scope: Scope, supplierKey: string): Promise<unknown>;
};

const NO_SUCH_DRAFT = 'No draft has this id.';

export const scopeOf = (caller: Caller): Scope =>
  ({ accountId: caller.accountId, environment: caller.environment });

export function toView(row: store.DraftRow, issueProblems: DraftView['issueProblems']):
  DraftView {
  return {
    draftId: row.draftId, status: row.status, supplierKey: row.supplierKey, body: row.body,
    issueProblems, issuanceKey: row.issuanceKey, returnReason: row.returnReason,
    createdBy: row.createdBy, createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    submittedAt: row.status === 'SUBMITTED' ? row.submittedAt?.toISOString() ?? null : null,
    issuedAt: row.issuedAt?.toISOString() ?? null,
    version: row.version,
  };
}

export const noSuchDraft = () => new ApiError('NOT_FOUND', NO_SUCH_DRAFT);

export const notEditable = (row: store.DraftRow) => new ApiError('DRAFT_NOT_EDITABLE',
  `The draft is ${row.status}; only a DRAFT can be changed or deleted` +
  (row.status === 'SUBMITTED' ? ': an approver sends it back to make it editable.' : '.'));

export type DraftProblem = { code: string; message: string };

// The draft of a kind, read and checked against its issuance: one per kind, shared by editing
// and issuing.
export function createDraftReader(deps: ServiceDeps, issuance: DraftIssuance) {
  const { db } = deps;
  const { kind } = issuance;
  const checkComplete = createBodyChecker(issuance.issueBody);

  async function requireDraft(scope: Scope, draftId: string) {
    const row = await store.findDraft(db, scope, kind, draftId);
    if (row === null) throw noSuchDraft();
    return row;
  }

  // What issuance would refuse now, in the order it checks: the body's schema, the
  // Supplier-Key, then everything issue checks of a well-formed request (one implementation of
  // each rule: the kind's own preview).
  async function problemsOf(caller: Caller, row: store.DraftRow): Promise<DraftProblem[]> {
    const problems: DraftProblem[] = [];
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

  return {
    requireDraft,
    problemsOf,
    async viewOf(caller: Caller, row: store.DraftRow) {
      return toView(row, row.status === 'ISSUED' ? null : await problemsOf(caller, row));
    },
    async firstProblemThrows(caller: Caller, row: store.DraftRow) {
      const [problem] = await problemsOf(caller, row);
      if (problem !== undefined) {
        throw new ApiError(problem.code as ApiError['code'], problem.message);
      }
    },
  };
}

type DraftReader = ReturnType<typeof createDraftReader>;

// What a module of the service is built from.
export type DraftParts = { deps: ServiceDeps; issuance: DraftIssuance; reader: DraftReader };
