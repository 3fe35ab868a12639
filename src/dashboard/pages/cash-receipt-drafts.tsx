import type { VNode } from 'preact';
import type { DraftService, DraftView } from '../../areas/drafts/index.ts';
import { ApiError } from '../../platform/errors.ts';
import { Notice } from '../components.tsx';
import { liveConfirmed } from '../confirmation.tsx';
import type { Outcome, PageContext } from '../context.ts';
import type { MessageKey } from '../i18n/index.ts';
import { attempt, dashboardCaller, rateLimited, readReferenceId, refused } from './acting.tsx';
import { DRAFT_ID, DraftAside, editableDraft, issueDraftFromForm, saveFormAsDraft,
  submitsWhatTheySave } from './draft-forms.tsx';

// The cash receipt issue form and drafts (docs/drafts.md, docs/dashboard.md § Drafts), as for
// tax invoices: "save as draft" saves what the form holds, complete or not, through the drafts
// service (the one behind /v1/cashReceipts/drafts); a draft opened from the drafts page fills
// the form; saving it again changes the draft by a JSON merge patch from the version that was
// read (a change made meanwhile is 409 DRAFT_CHANGED); issuing it runs the draft's issue, with
// the typed confirmation in live. A member without issue rights, in an account that requires
// approval, submits what they save. The form itself is cash-receipts.tsx's, given as `show`;
// what the tax invoice form shares with this one is draft-forms.tsx.

export const AMOUNT_FIELDS = ['supplyCost', 'tax', 'serviceFee', 'totalAmount'] as const;
const AMOUNT = /^\d{1,3}(,?\d{3})*$/;
const ISSUERS_SHOWN = 100;
const DRAFTS_PATH = '/dashboard/drafts?kind=cash-receipts';
const TEXT_FIELDS = ['tradeDate', 'usage', 'identityNumber', 'taxation', 'itemName',
  'tradeOption'] as const;

// Shows the issue form: a refusal, the values to fill it with, what to show above it.
export type ShowForm = (ctx: PageContext, problem?: ApiError | MessageKey,
  values?: URLSearchParams, aside?: VNode) => Promise<Outcome>;

type Json = Record<string, unknown>;

// A won amount typed with or without grouping commas; null when it is not one.
export function amountOf(text: string): number | null {
  const trimmed = text.trim();
  if (!AMOUNT.test(trimmed)) return null;
  const value = Number(trimmed.replaceAll(',', ''));
  return Number.isSafeInteger(value) ? value : null;
}

// What the form holds as a draft keeps it: the fields filled in, none empty; null when an
// amount typed is not one.
function draftBodyOf(form: URLSearchParams): Json | null {
  const text = (name: string) => (form.get(name) ?? '').trim();
  const body: Json = {};
  for (const name of TEXT_FIELDS) if (text(name) !== '') body[name] = text(name);
  for (const name of AMOUNT_FIELDS) {
    if (text(name) === '') continue;
    const amount = amountOf(text(name));
    if (amount === null) return null;
    body[name] = amount;
  }
  const customer = { ...(text('customerName') ? { name: text('customerName') } : {}),
    ...(text('customerEmail') ? { email: text('customerEmail') } : {}) };
  if (Object.keys(customer).length > 0) body.customer = customer;
  return body;
}

// The form's fields for a draft; the issuer is the one of its Supplier-Key.
async function formOfDraft(ctx: PageContext, draft: DraftView): Promise<URLSearchParams> {
  const form = new URLSearchParams({ draftId: draft.draftId,
    draftVersion: String(draft.version) });
  const { body } = draft;
  for (const name of [...TEXT_FIELDS, ...AMOUNT_FIELDS]) {
    const value = body[name];
    if (typeof value === 'string' || typeof value === 'number') form.set(name, String(value));
  }
  const customer = (body.customer ?? {}) as Json;
  if (typeof customer.name === 'string') form.set('customerName', customer.name);
  if (typeof customer.email === 'string') form.set('customerEmail', customer.email);
  if (draft.supplierKey !== null) {
    const { issuers } = await ctx.services.areas.issuers.listIssuers({ scope: ctx.scope,
      limit: ISSUERS_SHOWN });
    const issuer = issuers.find((row) => row.supplierKey === draft.supplierKey);
    if (issuer !== undefined) form.set('issuerId', issuer.issuerId);
  }
  return form;
}

const draftsOf = (ctx: PageContext): DraftService => ctx.services.areas.cashReceiptDrafts;

