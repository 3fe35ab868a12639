import type { DraftView } from '../../../areas/drafts/index.ts';
import { ApiError } from '../../../platform/errors.ts';
import { liveConfirmed } from '../../confirmation.tsx';
import type { Outcome, PageContext } from '../../context.ts';
import { attempt, refused } from '../acting.tsx';
import { DRAFT_ID, DraftAside, editableDraft, issueDraftFromForm, saveFormAsDraft,
  submitsWhatTheySave } from '../draft-forms.tsx';
import {
  formPage,
  invoiceOfForm,
  REFERENCE,
  suppliers,
  type BlankSupplyCost,
} from './issue.tsx';
import { dashboardCaller, operationGate } from './shared.tsx';

// The issue form and drafts (docs/drafts.md, docs/dashboard.md § Drafts): "save as draft" saves
// what the form holds, complete or not, through the drafts service (the one behind
// /v1/taxInvoices/drafts); a draft opened from the drafts page fills the form, and saving it
// again changes the draft by a JSON merge patch from the version that was read, so a change
// made meanwhile is refused (409 DRAFT_CHANGED), never overwritten. Issuing it runs the draft's
// issue, with the typed confirmation in live. A member without issue rights, in an account
// that requires approval, submits what they save. What the cash receipt form shares with this
// one is ../draft-forms.tsx.

type Json = Record<string, unknown>;

