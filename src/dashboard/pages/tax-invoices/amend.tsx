import { randomUUID } from 'node:crypto';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import {
  AMENDMENT_REASONS, EntryCorrectionBody, ITEMS_MAX, LocalLetterOfCreditBody, ReturnedGoodsBody,
  SupplyCostChangeBody, TerminationBody, type AmendmentReason, type AmendmentRequest,
  type DocumentPreview, type Invoice, type TaxInvoiceView,
} from '../../../areas/tax-invoices/index.ts';
import { seoulDate } from '../../../domain/business-days.ts';
import { ApiError } from '../../../platform/errors.ts';
import { PostForm, Section } from '../../components.tsx';
import { LiveConfirmation, liveConfirmed } from '../../confirmation.tsx';
import type { Outcome, PageContext } from '../../context.ts';
import { errorOutcome } from '../errors.tsx';
import { findInvoice } from './detail.tsx';
import {
  Carried, Field, itemsOfForm, LineEditor, RecipientNameFields, REFERENCE, suppliers,
} from './issue.tsx';
import {
  ApiErrorNotice, asApiError, dashboardCaller, DocumentView,
  operationGate,
} from './shared.tsx';

// Amending a transmitted tax invoice, for each of the six reasons: a form with what the reason
// takes, a preview of the documents the amendment service drafts and checks (one, or the two of
// an entry correction or a local letter of credit), then the amendment, with a reference id the
// form was made with, so it is made once.

type Form = URLSearchParams;
const REASONS = Object.keys(AMENDMENT_REASONS) as AmendmentReason[];
const LINES_SHOWN = 3;
// The API operation of each reason, whose plan and rate limit an amendment passes.
const OPERATION_SEGMENTS: Record<AmendmentReason, string> = {
  ENTRY_CORRECTION: 'entryCorrection', SUPPLY_COST_CHANGE: 'changeSupplyCost',
  RETURNED_GOODS: 'returnedGoods', TERMINATION: 'termination',
  LOCAL_LETTER_OF_CREDIT: 'localLetterOfCredit', DOUBLE_ISSUANCE: 'doubleIssuance',
};
const isReason = (value: string | null): value is AmendmentReason =>
  REASONS.some((reason) => reason === value);

const field = (form: Form, name: string) => {
  const value = form.get(name)?.trim() ?? '';
  return value === '' ? null : value;
};

// The amendment request a form describes and the API schema of its body.
function requestOfForm(reason: AmendmentReason, form: Form, original: TaxInvoiceView):
  { request: AmendmentRequest; body: unknown; schema: TSchema | null } {
  const date = field(form, 'date') ?? '';
  const description = field(form, 'description');
  const items = itemsOfForm(form, original.taxType, undefined);
  switch (reason) {
    case 'TERMINATION':
      return { request: { reason, date }, body: { date }, schema: TerminationBody };
    case 'DOUBLE_ISSUANCE':
      return { request: { reason }, body: {}, schema: null };
    case 'SUPPLY_COST_CHANGE': {
      const body = { date, items, description };
      return { request: { reason, ...body } as AmendmentRequest, body,
        schema: SupplyCostChangeBody };
    }
    case 'RETURNED_GOODS': {
      const body = { date, items, description };
      return { request: { reason, ...body } as AmendmentRequest, body, schema: ReturnedGoodsBody };
    }
    case 'LOCAL_LETTER_OF_CREDIT': {
      const positions = form.getAll('positions').map(Number);
      const body = { openedOn: field(form, 'openedOn') ?? '',
        ...(positions.length > 0 ? { items: positions } : {}) };
      return { request: { reason, ...body } as AmendmentRequest, body,
        schema: LocalLetterOfCreditBody };
    }
    case 'ENTRY_CORRECTION': {
      const invoice: Invoice = { ...original.invoice,
        date: field(form, 'date') ?? original.invoice.date,
        supplied: { ...original.invoice.supplied,
          organizationName: field(form, 'recipient.name') ?? '',
          representativeName: field(form, 'recipient.representative') ?? '',
          address: field(form, 'recipient.address'),
          managers: [{ ...original.invoice.supplied.managers[0]!,
            email: field(form, 'recipient.email') ?? '' },
          ...original.invoice.supplied.managers.slice(1)] },
        items: itemsOfForm(form, original.taxType, field(form, 'date') ?? original.invoice.date) as
          Invoice['items'],
        description };
      return { request: { reason, invoice }, body: { invoice }, schema: EntryCorrectionBody };
    }
  }
}

