import { createDraftEditing } from './editing.ts';
import { createDraftIssuing } from './issuing.ts';
import { createDraftReader, type DraftIssuance, type ServiceDeps } from './reading.ts';
import * as store from './store.ts';

// Drafts (docs/drafts.md): issuance request bodies saved, changed, listed, read, deleted and
// issued later, and the approval some accounts require before one is issued. A draft is of one
// kind (a tax invoice or a cash receipt); everything is the same for both, and what differs is
// the kind's DraftIssuance, given by the area that issues it. The service is two modules over
// one reader (reading.ts): editing (editing.ts: save, import, read, list, change, delete) and
// issuing (issuing.ts: issue, submit, approve, send back).

export type { DraftIssuance } from './reading.ts';

export function createDraftService(deps: ServiceDeps, issuance: DraftIssuance) {
  const parts = { deps, issuance, reader: createDraftReader(deps, issuance) };
  return { kind: issuance.kind, ...createDraftEditing(parts), ...createDraftIssuing(parts) };
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
