import { randomUUID } from 'node:crypto';
import type { VNode } from 'preact';
import Value from 'typebox/value';
import {
  IssueBody, ITEMS_MAX, type DocumentPreview, type Invoice,
} from '../../../areas/tax-invoices/index.ts';
import { lineTax, sumAmounts, type TaxKind } from '../../../domain/tax-amounts.ts';
import { seoulDate } from '../../../domain/business-days.ts';
import { ApiError } from '../../../platform/errors.ts';
import { Notice, PostForm, Section } from '../../components.tsx';
import { LiveConfirmation, liveConfirmed } from '../../confirmation.tsx';
import type { Outcome, PageContext } from '../../context.ts';
import { formatNumber, formatWon } from '../../format.ts';
import {
  ApiErrorNotice, asApiError, dashboardCaller, DocumentView,
  operationGate,
} from './shared.tsx';

// Issuing a tax invoice from the dashboard: a form (its items in a line editor that computes
// each line's tax and the totals with the domain's own arithmetic, src/domain/tax-amounts.ts,
// in the browser as on the server), a preview of the document as the service drafts and checks
// it, then the issuance, with a reference id the form was generated with: the same form sent
// twice is claimed once and the second answer shows the first document.

const ROWS_SHOWN = 3;
export const REFERENCE = /^dash-[0-9a-f-]{36}$/;
const RECIPIENTS_SHOWN = 20;
type Form = URLSearchParams;
const ITEM_FIELDS = ['date', 'name', 'specification', 'quantity', 'unitPrice', 'supplyCost',
  'tax', 'description'] as const;
const KINDS: readonly TaxKind[] = ['TAXABLE', 'ZERO_RATED', 'TAX_FREE'];

const text = (form: Form, name: string) => {
  const value = form.get(name)?.trim() ?? '';
  return value === '' ? null : value;
};
const numberOf = (value: string | null) => {
  if (value === null) return null;
  const plain = value.replaceAll(',', '');
  return /^-?\d+(\.\d+)?$/.test(plain) ? Number(plain) : Number.NaN;
};

// The rows of the form that have anything in them.
function itemRows(form: Form): number[] {
  const rows: number[] = [];
  for (let index = 0; index < ITEMS_MAX; index += 1) {
    if (ITEM_FIELDS.some((field) => text(form, `items.${index}.${field}`) !== null)) {
      rows.push(index);
    }
  }
  return rows;
}

function kindOf(form: Form): TaxKind {
  const kind = form.get('taxKind');
  return KINDS.find((known) => known === kind) ?? 'TAXABLE';
}

// The request body the form describes, as the API takes it; its shape is checked with the
// API's own schema, its rules by the service.
// The item lines of a form; a blank tax is the line's tax by the domain's rule, and a blank
// date is `date` (undefined leaves it out, for amendments, whose service defaults it). A blank
// supply cost is 0, as an issue takes it, or `missing`: a draft leaves it out (with the tax
// that would follow from it), so the draft lists it among what its issue lacks.
export type BlankSupplyCost = 'zero' | 'missing';

export function itemsOfForm(form: Form, kind: TaxKind, date: string | undefined,
  blankSupplyCost: BlankSupplyCost = 'zero') {
  return itemRows(form).map((index) => {
    const field = (name: string) => text(form, `items.${index}.${name}`);
    const supplyCost = numberOf(field('supplyCost')) ??
      (blankSupplyCost === 'zero' ? 0 : undefined);
    const tax = kind === 'TAX_FREE' ? null : numberOf(field('tax')) ??
      (supplyCost === undefined ? undefined : lineTax(kind, supplyCost));
    const itemDate = field('date') ?? date;
    return { ...(itemDate === undefined ? {} : { date: itemDate }), name: field('name') ?? '',
      specification: field('specification'), quantity: numberOf(field('quantity')),
      unitPrice: numberOf(field('unitPrice')), supplyCost, tax,
      description: field('description') };
  });
}