async function showDraft(ctx: PageContext, show: ShowForm, draft: DraftView,
  problem?: ApiError | MessageKey, values?: URLSearchParams): Promise<Outcome> {
  return show(ctx, problem, values ?? await formOfDraft(ctx, draft),
    <DraftAside ctx={ctx} draft={draft} draftsPath={DRAFTS_PATH} />);
}

// GET /cash-receipts/new?draft=drf_…: the form filled with a draft of the session's scope; a
// draft of another scope is 404 as in the API, one that is not a DRAFT is 409.
export async function draftFormOutcome(ctx: PageContext, show: ShowForm): Promise<Outcome> {
  const draft = await editableDraft(ctx, draftsOf(ctx), ctx.query.get('draft') ?? '');
  if (refused(draft)) return show(ctx, draft);
  const aside = <>{ctx.query.get('notice') === 'saved' && (
    <Notice kind="success">{ctx.t('drafts.form.saved')}</Notice>)}
    <DraftAside ctx={ctx} draft={draft} draftsPath={DRAFTS_PATH} /></>;
  return show(ctx, undefined, await formOfDraft(ctx, draft), aside);
}

// The form as a draft: its issuer's Supplier-Key and body, or why not.
async function requestOf(ctx: PageContext):
  Promise<{ supplierKey: string; body: Json } | MessageKey> {
  const body = draftBodyOf(ctx.form);
  if (body === null) return 'cashReceipts.error.invalid';
  const issuerId = ctx.form.get('issuerId') ?? '';
  const { issuers } = await ctx.services.areas.issuers.listIssuers({ scope: ctx.scope,
    limit: ISSUERS_SHOWN });
  const issuer = issuers.find((row) => row.issuerId === issuerId && row.active);
  return issuer === undefined ? 'cashReceipts.error.issuer'
    : { supplierKey: issuer.supplierKey, body };
}

// POST /cash-receipts/new/draft: saves the form as a draft and shows it again; a member
// without issue rights submits it when the account requires approval.
export async function saveDraftOutcome(ctx: PageContext, show: ShowForm): Promise<Outcome> {
  const request = await requestOf(ctx);
  if (typeof request === 'string') return show(ctx, request, ctx.form);
  const saved = await attempt(() => saveFormAsDraft(ctx, draftsOf(ctx), request));
  if (refused(saved)) return show(ctx, saved, ctx.form);
  if (await submitsWhatTheySave(ctx)) {
    const submitted = await attempt(() => draftsOf(ctx).submit({ caller: dashboardCaller(ctx),
      draftId: saved.draftId }));
    if (refused(submitted)) return showDraft(ctx, show, saved, submitted);
    return { kind: 'redirect', to: `${DRAFTS_PATH}&notice=drafts.submitted` };
  }
  return { kind: 'redirect',
    to: `/dashboard/cash-receipts/new?draft=${saved.draftId}&notice=saved` };
}

// POST /cash-receipts/new/draft-issue: the draft saved as the form shows it, then issued by its
// own issue, by a person who may issue (an approver). The same form sent again answers the
// receipt the first made.
export async function issueDraftOutcome(ctx: PageContext, show: ShowForm): Promise<Outcome> {
  const draftId = ctx.form.get('draftId') ?? '';
  const referenceId = readReferenceId(ctx.form);
  if (!DRAFT_ID.test(draftId)) {
    return show(ctx, new ApiError('NOT_FOUND', 'No draft has this id.'), ctx.form);
  }
  if (referenceId === null) return show(ctx, 'cashReceipts.error.invalid', ctx.form);
  if (!liveConfirmed(ctx)) return show(ctx, 'confirm.liveMissing', ctx.form);
  if (await rateLimited(ctx, 'cashReceipts.issue') !== null) {
    return show(ctx, 'acting.rateLimited', ctx.form);
  }
  const issued = await issueDraftFromForm(ctx, draftsOf(ctx), { draftId, referenceId,
    async save() {
      const request = await requestOf(ctx);
      if (typeof request === 'string') throw new ApiError('INVALID_REQUEST', ctx.t(request));
      await saveFormAsDraft(ctx, draftsOf(ctx), request);
    } });
  if (refused(issued)) return show(ctx, issued, ctx.form);
  await ctx.audit('cashReceipt.issued', issued.issuanceKey, ctx.scope.environment);
  return issuedOutcome(issued);
}

function issuedOutcome(draft: DraftView): Outcome {
  return { kind: 'redirect', to: draft.issuanceKey === null ? DRAFTS_PATH
    : `/dashboard/cash-receipts/${draft.issuanceKey}?notice=cashReceipts.issued` };
}
