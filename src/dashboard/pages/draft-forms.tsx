import type { DraftService, DraftView } from '../../areas/drafts/index.ts';
import { ApiError } from '../../platform/errors.ts';
import { mergePatchBetween } from '../../platform/partial-schema.ts';
import { Notice } from '../components.tsx';
import type { PageContext } from '../context.ts';
import { attempt, dashboardCaller, refused } from './acting.tsx';

// What the pages that save drafts share, whatever their kind (docs/drafts.md, docs/dashboard.md
// § Drafts): the draft a form edits and what its issue would refuse, saving a form into it by a
// JSON merge patch from the version read, the approval rule for what a person saves, and
// issuing a draft from its form once. The tax invoice and cash receipt forms and the invoice
// upload call these, so each rule has one implementation here and the drafts service below.

export const DRAFT_ID = /^drf_[A-Za-z0-9_-]{1,60}$/;

type Json = Record<string, unknown>;

const noSuchDraft = () => new ApiError('NOT_FOUND', 'No draft has this id.');

// The draft `draftId` names, of the session's scope, while it can still be changed: 404 for
// another scope's (as in the API), 409 DRAFT_NOT_EDITABLE once it left DRAFT.
export async function editableDraft(ctx: PageContext, drafts: DraftService, draftId: string):
  Promise<DraftView | ApiError> {
  const draft = DRAFT_ID.test(draftId)
    ? await attempt(() => drafts.get({ caller: dashboardCaller(ctx), draftId }))
    : noSuchDraft();
  if (refused(draft) || draft.status === 'DRAFT') return draft;
  return new ApiError('DRAFT_NOT_EDITABLE',
    `The draft is ${draft.status}; only a DRAFT can be changed.`);
}

// Which draft the form edits (with the way back to its kind's drafts), and what its issue would
// refuse now.
export function DraftAside({ ctx, draft, draftsPath }: { ctx: PageContext; draft: DraftView;
  draftsPath: string }) {
  const problems = draft.issueProblems ?? [];
  return (
    <>
      <p id="draft-editing">{ctx.t('drafts.form.editing')} <code>{draft.draftId}</code>{' '}
        <a href={draftsPath}>{ctx.t('drafts.form.toDrafts')}</a></p>
      {problems.length > 0 && (
        <Notice kind="info">
          <strong>{ctx.t('drafts.form.problems')}</strong>
          <ul>{problems.map((problem, index) => (
            <li key={index}><code>{problem.code}</code> <span lang="en" class="break">
              {problem.message}</span></li>))}</ul>
        </Notice>
      )}
    </>
  );
}

// The draft the form edits (its `draftId` and `draftVersion` fields), changed to what the form
// holds from the version it was read at, so a change made meanwhile is 409 DRAFT_CHANGED and
// never overwritten; a new draft when the form edits none.
export async function saveFormAsDraft(ctx: PageContext, drafts: DraftService,
  request: { supplierKey: string; body: Json }): Promise<DraftView> {
  const caller = dashboardCaller(ctx);
  const draftId = ctx.form.get('draftId') ?? '';
  if (draftId === '') {
    return drafts.create({ caller, supplierKey: request.supplierKey, body: request.body });
  }
  if (!DRAFT_ID.test(draftId)) throw noSuchDraft();
  const version = Number(ctx.form.get('draftVersion') ?? '');
  const current = await drafts.get({ caller, draftId });
  const patch = mergePatchBetween(current.body, request.body) as Json;
  if (Object.keys(patch).length === 0 && current.supplierKey === request.supplierKey &&
    current.version === version) return current;
  return drafts.update({ caller, draftId, patch, supplierKey: request.supplierKey,
    expectedVersion: Number.isSafeInteger(version) ? version : -1 });
}

// The approval rule for what a person saves (docs/drafts.md § Approval): a member without issue
// rights, in an account that requires approval, submits every draft they save, from a form or
// a file.
export async function submitsWhatTheySave(ctx: PageContext): Promise<boolean> {
  if (ctx.may('documents.issue')) return false;
  return ctx.services.areas.draftApproval.approvalRequired(ctx.scope.accountId);
}

// Issues a draft from its form as an approver: `save` first writes the form into it (unless it
// was issued already), then the draft's own issue runs under the form's reference id. The same
// form sent at the same moment, which issued first, is answered with its document.
export async function issueDraftFromForm(ctx: PageContext, drafts: DraftService,
  input: { draftId: string; referenceId: string; save(): Promise<unknown> }):
  Promise<DraftView | ApiError> {
  const caller = dashboardCaller(ctx);
  const { draftId, referenceId } = input;
  const issueIt = () => drafts.issue({ caller, draftId, referenceId, asApprover: true });
  const issued = await attempt(async () => {
    const current = await drafts.get({ caller, draftId });
    if (current.status !== 'ISSUED') await input.save();
    return issueIt();
  });
  if (!refused(issued)) return issued;
  const current = await attempt(() => drafts.get({ caller, draftId }));
  const again = !refused(current) && current.status === 'ISSUED' ? await attempt(issueIt)
    : issued;
  return refused(again) ? issued : again;
}