// A new form of a reason, filled from the original where the reason starts from it.
function initialForm(reason: AmendmentReason, original: TaxInvoiceView, today: string): Form {
  const form = new URLSearchParams({ reason, referenceId: `dash-${randomUUID()}`,
    date: today });
  if (reason === 'LOCAL_LETTER_OF_CREDIT') form.set('openedOn', today);
  if (reason === 'ENTRY_CORRECTION') {
    const { invoice } = original;
    form.set('date', invoice.date);
    form.set('recipient.name', invoice.supplied.organizationName);
    form.set('recipient.representative', invoice.supplied.representativeName);
    form.set('recipient.address', invoice.supplied.address ?? '');
    form.set('recipient.email', invoice.supplied.managers[0]?.email ?? '');
    form.set('description', invoice.description ?? '');
    invoice.items.forEach((item, index) => {
      for (const [name, value] of Object.entries(item)) {
        if (value !== null && value !== undefined) {
          form.set(`items.${index}.${name}`, String(value));
        }
      }
    });
  }
  return form;
}

function Lines({ ctx, form, kind }: { ctx: PageContext; form: Form;
  kind: TaxInvoiceView['taxType'] }) {
  const used = [...form.keys()].flatMap((name) => {
    const match = /^items\.(\d+)\./.exec(name);
    return match ? [Number(match[1]) + 1] : [];
  });
  const rows = Math.min(ITEMS_MAX, Math.max(LINES_SHOWN, ...used));
  return <LineEditor ctx={ctx} form={form} rows={rows} kind={kind} />;
}

function ReasonFields({ ctx, reason, form, original }: { ctx: PageContext;
  reason: AmendmentReason; form: Form; original: TaxInvoiceView }) {
  const { t } = ctx;
  const date = <Field form={form} name="date" type="date" required
    label={t(`taxInvoices.amend.date.${reason}`)} />;
  const description = <Field form={form} name="description" maxLength={100}
    label={t('taxInvoices.doc.remark')} />;
  switch (reason) {
    case 'TERMINATION':
      return date;
    case 'DOUBLE_ISSUANCE':
      return <p>{t('taxInvoices.amend.doubleLead')}</p>;
    case 'SUPPLY_COST_CHANGE':
    case 'RETURNED_GOODS':
      return <>{date}<p class="muted">{t(`taxInvoices.amend.linesLead.${reason}`)}</p>
        <Lines ctx={ctx} form={form} kind={original.taxType} />{description}</>;
    case 'LOCAL_LETTER_OF_CREDIT': {
      const chosen = new Set(form.getAll('positions'));
      return (
        <>
          <Field form={form} name="openedOn" type="date" required
            label={t('taxInvoices.amend.openedOn')} />
          <fieldset>
            <legend>{t('taxInvoices.amend.covered')}</legend>
            {original.invoice.items.map((item, index) => (
              <label key={index} class="check">
                <input type="checkbox" name="positions" value={String(index)}
                  checked={chosen.has(String(index))} /> {item.name}
              </label>
            ))}
          </fieldset>
        </>
      );
    }
    case 'ENTRY_CORRECTION':
      return (
        <>
          <Field form={form} name="date" type="date" required
            label={t('taxInvoices.doc.writeDate')} />
          <RecipientNameFields ctx={ctx} form={form} />
          <Field form={form} name="recipient.email" type="email" required maxLength={100}
            label={t('taxInvoices.doc.email')} />
          <Lines ctx={ctx} form={form} kind={original.taxType} />
          {description}
        </>
      );
  }
}

async function amendPage(ctx: PageContext, original: TaxInvoiceView, reason: AmendmentReason,
  form: Form, problem?: ApiError, preview?: DocumentPreview[]): Promise<Outcome> {
  const { t } = ctx;
  const base = `/tax-invoices/${original.issuanceKey}`;
  return { kind: 'page', title: 'taxInvoices.amend.title',
    status: problem ? problem.status : 200, body: (
      <>
        <p class="muted"><a href={`/dashboard${base}`}>{t('taxInvoices.amend.back')}</a></p>
        <nav aria-label={t('taxInvoices.amend.reasons')} class="tabs">
          <ul>
            {REASONS.map((option) => (
              <li key={option}>
                <a href={`/dashboard${base}/amend?reason=${option}`}
                  aria-current={option === reason ? 'page' : undefined}>
                  {t(`taxInvoices.reason.${option}`)}</a>
              </li>
            ))}
          </ul>
        </nav>
        <p>{t(`taxInvoices.amend.lead.${reason}`)}</p>
        {problem && <ApiErrorNotice ctx={ctx} error={problem} />}
        {preview && (
          <Section title={t('taxInvoices.amend.previewTitle', { count: preview.length })}
            id="preview">
            {preview.map((document, index) => (
              <DocumentView key={index} ctx={ctx} facts={{ invoice: document.invoice,
                taxType: document.taxType, totals: document.totals,
                amendmentReason: document.amendment?.reason ?? null }} />
            ))}
            <PostForm ctx={ctx} action={`${base}/amend`} class="row">
              <Carried form={form} />
              <LiveConfirmation ctx={ctx} />
              <button type="submit" class="primary">{t('taxInvoices.amend.submit')}</button>
            </PostForm>
          </Section>
        )}
        <Section title={t(`taxInvoices.reason.${reason}`)} id="amend-form">
          <PostForm ctx={ctx} action={`${base}/amend/preview`} class="issue-form">
            <input type="hidden" name="reason" value={reason} />
            <input type="hidden" name="referenceId" value={form.get('referenceId') ?? ''} />
            <ReasonFields ctx={ctx} reason={reason} form={form} original={original} />
            <button type="submit" class="primary">{t('taxInvoices.issue.preview')}</button>
          </PostForm>
        </Section>
        <Section title={t('taxInvoices.original')} id="original">
          <DocumentView ctx={ctx} facts={{ invoice: original.invoice, taxType: original.taxType,
            totals: original.totals, ntsTransactionId: original.ntsTransactionId,
            amendmentReason: original.amendment?.reason ?? null }} />
        </Section>
      </>
    ) };
}