export function invoiceOfForm(form: Form, supplier: { identificationNumber: string;
  taxRegistrationId: string | null; organizationName: string; representativeName: string },
  blankSupplyCost: BlankSupplyCost = 'zero'): Invoice {
  const date = text(form, 'date') ?? '';
  const items = itemsOfForm(form, kindOf(form), date, blankSupplyCost) as Invoice['items'];
  return {
    date,
    purpose: form.get('purpose') === 'RECEIPT' ? 'RECEIPT' : 'CLAIM',
    supplier: { identificationNumber: supplier.identificationNumber,
      taxRegistrationId: supplier.taxRegistrationId,
      organizationName: supplier.organizationName,
      representativeName: supplier.representativeName,
      manager: { email: text(form, 'supplierEmail') ?? '', name: text(form, 'supplierManager') } },
    supplied: {
      identificationNumber: (text(form, 'recipient.number') ?? '').replaceAll('-', ''),
      taxRegistrationId: text(form, 'recipient.taxRegistrationId'),
      organizationName: text(form, 'recipient.name') ?? '',
      representativeName: text(form, 'recipient.representative') ?? '',
      address: text(form, 'recipient.address'),
      businessType: text(form, 'recipient.businessType'),
      businessItem: text(form, 'recipient.businessItem'),
      managers: [{ email: text(form, 'recipient.email') ?? '',
        name: text(form, 'recipient.manager') }],
    },
    items,
    description: text(form, 'description'),
  };
}

export async function suppliers(ctx: PageContext) {
  const { issuers } = await ctx.services.areas.issuers.listIssuers({ scope: ctx.scope,
    limit: 100 });
  return issuers.filter((issuer) => issuer.active && issuer.certificate !== null);
}

// A text field of the form, showing what was posted.
export function Field(props: { form: Form; name: string; label: string;
  type?: 'text' | 'email' | 'date';
  required?: boolean; maxLength?: number; inputMode?: 'numeric' | 'decimal';
  placeholder?: string }) {
  return (
    <label>{props.label}
      <input name={props.name} type={(props.type ?? 'text') as 'text'}
        value={props.form.get(props.name) ?? ''}
        required={props.required} maxLength={props.maxLength} inputMode={props.inputMode}
        placeholder={props.placeholder} />
    </label>
  );
}

function ItemRow(props: { ctx: PageContext; form: Form; index: number }) {
  const { t } = props.ctx;
  const name = (field: string) => `items.${props.index}.${field}`;
  const value = (field: string) => props.form.get(name(field)) ?? '';
  const label = (field: string) => t('taxInvoices.issue.itemField',
    { field: t(`taxInvoices.doc.${field}` as 'taxInvoices.doc.itemName'), row: props.index + 1 });
  return (
    <tr data-line>
      <td><input name={name('date')} type="date" value={value('date')}
        aria-label={label('itemDate')} /></td>
      <td><input name={name('name')} value={value('name')} maxLength={100}
        aria-label={label('itemName')} /></td>
      <td><input name={name('specification')} value={value('specification')} maxLength={60}
        aria-label={label('specification')} /></td>
      <td><input name={name('quantity')} value={value('quantity')} inputMode="decimal"
        aria-label={label('quantity')} data-field="quantity" /></td>
      <td><input name={name('unitPrice')} value={value('unitPrice')} inputMode="numeric"
        aria-label={label('unitPrice')} data-field="unitPrice" /></td>
      <td><input name={name('supplyCost')} value={value('supplyCost')} inputMode="numeric"
        aria-label={label('supplyCost')} data-field="supplyCost" /></td>
      <td><input name={name('tax')} value={value('tax')} inputMode="numeric"
        aria-label={label('tax')} data-field="tax" /></td>
      <td><input name={name('description')} value={value('description')} maxLength={100}
        aria-label={label('itemRemark')} /></td>
    </tr>
  );
}