// The form's body without what it leaves empty (blank text, null), as a draft keeps it: a
// missing field is reported at issuance, an empty one would be refused by the draft's schema.
function prune(value: unknown): unknown {
  if (value === null || value === '') return undefined;
  if (Array.isArray(value)) {
    const items = value.map(prune).filter((item) => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value !== 'object') return value;
  const entries = Object.entries(value as Json).map(([key, field]) => [key, prune(field)] as const)
    .filter(([, field]) => field !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

const text = (value: unknown): string | null =>
  (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null);
const objectOf = (value: unknown): Json =>
  (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Json : {});
const listOf = (value: unknown): Json[] => (Array.isArray(value) ? value.map(objectOf) : []);

// The tax kind the form shows for a draft's items, told by the lines with a supply cost (a line
// saved without one has no tax either, whatever its kind): tax-free when no line carries a
// tax, zero-rated when every tax is 0 on a cost, else taxable.
function kindOfItems(lines: Json[]): string {
  const items = lines.filter((item) => typeof item.supplyCost === 'number');
  if (items.length === 0) return 'TAXABLE';
  if (items.every((item) => item.tax === undefined || item.tax === null)) return 'TAX_FREE';
  if (items.every((item) => item.tax === 0) && items.some((item) => item.supplyCost !== 0)) {
    return 'ZERO_RATED';
  }
  return 'TAXABLE';
}

// The form's fields for a draft, named as the issue form names them.
function formOfDraft(draft: DraftView): URLSearchParams {
  const form = new URLSearchParams();
  const set = (name: string, value: unknown) => {
    const shown = text(value);
    if (shown !== null && shown !== '') form.set(name, shown);
  };
  const { body } = draft;
  const supplied = objectOf(body.supplied);
  const manager = listOf(supplied.managers)[0] ?? {};
  const items = listOf(body.items);
  set('draftId', draft.draftId);
  set('draftVersion', draft.version);
  set('supplierKey', draft.supplierKey);
  set('date', body.date);
  set('purpose', body.purpose);
  set('supplierEmail', objectOf(objectOf(body.supplier).manager).email);
  set('supplierManager', objectOf(objectOf(body.supplier).manager).name);
  set('taxKind', kindOfItems(items));
  for (const [field, name] of [['identificationNumber', 'number'],
    ['taxRegistrationId', 'taxRegistrationId'], ['organizationName', 'name'],
    ['representativeName', 'representative'], ['address', 'address'],
    ['businessType', 'businessType'], ['businessItem', 'businessItem']] as const) {
    set(`recipient.${name}`, supplied[field]);
  }
  set('recipient.email', manager.email);
  set('recipient.manager', manager.name);
  items.forEach((item, index) => {
    for (const field of ['date', 'name', 'specification', 'quantity', 'unitPrice', 'supplyCost',
      'tax', 'description']) set(`items.${index}.${field}`, item[field]);
  });
  set('description', body.description);
  return form;
}

const draftsOf = (ctx: PageContext) => ctx.services.areas.taxInvoiceDrafts;

function draftPage(ctx: PageContext, draft: DraftView, options: { problem?: ApiError;
  notice?: string; form?: URLSearchParams } = {}): Promise<Outcome> {
  return formPage(ctx, options.form ?? formOfDraft(draft), options.problem, undefined,
    options.notice, <DraftAside ctx={ctx} draft={draft} draftsPath="/dashboard/drafts" />);
}

// GET /tax-invoices/new?draft=drf_…: the form filled with a draft of the session's scope; a
// draft of another scope is 404 as in the API, one that is not a DRAFT is 409.
export async function draftFormOutcome(ctx: PageContext): Promise<Outcome> {
  const draft = await editableDraft(ctx, draftsOf(ctx), ctx.query.get('draft') ?? '');
  if (refused(draft)) return formPage(ctx, new URLSearchParams(), draft);
  const notice = ctx.query.get('notice') === 'saved' ? ctx.t('drafts.form.saved') : undefined;
  return draftPage(ctx, draft, { notice });
}

// The form's supplier (an issuer of the scope the form offers) and its body as a draft keeps it:
// a blank supply cost is left out, as every blank field is, so the draft lists it as missing.
async function draftRequestOf(ctx: PageContext, blankSupplyCost: BlankSupplyCost = 'missing'):
  Promise<{ supplierKey: string; body: Json } | ApiError> {
  const supplierKey = ctx.form.get('supplierKey') ?? '';
  const supplier = (await suppliers(ctx)).find((issuer) => issuer.supplierKey === supplierKey);
  if (supplier === undefined) {
    return new ApiError('INVALID_REQUEST', ctx.t('taxInvoices.issue.supplierUnknown'));
  }
  return { supplierKey,
    body: (prune(invoiceOfForm(ctx.form, supplier, blankSupplyCost)) ?? {}) as Json };
}

// POST /tax-invoices/new/draft: saves the form as a draft, then shows it for more editing; a
// member without issue rights submits it when the account requires approval.
export async function saveDraftOutcome(ctx: PageContext): Promise<Outcome> {
  const request = await draftRequestOf(ctx);
  if (request instanceof ApiError) return formPage(ctx, ctx.form, request);
  const saved = await attempt(() => saveFormAsDraft(ctx, draftsOf(ctx), request));
  if (refused(saved)) return formPage(ctx, ctx.form, saved);
  if (await submitsWhatTheySave(ctx)) {
    const submitted = await attempt(() => draftsOf(ctx).submit({ caller: dashboardCaller(ctx),
      draftId: saved.draftId }));
    if (refused(submitted)) {
      return draftPage(ctx, saved, { problem: submitted,
        notice: ctx.t('drafts.form.savedNotSubmitted') });
    }
    return { kind: 'redirect', to: '/dashboard/drafts?notice=drafts.submitted' };
  }
  return { kind: 'redirect',
    to: `/dashboard/tax-invoices/new?draft=${saved.draftId}&notice=saved` };
}

// POST /tax-invoices/new/draft-issue: the draft saved as the form shows it, then issued by its
// own issue, by a person who may issue (an approver). The same form sent again answers the
// document the first made.
export async function issueDraftOutcome(ctx: PageContext): Promise<Outcome> {
  const draftId = ctx.form.get('draftId') ?? '';
  const referenceId = ctx.form.get('referenceId') ?? '';
  if (!DRAFT_ID.test(draftId)) {
    return formPage(ctx, ctx.form, new ApiError('NOT_FOUND', 'No draft has this id.'));
  }
  if (!REFERENCE.test(referenceId)) {
    return formPage(ctx, ctx.form,
      new ApiError('INVALID_REQUEST', ctx.t('taxInvoices.issue.formExpired')));
  }
  if (!liveConfirmed(ctx)) {
    return formPage(ctx, ctx.form, new ApiError('INVALID_REQUEST', ctx.t('confirm.liveMissing')));
  }
  const gate = await operationGate(ctx, 'taxInvoices.issue');
  if (gate !== null) return formPage(ctx, ctx.form, gate);
  const issued = await issueDraftFromForm(ctx, draftsOf(ctx), { draftId, referenceId,
    async save() {
      // Issued as the preview showed it: a blank supply cost is 0, as in any issue.
      const request = await draftRequestOf(ctx, 'zero');
      if (request instanceof ApiError) throw request;
      await saveFormAsDraft(ctx, draftsOf(ctx), request);
    } });
  if (refused(issued)) return formPage(ctx, ctx.form, issued);
  await ctx.audit('taxInvoice.issued', issued.issuanceKey, ctx.scope.environment);
  return issuedOutcome(issued);
}

function issuedOutcome(draft: DraftView): Outcome {
  return { kind: 'redirect', to: draft.issuanceKey === null ? '/dashboard/drafts'
    : `/dashboard/tax-invoices/${draft.issuanceKey}?notice=taxInvoices.notice.issued` };
}
