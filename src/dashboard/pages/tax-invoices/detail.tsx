import {
  ATTACHMENT_EXTENSIONS, ATTACHMENTS_PER_INVOICE_MAX, type AttachmentView, type TaxInvoiceView,
} from '../../../areas/tax-invoices/index.ts';
import { ApiError } from '../../../platform/errors.ts';
import { Notice, PostForm, RedirectNotice, Section } from '../../components.tsx';
import { LiveConfirmation, liveConfirmed } from '../../confirmation.tsx';
import type { Outcome, PageContext } from '../../context.ts';
import { formatDateTime } from '../../format.ts';
import type { MessageKey } from '../../i18n/index.ts';
import { errorOutcome } from '../errors.tsx';
import {
  ApiErrorNotice, asApiError, DocumentView, operationGate, StatusBadge,
} from './shared.tsx';

// One tax invoice: the document as its PDF shows it, its timeline, its XML and PDF, its
// attachments, and what can be done with it now (resend its mail, cancel it before
// transmission, amend it, decide a reverse issuance request, attach and delete files). Each
// action is the area's service behind the matching API route.

const KEY = /^[A-Za-z0-9_-]{1,100}$/;
const NOTICES = ['taxInvoices.notice.issued', 'taxInvoices.notice.canceled',
  'taxInvoices.notice.mailQueued', 'taxInvoices.notice.approved', 'taxInvoices.notice.refused',
  'taxInvoices.notice.requestCanceled', 'taxInvoices.notice.amended',
  'taxInvoices.notice.attached', 'taxInvoices.notice.attachmentDeleted'] as const satisfies
  readonly MessageKey[];
const REFUSAL_REASON_MAX = 200;