// The items' table of fields, which the line-editor script grows up to ITEMS_MAX rows, and their
// totals, which it keeps as the amounts are typed. `totals` are those of the form as posted (none
// before the script's first sum); `kind` tells the script the tax of a kind other than the form's.
export function LineEditor({ ctx, form, rows, kind, totals }: { ctx: PageContext; form: Form;
  rows: number; kind?: TaxKind; totals?: { supplyCost: number; tax: number; total: number } }) {
  const { t } = ctx;
  const sum = (name: keyof NonNullable<typeof totals>) =>
    (totals === undefined ? undefined : formatWon(totals[name]));
  return (
    <div class="table-wrap" data-island="line-editor" data-max={ITEMS_MAX} data-kind={kind}>
      <table class="line-editor">
        <thead><tr>
          <th>{t('taxInvoices.doc.itemDate')}</th><th>{t('taxInvoices.doc.itemName')}</th>
          <th>{t('taxInvoices.doc.specification')}</th>
          <th>{t('taxInvoices.doc.quantity')}</th><th>{t('taxInvoices.doc.unitPrice')}</th>
          <th>{t('taxInvoices.doc.supplyCost')}</th><th>{t('taxInvoices.doc.tax')}</th>
          <th>{t('taxInvoices.doc.itemRemark')}</th>
        </tr></thead>
        <tbody>
          {Array.from({ length: rows }, (_, index) => (
            <ItemRow key={index} ctx={ctx} form={form} index={index} />
          ))}
        </tbody>
      </table>
      <p class="totals" aria-live="polite" data-totals
        data-label-supply={t('taxInvoices.doc.supplyCost')}
        data-label-tax={t('taxInvoices.doc.tax')}
        data-label-total={t('taxInvoices.doc.total')}
        data-add-label={t('taxInvoices.issue.addLine')}>
        {t('taxInvoices.doc.supplyCost')}{' '}
        <output data-total="supplyCost">{sum('supplyCost')}</output>
        {' · '}{t('taxInvoices.doc.tax')} <output data-total="tax">{sum('tax')}</output>
        {' · '}{t('taxInvoices.doc.total')} <output data-total="total">{sum('total')}</output>
      </p>
    </div>
  );
}

// Who the recipient is, as the document names them: the fields of an issue and of an entry
// correction, with the API's limits.
export function RecipientNameFields({ ctx, form }: { ctx: PageContext; form: Form }) {
  const { t } = ctx;
  return (
    <>
      <Field form={form} name="recipient.name" required maxLength={100}
        label={t('taxInvoices.doc.name')} />
      <Field form={form} name="recipient.representative" required maxLength={50}
        label={t('taxInvoices.doc.representative')} />
      <Field form={form} name="recipient.address" maxLength={200}
        label={t('taxInvoices.doc.address')} />
    </>
  );
}

function RecipientFields({ ctx, form }: { ctx: PageContext; form: Form }) {
  const { t } = ctx;
  return (
    <fieldset>
      <legend>{t('taxInvoices.doc.recipient')}</legend>
      <Field form={form} name="recipient.number" required inputMode="numeric"
        label={t('taxInvoices.doc.number')} />
      {ctx.may('documents.issue') && (
        <p class="lookup">
          <button type="submit" class="secondary" formAction="/dashboard/tax-invoices/new/lookup"
            formNoValidate>{t('taxInvoices.issue.lookup')}</button>
          <span class="muted"> {t('taxInvoices.issue.lookupPrice', { points: formatNumber(
            ctx.services.platform.prices['businesses.profiles.retrieve']) })}</span>
        </p>
      )}
      <RecipientNameFields ctx={ctx} form={form} />
      <Field form={form} name="recipient.businessType" maxLength={100}
        label={t('taxInvoices.issue.businessType')} />
      <Field form={form} name="recipient.businessItem" maxLength={100}
        label={t('taxInvoices.issue.businessItem')} />
      <Field form={form} name="recipient.email" type="email" required maxLength={100}
        label={t('taxInvoices.doc.email')} />
      <Field form={form} name="recipient.manager" maxLength={30}
        label={t('taxInvoices.issue.manager')} />
    </fieldset>
  );
}

function LineFields({ ctx, form, kind }: { ctx: PageContext; form: Form; kind: TaxKind }) {
  const { t } = ctx;
  const rows = Math.max(ROWS_SHOWN, ...itemRows(form).map((index) => index + 1));
  const totals = sumAmounts(itemRows(form).map((index) => {
    const supplyCost = numberOf(text(form, `items.${index}.supplyCost`)) ?? 0;
    const tax = numberOf(text(form, `items.${index}.tax`));
    return { supplyCost: Number.isFinite(supplyCost) ? supplyCost : 0,
      tax: tax !== null && Number.isFinite(tax) ? tax : lineTax(kind, supplyCost) };
  }));
  return (
    <fieldset>
      <legend>{t('taxInvoices.doc.items')}</legend>
      <p class="muted">{t('taxInvoices.issue.itemsLead')}</p>
      <LineEditor ctx={ctx} form={form} rows={rows} totals={totals} />
      <Field form={form} name="description" maxLength={200}
        label={t('taxInvoices.doc.remark')} />
    </fieldset>
  );
}