export async function amendFormOutcome(ctx: PageContext): Promise<Outcome> {
  const original = await findInvoice(ctx);
  if (original === null) return errorOutcome(ctx.t, 'notFound', 404);
  const asked = ctx.query.get('reason');
  const reason = isReason(asked) ? asked : 'SUPPLY_COST_CHANGE';
  return amendPage(ctx, original, reason, initialForm(reason, original, seoulDate(ctx.now())));
}

type Prepared = { original: TaxInvoiceView; reason: AmendmentReason;
  input: Parameters<PageContext['services']['areas']['taxInvoices']['amend']>[0] };

async function prepare(ctx: PageContext): Promise<Prepared | Outcome> {
  const original = await findInvoice(ctx);
  if (original === null) return errorOutcome(ctx.t, 'notFound', 404);
  const asked = ctx.form.get('reason');
  const reason = isReason(asked) ? asked : 'SUPPLY_COST_CHANGE';
  const refuse = (message: string) => amendPage(ctx, original, reason, ctx.form,
    new ApiError('INVALID_REQUEST', message));
  const referenceId = ctx.form.get('referenceId') ?? '';
  if (!REFERENCE.test(referenceId)) return refuse(ctx.t('taxInvoices.issue.formExpired'));
  const supplier = (await suppliers(ctx)).find((issuer) => issuer.issuerId === original.issuerId);
  if (supplier === undefined) return refuse(ctx.t('taxInvoices.issue.supplierUnknown'));
  const { request, body, schema } = requestOfForm(reason, ctx.form, original);
  if (schema !== null && !Value.Check(schema, body)) {
    const first = [...Value.Errors(schema, body)][0];
    return refuse(ctx.t('taxInvoices.issue.fieldInvalid', { field: first?.instancePath ?? '' }));
  }
  return { original, reason, input: { caller: dashboardCaller(ctx),
    supplierKey: supplier.supplierKey, referenceId, issuanceKey: original.issuanceKey,
    request } };
}

export async function amendPreviewOutcome(ctx: PageContext): Promise<Outcome> {
  const prepared = await prepare(ctx);
  if ('kind' in prepared) return prepared;
  const { original, reason, input } = prepared;
  try {
    const drafts = await ctx.services.areas.taxInvoices.previewAmendment(input);
    return await amendPage(ctx, original, reason, ctx.form, undefined, drafts);
  } catch (error) {
    return amendPage(ctx, original, reason, ctx.form, asApiError(error));
  }
}

export async function amendOutcome(ctx: PageContext): Promise<Outcome> {
  // The typed confirmation comes first, as on every live mutation: nothing else is looked at
  // until the person has confirmed.
  if (!liveConfirmed(ctx)) {
    const original = await findInvoice(ctx);
    if (original === null) return errorOutcome(ctx.t, 'notFound', 404);
    const asked = ctx.form.get('reason');
    return amendPage(ctx, original, isReason(asked) ? asked : 'SUPPLY_COST_CHANGE', ctx.form,
      new ApiError('INVALID_REQUEST', ctx.t('confirm.liveMissing')));
  }
  const prepared = await prepare(ctx);
  if ('kind' in prepared) return prepared;
  const { original, reason, input } = prepared;
  const gate = await operationGate(ctx, `taxInvoices.amend.${OPERATION_SEGMENTS[reason]}`);
  if (gate !== null) return amendPage(ctx, original, reason, ctx.form, gate);
  const done = (issuanceKey: string): Outcome => ({ kind: 'redirect',
    to: `/dashboard/tax-invoices/${issuanceKey}?notice=taxInvoices.notice.amended` });
  try {
    const { issuanceKey } = await ctx.services.areas.taxInvoices.amend(input);
    await ctx.audit('taxInvoice.amended', original.issuanceKey, ctx.scope.environment);
    return done(issuanceKey);
  } catch (error) {
    const refused = asApiError(error);
    // Sent twice: the first made the documents under this reference id.
    const earlier = await ctx.services.areas.taxInvoices.statusByReference({
      caller: input.caller, referenceId: input.referenceId ?? '' }).catch(() => null);
    return earlier === null ? amendPage(ctx, original, reason, ctx.form, refused)
      : done(earlier.issuanceKey);
  }
}