// The document of the session's scope with this key, or null: another account's or
// environment's document does not exist here.
export async function findInvoice(ctx: PageContext): Promise<TaxInvoiceView | null> {
  const issuanceKey = ctx.params.issuanceKey ?? '';
  if (!KEY.test(issuanceKey)) return null;
  try {
    return await ctx.services.areas.taxInvoices.get({ scope: ctx.scope, issuanceKey });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

type Moment = { at: string; label: string; detail: string | null };

async function timeline(ctx: PageContext, invoice: TaxInvoiceView): Promise<Moment[]> {
  const { t } = ctx;
  const changes = await ctx.services.areas.taxInvoices.history({ scope: ctx.scope,
    issuanceKey: invoice.issuanceKey });
  const moments: Moment[] = changes.map((change) => ({ at: change.occurredAt,
    label: t(`taxInvoices.moment.${change.to}`),
    detail: [t(`taxInvoices.actor.${change.actor as 'API'}`), change.message]
      .filter(Boolean).join(' · ') }));
  const events = await ctx.services.areas.webhooks.eventsAbout({ caller: ctx.scope,
    issuanceKey: invoice.issuanceKey });
  for (const event of events) {
    moments.push({ at: event.createdAt, label: t('taxInvoices.moment.event'),
      detail: event.type });
  }
  return moments.sort((a, b) => a.at.localeCompare(b.at));
}

// What a reverse issuance request waiting for a decision offers, on its page and in the list of
// requests: approve it, refuse it (with a reason), or withdraw it.
export function RequestDecisions({ ctx, base }: { ctx: PageContext; base: string }) {
  const { t } = ctx;
  return (
    <>
      <PostForm ctx={ctx} action={`${base}/approve`} class="row">
        <LiveConfirmation ctx={ctx} />
        <button type="submit" class="primary">{t('taxInvoices.approve')}</button>
      </PostForm>
      <PostForm ctx={ctx} action={`${base}/refuse`} class="row">
        <label>{t('taxInvoices.refuseReason')}
          <input name="reason" maxLength={REFUSAL_REASON_MAX} /></label>
        <LiveConfirmation ctx={ctx} />
        <button type="submit" class="danger">{t('taxInvoices.refuse')}</button>
      </PostForm>
      <PostForm ctx={ctx} action={`${base}/cancel-request`} class="row"
        confirm={t('taxInvoices.cancelRequestConfirm')}>
        <LiveConfirmation ctx={ctx} />
        <button type="submit" class="secondary">{t('taxInvoices.cancelRequest')}</button>
      </PostForm>
    </>
  );
}

function Actions({ ctx, invoice, problem }: { ctx: PageContext; invoice: TaxInvoiceView;
  problem?: ApiError }) {
  const { t } = ctx;
  const base = `/tax-invoices/${invoice.issuanceKey}`;
  const may = ctx.may('documents.issue');
  const cancelable = invoice.status === 'PENDING' || invoice.status === 'ISSUED';
  const requested = invoice.status === 'REQUESTED';
  return (
    <Section title={t('taxInvoices.actions')} id="actions">
      {problem && <ApiErrorNotice ctx={ctx} error={problem} />}
      <p class="actions">
        <a class="button secondary" href={`/dashboard${base}/pdf`} download>
          {t('taxInvoices.downloadPdf')}</a>
        {invoice.issuedAt !== null && (
          <a class="button secondary" href={`/dashboard${base}/xml`} download>
            {t('taxInvoices.downloadXml')}</a>
        )}
        {may && invoice.status === 'TRANSMITTED' && (
          <a class="button secondary" href={`/dashboard${base}/amend`}>{t('taxInvoices.amend')}</a>
        )}
      </p>
      {may && invoice.status === 'TRANSMITTED' && (
        <PostForm ctx={ctx} action={`${base}/resend`} class="row">
          <label>{t('taxInvoices.resendTo')}
            <input type="email" name="email" maxLength={100}
              placeholder={invoice.invoice.supplied.managers[0]?.email} />
          </label>
          <button type="submit" class="secondary">{t('taxInvoices.resend')}</button>
        </PostForm>
      )}
      {may && cancelable && (
        <PostForm ctx={ctx} action={`${base}/cancel`} class="row danger-zone"
          confirm={t('taxInvoices.cancelConfirm')}>
          <p>{t('taxInvoices.cancelLead')}</p>
          <LiveConfirmation ctx={ctx} />
          <button type="submit" class="danger">{t('taxInvoices.cancel')}</button>
        </PostForm>
      )}
      {may && requested && <RequestDecisions ctx={ctx} base={base} />}
    </Section>
  );
}

const ATTACHMENTS_OPEN = new Set(['REQUESTED', 'APPROVED', 'PENDING', 'ISSUED']);
const KIB = 1024;

const sizeOf = (bytes: number) => (bytes < KIB * KIB ? `${Math.ceil(bytes / KIB)} KB`
  : `${(bytes / KIB / KIB).toFixed(1)} MB`);

function Attachments({ ctx, invoice, files }: { ctx: PageContext; invoice: TaxInvoiceView;
  files: AttachmentView[] }) {
  const { t } = ctx;
  const base = `/tax-invoices/${invoice.issuanceKey}/attachments`;
  const open = ATTACHMENTS_OPEN.has(invoice.status);
  const may = ctx.may('documents.issue') && open;
  return (
    <Section title={t('taxInvoices.attachments')} id="attachments">
      <p class="muted">{t('taxInvoices.attachments.lead',
        { count: ATTACHMENTS_PER_INVOICE_MAX })}</p>
      {files.length === 0 ? <p>{t('taxInvoices.attachments.none')}</p> : (
        <table>
          <thead><tr>
            <th scope="col">{t('taxInvoices.attachments.col.name')}</th>
            <th scope="col">{t('taxInvoices.attachments.col.type')}</th>
            <th scope="col" class="num">{t('taxInvoices.attachments.col.size')}</th>
            {may && <th scope="col"><span class="visually-hidden">
              {t('taxInvoices.attachments.delete')}</span></th>}
          </tr></thead>
          <tbody>
            {files.map((file) => (
              <tr key={file.attachmentId}>
                <td class="break"><a href={`/dashboard${base}/${file.attachmentId}`} download>
                  {file.fileName}</a></td>
                {/* The type and the button keep to one line at 390 px; the name breaks. */}
                <td class="nowrap">
                  {file.contentType.split('/')[1]?.split('.').pop()?.toUpperCase()}</td>
                <td class="num">{sizeOf(file.size)}</td>
                {may && <td class="nowrap">
                  <PostForm ctx={ctx} action={`${base}/${file.attachmentId}/delete`}
                    confirm={t('taxInvoices.attachments.deleteConfirm')}>
                    <button type="submit" class="secondary">
                      {t('taxInvoices.attachments.delete')}</button>
                  </PostForm>
                </td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {!open && <p class="muted">{t('taxInvoices.attachments.locked')}</p>}
      {may && files.length < ATTACHMENTS_PER_INVOICE_MAX && (
        <form method="post" action={`/dashboard${base}`} enctype="multipart/form-data"
          class="row" data-once="">
          <input type="hidden" name="_csrf" value={ctx.csrf} />
          <label>{t('taxInvoices.attachments.file')}
            <input type="file" name="file" multiple required
              accept={ATTACHMENT_EXTENSIONS.join(',')} />
          </label>
          <button type="submit" class="secondary">{t('taxInvoices.attachments.upload')}</button>
        </form>
      )}
    </Section>
  );
}

export async function detailOutcome(ctx: PageContext, problem?: ApiError): Promise<Outcome> {
  const { t } = ctx;
  const invoice = await findInvoice(ctx);
  if (invoice === null) return errorOutcome(t, 'notFound', 404);
  const moments = await timeline(ctx, invoice);
  const files = await ctx.services.areas.taxInvoiceAttachments.list({ scope: ctx.scope,
    issuanceKey: invoice.issuanceKey });
  return { kind: 'page', title: 'taxInvoices.detail', status: problem ? problem.status : 200,
    body: (
      <>
        <RedirectNotice ctx={ctx} known={NOTICES} />
        <p class="muted"><a href="/dashboard/tax-invoices">{t('taxInvoices.backToList')}</a></p>
        <dl class="facts">
          <dt>{t('taxInvoices.col.status')}</dt>
          <dd><StatusBadge ctx={ctx} status={invoice.status} /></dd>
          <dt>{t('taxInvoices.issuanceKey')}</dt><dd><code>{invoice.issuanceKey}</code></dd>
          {invoice.clientReferenceId && <><dt>{t('taxInvoices.col.reference')}</dt>
            <dd><code>{invoice.clientReferenceId}</code></dd></>}
          <dt>{t('taxInvoices.issueDeadline')}</dt><dd>{invoice.issueDeadline}
            {invoice.lateIssuance ? ` · ${t('taxInvoices.kind.late')}` : ''}</dd>
          {invoice.amendment && <><dt>{t('taxInvoices.original')}</dt>
            <dd><a href={`/dashboard/tax-invoices/${invoice.amendment.originalIssuanceKey}`}>
              <code>{invoice.amendment.originalIssuanceKey}</code></a></dd></>}
        </dl>
        {invoice.failure && (
          <Notice kind="error">{invoice.failure.code}: {invoice.failure.message}</Notice>
        )}
        <Actions ctx={ctx} invoice={invoice} problem={problem} />
        <Attachments ctx={ctx} invoice={invoice} files={files} />
        <DocumentView ctx={ctx} facts={{ invoice: invoice.invoice, taxType: invoice.taxType,
          totals: invoice.totals, ntsTransactionId: invoice.ntsTransactionId,
          amendmentReason: invoice.amendment?.reason ?? null }} />
        <Section title={t('taxInvoices.timeline')} id="timeline">
          <ol class="timeline">
            {moments.map((moment, index) => (
              <li key={index}>
                <time dateTime={moment.at}>{formatDateTime(new Date(moment.at))}</time>
                {' '}<strong>{moment.label}</strong>
                {moment.detail && <span class="muted"> {moment.detail}</span>}
              </li>
            ))}
          </ol>
        </Section>
      </>
    ) };
}

// A POST on one document: the document must be of the scope, the live confirmation typed and
// the operation's gates passed before `act` runs; a refusal of the service is shown on the
// document's page.
async function act(ctx: PageContext, operation: string,
  work: (invoice: TaxInvoiceView) => Promise<MessageKey>, needsConfirmation = true):
  Promise<Outcome> {
  const invoice = await findInvoice(ctx);
  if (invoice === null) return errorOutcome(ctx.t, 'notFound', 404);
  if (needsConfirmation && !liveConfirmed(ctx)) {
    return detailOutcome(ctx, new ApiError('INVALID_REQUEST', ctx.t('confirm.liveMissing')));
  }
  const gate = await operationGate(ctx, operation);
  if (gate !== null) return detailOutcome(ctx, gate);
  let notice: MessageKey;
  try {
    notice = await work(invoice);
  } catch (error) {
    return detailOutcome(ctx, asApiError(error));
  }
  return { kind: 'redirect',
    to: `/dashboard/tax-invoices/${invoice.issuanceKey}?notice=${notice}` };
}

export const cancel = (ctx: PageContext) => act(ctx, 'taxInvoices.cancel', async (invoice) => {
  await ctx.services.areas.taxInvoices.cancel({ scope: ctx.scope,
    issuanceKey: invoice.issuanceKey, actor: 'DASHBOARD' });
  await ctx.audit('taxInvoice.canceled', invoice.issuanceKey, ctx.scope.environment);
  return 'taxInvoices.notice.canceled';
});

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export const resend = (ctx: PageContext) => act(ctx, 'taxInvoices.resendEmail',
  async (invoice) => {
    const email = ctx.form.get('email')?.trim() || undefined;
    if (email !== undefined && (email.length > 100 || !EMAIL.test(email))) {
      throw new ApiError('INVALID_REQUEST', ctx.t('taxInvoices.emailInvalid'));
    }
    await ctx.services.areas.invoiceMail.resendEmail({ scope: ctx.scope,
      issuanceKey: invoice.issuanceKey, email });
    await ctx.audit('taxInvoice.mailResent', invoice.issuanceKey, ctx.scope.environment);
    return 'taxInvoices.notice.mailQueued';
  }, false);

export const approve = (ctx: PageContext) => act(ctx, 'taxInvoices.issueRequest.approve',
  async (invoice) => {
    await ctx.services.areas.reverseIssuance.approveInScope({ scope: ctx.scope,
      issuanceKey: invoice.issuanceKey, actor: 'DASHBOARD' });
    await ctx.audit('taxInvoice.requestApproved', invoice.issuanceKey, ctx.scope.environment);
    return 'taxInvoices.notice.approved';
  });

export const refuse = (ctx: PageContext) => act(ctx, 'taxInvoices.issueRequest.refuse',
  async (invoice) => {
    const reason = ctx.form.get('reason')?.trim() || null;
    if (reason !== null && reason.length > REFUSAL_REASON_MAX) {
      throw new ApiError('INVALID_REQUEST', ctx.t('taxInvoices.reasonTooLong',
        { max: REFUSAL_REASON_MAX }));
    }
    await ctx.services.areas.reverseIssuance.refuseInScope({ scope: ctx.scope,
      issuanceKey: invoice.issuanceKey, actor: 'DASHBOARD', reason });
    await ctx.audit('taxInvoice.requestRefused', invoice.issuanceKey, ctx.scope.environment);
    return 'taxInvoices.notice.refused';
  });

export const cancelRequest = (ctx: PageContext) => act(ctx, 'taxInvoices.issueRequest.cancel',
  async (invoice) => {
    await ctx.services.areas.reverseIssuance.cancel({ scope: ctx.scope,
      issuanceKey: invoice.issuanceKey, actor: 'DASHBOARD' });
    await ctx.audit('taxInvoice.requestCanceled', invoice.issuanceKey, ctx.scope.environment);
    return 'taxInvoices.notice.requestCanceled';
  });

export async function pdfOutcome(ctx: PageContext): Promise<Outcome> {
  const invoice = await findInvoice(ctx);
  if (invoice === null) return errorOutcome(ctx.t, 'notFound', 404);
  const body = await ctx.services.areas.taxInvoices.pdf({ scope: ctx.scope,
    issuanceKey: invoice.issuanceKey });
  return { kind: 'download', contentType: 'application/pdf',
    filename: `${invoice.issuanceKey}.pdf`, body: Buffer.from(body) };
}

export async function xmlOutcome(ctx: PageContext): Promise<Outcome> {
  const invoice = await findInvoice(ctx);
  if (invoice === null) return errorOutcome(ctx.t, 'notFound', 404);
  try {
    const body = await ctx.services.areas.taxInvoiceXml.signedXml({ scope: ctx.scope,
      issuanceKey: invoice.issuanceKey });
    return { kind: 'download', contentType: 'application/xml; charset=utf-8',
      filename: `${invoice.issuanceKey}.xml`, body };
  } catch (error) {
    return detailOutcome(ctx, asApiError(error));
  }
}

// The files of the form, attached by the same service as POST …/attachments.
export const attach = (ctx: PageContext) => act(ctx, 'taxInvoices.attachments.add',
  async (invoice) => {
    const files = ctx.files.filter((file) => file.field === 'file' && file.buffer.length > 0)
      .map((file) => ({ fileName: file.fileName, content: file.buffer }));
    if (ctx.files.some((file) => file.truncated)) {
      throw new ApiError('PAYLOAD_TOO_LARGE', ctx.t('taxInvoices.attachments.tooLarge'));
    }
    if (files.length === 0) {
      throw new ApiError('INVALID_REQUEST', ctx.t('taxInvoices.attachments.noFile'));
    }
    await ctx.services.areas.taxInvoiceAttachments.add({ scope: ctx.scope,
      issuanceKey: invoice.issuanceKey, files });
    await ctx.audit('taxInvoice.attached', invoice.issuanceKey, ctx.scope.environment);
    return 'taxInvoices.notice.attached';
  }, false);

export const deleteAttachment = (ctx: PageContext) => act(ctx,
  'taxInvoices.attachments.delete', async (invoice) => {
    await ctx.services.areas.taxInvoiceAttachments.remove({ scope: ctx.scope,
      issuanceKey: invoice.issuanceKey, attachmentId: ctx.params.attachmentId ?? '' });
    await ctx.audit('taxInvoice.attachmentDeleted', invoice.issuanceKey,
      ctx.scope.environment);
    return 'taxInvoices.notice.attachmentDeleted';
  }, false);

export async function attachmentOutcome(ctx: PageContext): Promise<Outcome> {
  const invoice = await findInvoice(ctx);
  const attachmentId = ctx.params.attachmentId ?? '';
  if (invoice === null || !KEY.test(attachmentId)) return errorOutcome(ctx.t, 'notFound', 404);
  try {
    const file = await ctx.services.areas.taxInvoiceAttachments.download({ scope: ctx.scope,
      issuanceKey: invoice.issuanceKey, attachmentId });
    return { kind: 'download', contentType: file.contentType, filename: file.fileName,
      body: file.content };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'NOT_FOUND') {
      return errorOutcome(ctx.t, 'notFound', 404);
    }
    throw error;
  }
}