// The form's buttons: preview (then issue) for who may issue, save as draft for who may save
// drafts, with the draft the form edits (docs/drafts.md).
function FormActions({ ctx, form }: { ctx: PageContext; form: Form }) {
  const { t } = ctx;
  const draftId = form.get('draftId');
  return (
    <p class="actions">
      {draftId !== null && (
        <>
          <input type="hidden" name="draftId" value={draftId} />
          <input type="hidden" name="draftVersion" value={form.get('draftVersion') ?? ''} />
        </>
      )}
      {ctx.may('documents.issue') && (
        <button type="submit" class="primary">{t('taxInvoices.issue.preview')}</button>)}
      {/* A draft keeps what is there, complete or not: the browser's checks are skipped. */}
      {ctx.may('drafts.submit') && (
        <button type="submit" class="secondary" formNoValidate
          formAction="/dashboard/tax-invoices/new/draft">
          {t(draftId === null ? 'drafts.form.save' : 'drafts.form.saveChanges')}</button>)}
    </p>
  );
}

// The form, filled with what was sent (or an earlier recipient picked), and a fresh reference
// id unless the form already carries one.
function IssueForm(props: { ctx: PageContext; form: Form; supplierOptions: Array<{
  supplierKey: string; organizationName: string; identificationNumber: string }>;
  recipients: Invoice['supplied'][] }) {
  const { ctx, form } = props;
  const { t } = ctx;
  const kind = kindOf(form);
  return (
    <>
      {props.recipients.length > 0 && (
        <form method="get" action="/dashboard/tax-invoices/new" class="row">
          <label>{t('taxInvoices.issue.earlier')}
            <select name="pick">
              {props.recipients.map((recipient) => (
                <option key={recipient.identificationNumber} value={recipient.identificationNumber}
                  selected={form.get('recipient.number') === recipient.identificationNumber}>
                  {recipient.organizationName} ({recipient.identificationNumber})
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="secondary">{t('taxInvoices.issue.use')}</button>
        </form>
      )}
      <PostForm ctx={ctx} action="/tax-invoices/new/preview" class="issue-form">
        <input type="hidden" name="referenceId"
          value={form.get('referenceId') ?? `dash-${randomUUID()}`} />
        <fieldset>
          <legend>{t('taxInvoices.issue.basics')}</legend>
          <label>{t('taxInvoices.doc.supplier')}
            <select name="supplierKey" required>
              {props.supplierOptions.map((option) => (
                <option key={option.supplierKey} value={option.supplierKey}
                  selected={form.get('supplierKey') === option.supplierKey}>
                  {option.organizationName} ({option.identificationNumber})
                </option>
              ))}
            </select>
          </label>
          <Field form={form} name="supplierEmail" type="email" required maxLength={100}
            label={t('taxInvoices.issue.supplierEmail')} />
          <Field form={form} name="date" type="date" required
            label={t('taxInvoices.doc.writeDate')} />
          <label>{t('taxInvoices.issue.purpose')}
            <select name="purpose">
              <option value="CLAIM">{t('taxInvoices.doc.purpose.CLAIM')}</option>
              <option value="RECEIPT" selected={form.get('purpose') === 'RECEIPT'}>
                {t('taxInvoices.doc.purpose.RECEIPT')}</option>
            </select>
          </label>
          <label>{t('taxInvoices.issue.kind')}
            <select name="taxKind" data-tax-kind>
              {KINDS.map((option) => (
                <option key={option} value={option} selected={kind === option}>
                  {t(`taxInvoices.doc.title.${option}`)}</option>
              ))}
            </select>
          </label>
        </fieldset>
        <RecipientFields ctx={ctx} form={form} />
        <LineFields ctx={ctx} form={form} kind={kind} />
        <FormActions ctx={ctx} form={form} />
      </PostForm>
    </>
  );
}

// The form's values again, hidden, for the preview's issue button.
export function Carried(props: { form: Form }) {
  return (
    <>
      {[...props.form].filter(([name]) => name !== '_csrf' && name !== 'confirm')
        .map(([name, value], index) => (
          <input key={index} type="hidden" name={name} value={value} />))}
    </>
  );
}

// The issue form's page; `aside` is shown above the form (a draft's problems at issuance).
export async function formPage(ctx: PageContext, form: Form, problem?: ApiError,
  preview?: DocumentPreview[], notice?: string, aside?: VNode): Promise<Outcome> {
  const { t } = ctx;
  const options = await suppliers(ctx);
  if (options.length === 0) {
    // Nothing to fill the form with; a refusal (a draft's, a missing confirmation) still shows.
    return { kind: 'page', title: 'taxInvoices.issue.title', status: problem?.status ?? 200,
      body: <>{problem && <ApiErrorNotice ctx={ctx} error={problem} />}
        <Notice kind="info">{t('taxInvoices.issue.noSupplier')}</Notice></> };
  }
  const recipients = await ctx.services.areas.taxInvoices.recentRecipients({ scope: ctx.scope,
    limit: RECIPIENTS_SHOWN });
  const previewed = preview?.[0];
  return { kind: 'page', title: 'taxInvoices.issue.title',
    status: problem ? problem.status : 200, body: (
      <>
        {problem && <ApiErrorNotice ctx={ctx} error={problem} />}
        {notice && <Notice kind="success">{notice}</Notice>}
        {previewed && (
          <Section title={t('taxInvoices.issue.previewTitle')} id="preview">
            <p>{t('taxInvoices.issue.previewLead', { points: ctx.services.platform.prices[
              'taxInvoices.issue'] })}</p>
            <DocumentView ctx={ctx} facts={{ invoice: previewed.invoice,
              taxType: previewed.taxType, totals: previewed.totals }} />
            <PostForm ctx={ctx} class="row" action={form.get('draftId') === null
              ? '/tax-invoices/new' : '/tax-invoices/new/draft-issue'}>
              <Carried form={form} />
              <LiveConfirmation ctx={ctx} />
              <button type="submit" class="primary">{t('taxInvoices.issue.submit')}</button>
            </PostForm>
          </Section>
        )}
        {aside}
        <Section title={t('taxInvoices.issue.form')} id="issue-form">
          <IssueForm ctx={ctx} form={form} supplierOptions={options} recipients={recipients} />
        </Section>
      </>
    ) };
}

// A new form: today's date, the first supplier's contact, and an earlier recipient if one was
// picked.
export async function newOutcome(ctx: PageContext): Promise<Outcome> {
  const form = new URLSearchParams({ date: seoulDate(ctx.now()) });
  const [first] = await suppliers(ctx);
  if (first?.contactEmail) form.set('supplierEmail', first.contactEmail);
  const pick = ctx.query.get('pick');
  if (pick !== null) {
    const recipients = await ctx.services.areas.taxInvoices.recentRecipients({
      scope: ctx.scope, limit: RECIPIENTS_SHOWN });
    const found = recipients.find((recipient) => recipient.identificationNumber === pick);
    if (found) {
      const manager = found.managers[0];
      for (const [name, value] of Object.entries({ 'recipient.number': found.identificationNumber,
        'recipient.taxRegistrationId': found.taxRegistrationId,
        'recipient.name': found.organizationName,
        'recipient.representative': found.representativeName,
        'recipient.address': found.address, 'recipient.businessType': found.businessType,
        'recipient.businessItem': found.businessItem, 'recipient.email': manager?.email,
        'recipient.manager': manager?.name })) {
        if (value) form.set(name, value);
      }
    }
  }
  return formPage(ctx, form);
}

// What both POSTs check first: the supplier of the scope, the body's shape.
async function requestOf(ctx: PageContext): Promise<{ supplierKey: string; body: Invoice;
  referenceId: string } | ApiError> {
  const supplierKey = ctx.form.get('supplierKey') ?? '';
  const supplier = (await suppliers(ctx)).find((issuer) => issuer.supplierKey === supplierKey);
  if (supplier === undefined) {
    return new ApiError('INVALID_REQUEST', ctx.t('taxInvoices.issue.supplierUnknown'));
  }
  const referenceId = ctx.form.get('referenceId') ?? '';
  if (!REFERENCE.test(referenceId)) {
    return new ApiError('INVALID_REQUEST', ctx.t('taxInvoices.issue.formExpired'));
  }
  const body = invoiceOfForm(ctx.form, supplier);
  if (body.items.length === 0) {
    return new ApiError('INVALID_REQUEST', ctx.t('taxInvoices.issue.noItems'));
  }
  if (!Value.Check(IssueBody, body)) {
    const first = [...Value.Errors(IssueBody, body)][0];
    return new ApiError('INVALID_REQUEST', ctx.t('taxInvoices.issue.fieldInvalid',
      { field: first?.instancePath ?? '' }));
  }
  return { supplierKey, body, referenceId };
}

export async function previewOutcome(ctx: PageContext): Promise<Outcome> {
  const request = await requestOf(ctx);
  if (request instanceof ApiError) return formPage(ctx, ctx.form, request);
  try {
    const drafts = await ctx.services.areas.taxInvoices.previewIssue({
      caller: dashboardCaller(ctx), ...request });
    return await formPage(ctx, ctx.form, undefined, drafts);
  } catch (error) {
    return formPage(ctx, ctx.form, asApiError(error));
  }
}

export async function issueOutcome(ctx: PageContext): Promise<Outcome> {
  const request = await requestOf(ctx);
  if (request instanceof ApiError) return formPage(ctx, ctx.form, request);
  const caller = dashboardCaller(ctx);
  if (!liveConfirmed(ctx)) {
    return formPage(ctx, ctx.form, new ApiError('INVALID_REQUEST', ctx.t('confirm.liveMissing')));
  }
  const gate = await operationGate(ctx, 'taxInvoices.issue');
  if (gate !== null) return formPage(ctx, ctx.form, gate);
  const issued = (issuanceKey: string): Outcome => ({ kind: 'redirect',
    to: `/dashboard/tax-invoices/${issuanceKey}?notice=taxInvoices.notice.issued` });
  try {
    const { issuanceKey } = await ctx.services.areas.taxInvoices.issue({ caller, ...request });
    await ctx.audit('taxInvoice.issued', issuanceKey, ctx.scope.environment);
    return issued(issuanceKey);
  } catch (error) {
    const refused = asApiError(error);
    // The same form sent again (a double click, a reload of the answer): its reference id was
    // claimed by the first, whose document is the answer.
    const earlier = await ctx.services.areas.taxInvoices.statusByReference({ caller,
      referenceId: request.referenceId }).catch(() => null);
    return earlier === null ? formPage(ctx, ctx.form, refused) : issued(earlier.issuanceKey);
  }
}

// The recipient looked up by its number with the business profiles' service (charged the
// price the form shows, as GET /v1/businesses/{number}); its facts fill the recipient's fields.
export async function lookupOutcome(ctx: PageContext): Promise<Outcome> {
  const form = new URLSearchParams(ctx.form);
  const number = (form.get('recipient.number') ?? '').trim();
  if (!/^[0-9-]{10,12}$/.test(number)) {
    return formPage(ctx, form, new ApiError('INVALID_REQUEST',
      ctx.t('taxInvoices.issue.lookupNumber')));
  }
  const gate = await operationGate(ctx, 'businesses.profiles.retrieve');
  if (gate !== null) return formPage(ctx, form, gate);
  try {
    const profile = await ctx.services.areas.businessProfiles.retrieveProfile({
      caller: ctx.scope, businessRegistrationNumber: number });
    for (const [name, value] of Object.entries({
      'recipient.number': profile.businessRegistrationNumber,
      'recipient.name': profile.organizationName,
      'recipient.representative': profile.representativeName,
      'recipient.address': profile.address?.roadAddress,
      'recipient.businessType': profile.industry.businessType,
      'recipient.businessItem': profile.industry.businessItem,
      'recipient.email': profile.contact.email })) {
      if (value) form.set(name, value);
    }
    return await formPage(ctx, form, undefined, undefined, ctx.t('taxInvoices.issue.lookedUp', {
      points: formatNumber(ctx.services.platform.prices['businesses.profiles.retrieve']) }));
  } catch (error) {
    return formPage(ctx, form, asApiError(error));
  }
}
