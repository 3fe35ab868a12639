import type { ComponentChildren } from 'preact';
import type { DraftService, DraftView } from '../../areas/drafts/index.ts';
import { ApiError } from '../../platform/errors.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime, formatWon } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { attempt, dashboardCaller, newReferenceId, Refusal, refused } from './acting.tsx';
import { LiveConfirmation, liveConfirmed } from '../confirmation.tsx';

// Drafts (docs/drafts.md): the account's tax invoice and cash receipt drafts, one kind at a
// time, the ones waiting for approval with approve and send back for who may issue, edit,
// submit and delete for who may save drafts, and the account's approval setting for Owners and
// Admins. Every action is the drafts area's service, the one behind /v1/taxInvoices/drafts and
// /v1/cashReceipts/drafts; a draft is edited in its kind's issue form.

const SHOWN = 100;
const REASON_MAX = 500;
const DRAFT_ID = /^drf_[A-Za-z0-9_-]{1,60}$/;
const NOTICES = ['drafts.approvalSaved', 'drafts.approved', 'drafts.sentBack',
  'drafts.submitted', 'drafts.deleted', 'drafts.imported', 'drafts.importedSubmitted',
  'drafts.importedNotAllSubmitted'] as const satisfies readonly MessageKey[];

type Row = DraftView;

const text = (value: unknown) => (typeof value === 'string' ? value : '');
const amount = (value: unknown) => (typeof value === 'number' ? formatWon(value) : '');

function supplyCostOf(row: Row): number | null {
  const items = row.body.items;
  if (!Array.isArray(items)) return null;
  let total = 0;
  for (const item of items) {
    const cost = (item as { supplyCost?: unknown }).supplyCost;
    if (typeof cost === 'number') total += cost;
  }
  return total;
}

// What differs between the kinds: the service, the paths, and the columns that say what a
// draft is.
type Kind = {
  slug: 'tax-invoices' | 'cash-receipts';
  tab: MessageKey;
  lead: MessageKey;
  service(ctx: PageContext): DraftService;
  columns: Array<{ label: MessageKey; num?: true; cell(row: Row): ComponentChildren }>;
};

const KINDS: readonly Kind[] = [
  { slug: 'tax-invoices', tab: 'drafts.kind.taxInvoices', lead: 'drafts.lead',
    service: (ctx) => ctx.services.areas.taxInvoiceDrafts,
    columns: [
      { label: 'drafts.col.recipient',
        cell: (row) => text((row.body.supplied as Record<string, unknown> | undefined)
          ?.organizationName) },
      { label: 'drafts.col.description', cell: (row) => text(row.body.description) },
      { label: 'drafts.col.supplyCost', num: true,
        cell: (row) => {
          const cost = supplyCostOf(row);
          return cost === null ? '' : formatWon(cost);
        } },
    ] },
  { slug: 'cash-receipts', tab: 'drafts.kind.cashReceipts', lead: 'drafts.leadCashReceipts',
    service: (ctx) => ctx.services.areas.cashReceiptDrafts,
    columns: [
      { label: 'drafts.col.item', cell: (row) => text(row.body.itemName) },
      { label: 'drafts.col.tradeDate', cell: (row) => text(row.body.tradeDate) },
      { label: 'drafts.col.totalAmount', num: true, cell: (row) => amount(row.body.totalAmount) },
    ] },
];

const kindOf = (slug: string | null | undefined): Kind =>
  KINDS.find((kind) => kind.slug === slug) ?? KINDS[0]!;

function Actions({ ctx, kind, row }: { ctx: PageContext; kind: Kind; row: Row }) {
  const { t } = ctx;
  const base = `/drafts/${row.draftId}`;
  const which = <input type="hidden" name="kind" value={kind.slug} />;
  return (
    <div class="stack">
      {row.status === 'SUBMITTED' && ctx.may('documents.issue') && (
        <>
          <PostForm ctx={ctx} action={`${base}/approve`} class="row">
            {which}
            <input type="hidden" name="referenceId" value={newReferenceId()} />
            <LiveConfirmation ctx={ctx} />
            <button type="submit" class="primary">{t('drafts.approve')}</button>
          </PostForm>
          <PostForm ctx={ctx} action={`${base}/return`} class="row">
            {which}
            <label>{t('drafts.reason')}
              <input name="reason" required maxLength={REASON_MAX} /></label>
            <button type="submit" class="danger">{t('drafts.sendBack')}</button>
          </PostForm>
        </>
      )}
      {row.status === 'DRAFT' && ctx.may('drafts.submit') && (
        <>
          <a class="button secondary" href={`/dashboard/${kind.slug}/new?draft=${row.draftId}`}>
            {t('drafts.edit')}</a>
          <PostForm ctx={ctx} action={`${base}/submit`}>
            {which}
            <button type="submit" class="secondary">{t('drafts.submit')}</button>
          </PostForm>
        </>
      )}
      {row.status !== 'ISSUED' && ctx.may('drafts.submit') && (
        <PostForm ctx={ctx} action={`${base}/delete`} confirm={t('drafts.deleteConfirm')}>
          {which}
          <button type="submit" class="danger">{t('drafts.delete')}</button>
        </PostForm>
      )}
    </div>
  );
}

function DraftCell({ ctx, kind, row }: { ctx: PageContext; kind: Kind; row: Row }) {
  const { t } = ctx;
  // One block: as a card (below 700 px) the cell is a grid of its label and one value, and the
  // lines stay together beside the label.
  return (
    <div>
      <code>{row.draftId}</code><br />
      <span class="muted">{formatDateTime(new Date(row.updatedAt))}</span>
      {row.issuanceKey !== null && (<><br />{t('drafts.issuanceKey')}{' '}
        <a href={`/dashboard/${kind.slug}/${row.issuanceKey}`}>
          <code>{row.issuanceKey}</code></a></>)}
      {row.returnReason !== null && row.status === 'DRAFT' && (
        <><br /><span class="break">{t('drafts.returned', { reason: row.returnReason })}</span></>)}
    </div>
  );
}

function DraftTable({ ctx, kind, rows }: { ctx: PageContext; kind: Kind; rows: Row[] }) {
  const { t } = ctx;
  if (rows.length === 0) return <p class="muted">{t('drafts.none')}</p>;
  return (
    <CardTable head={<>
      <th>{t('drafts.col.draft')}</th>
      {kind.columns.map((column) => (
        <th key={column.label} class={column.num ? 'num' : undefined}>{t(column.label)}</th>))}
      <th>{t('drafts.col.createdBy')}</th><th>{t('drafts.col.actions')}</th>
    </>}>
      {rows.map((row) => (
        <tr key={row.draftId}>
          <td data-label={t('drafts.col.draft')}>
            <DraftCell ctx={ctx} kind={kind} row={row} /></td>
          {kind.columns.map((column) => (
            <td key={column.label} data-label={t(column.label)}
              class={column.num ? 'num' : 'break'}>{column.cell(row)}</td>))}
          <td data-label={t('drafts.col.createdBy')}><code>{row.createdBy}</code></td>
          <td data-label={t('drafts.col.actions')} class="nowrap">
            <Actions ctx={ctx} kind={kind} row={row} /></td>
        </tr>
      ))}
    </CardTable>
  );
}

function ApprovalSetting({ ctx, required }: { ctx: PageContext; required: boolean }) {
  const { t } = ctx;
  return (
    <Section title={t('drafts.approval')} id="approval">
      <p class="muted">{t('drafts.approvalLead')}</p>
      <PostForm ctx={ctx} action="/drafts/approval" class="row">
        <label class="check"><input type="radio" name="approvalRequired" value="true"
          checked={required} />{' '}{t('drafts.approvalOn')}</label>
        <label class="check"><input type="radio" name="approvalRequired" value="false"
          checked={!required} />{' '}{t('drafts.approvalOff')}</label>
        <button type="submit" class="secondary">{t('drafts.approvalSave')}</button>
      </PostForm>
    </Section>
  );
}

function KindTabs({ ctx, current }: { ctx: PageContext; current: Kind }) {
  return (
    <nav aria-label={ctx.t('drafts.kinds')} class="tabs">
      <ul>
        {KINDS.map((kind) => (
          <li key={kind.slug}>
            <a href={`/dashboard/drafts?kind=${kind.slug}`}
              aria-current={kind === current ? 'page' : undefined}>{ctx.t(kind.tab)}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

async function draftsPage(ctx: PageContext, kind: Kind, problem?: ApiError): Promise<Outcome> {
  const { t } = ctx;
  const service = kind.service(ctx);
  const list = (status: Row['status']) => service.list({ scope: ctx.scope,
    statuses: [status], limit: SHOWN });
  const [waiting, editable, issued, required] = await Promise.all([list('SUBMITTED'),
    list('DRAFT'), list('ISSUED'),
    ctx.services.areas.draftApproval.approvalRequired(ctx.scope.accountId)]);
  const table = (rows: Row[]) => <DraftTable ctx={ctx} kind={kind} rows={rows} />;
  return { kind: 'page', title: 'drafts.title', status: problem ? problem.status : 200, body: (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Refusal ctx={ctx} error={problem} />}
      <KindTabs ctx={ctx} current={kind} />
      <p>{t(kind.lead)}</p>
      {ctx.may('drafts.submit') && (
        <p class="actions"><a class="button primary" href={`/dashboard/${kind.slug}/new`}>
          {t('drafts.new')}</a></p>)}
      {required && <Notice kind="info">{t('drafts.approvalOn')}</Notice>}
      <Section title={t('drafts.waiting')} id="waiting">{table(waiting.drafts)}</Section>
      <Section title={t('drafts.editable')} id="editable">{table(editable.drafts)}</Section>
      <Section title={t('drafts.issued')} id="issued">{table(issued.drafts)}</Section>
      {ctx.may('drafts.configure') && <ApprovalSetting ctx={ctx} required={required} />}
    </>
  ) };
}

const done = (kind: Kind, notice: MessageKey): Outcome =>
  ({ kind: 'redirect', to: `/dashboard/drafts?kind=${kind.slug}&notice=${notice}` });

// A draft action: the draft named by the path, of the kind the form names, the service's call,
// then back to the list with a notice, or the list with the refusal.
function action(run: (ctx: PageContext, drafts: DraftService, draftId: string) =>
  Promise<unknown>, notice: MessageKey) {
  return async (ctx: PageContext): Promise<Outcome> => {
    const kind = kindOf(ctx.form.get('kind'));
    const draftId = ctx.params.draftId ?? '';
    if (!DRAFT_ID.test(draftId)) {
      return { kind: 'redirect', to: `/dashboard/drafts?kind=${kind.slug}` };
    }
    const outcome = await attempt(() => run(ctx, kind.service(ctx), draftId));
    return refused(outcome) ? draftsPage(ctx, kind, outcome) : done(kind, notice);
  };
}

export const draftsPageModule: DashboardPage = {
  nav: { label: 'nav.drafts', path: '/drafts', section: 'issuing', permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/drafts', permission: 'account.read',
      handle: (ctx) => draftsPage(ctx, kindOf(ctx.query.get('kind'))) },
    { method: 'POST', path: '/drafts/approval', permission: 'drafts.configure',
      handle: async (ctx) => {
        await ctx.services.areas.draftApproval.setApprovalRequired({
          accountId: ctx.scope.accountId,
          approvalRequired: ctx.form.get('approvalRequired') === 'true',
          actor: dashboardCaller(ctx).apiKeyId });
        return done(KINDS[0]!, 'drafts.approvalSaved');
      } },
    { method: 'POST', path: '/drafts/:draftId/approve', permission: 'documents.issue',
      handle: action(async (ctx, drafts, draftId) => {
        if (!liveConfirmed(ctx)) {
          throw new ApiError('INVALID_REQUEST', ctx.t('confirm.liveMissing'));
        }
        const referenceId = ctx.form.get('referenceId') ?? '';
        return drafts.approve({ caller: dashboardCaller(ctx), draftId,
          referenceId: /^dash-[0-9a-f-]{36}$/.test(referenceId) ? referenceId
            : newReferenceId() });
      }, 'drafts.approved') },
    { method: 'POST', path: '/drafts/:draftId/return', permission: 'documents.issue',
      handle: action((ctx, drafts, draftId) => drafts.sendBack({
        caller: dashboardCaller(ctx), draftId, reason: ctx.form.get('reason') ?? '' }),
      'drafts.sentBack') },
    { method: 'POST', path: '/drafts/:draftId/submit', permission: 'drafts.submit',
      handle: action((ctx, drafts, draftId) => drafts.submit({ caller: dashboardCaller(ctx),
        draftId }), 'drafts.submitted') },
    { method: 'POST', path: '/drafts/:draftId/delete', permission: 'drafts.submit',
      handle: action((ctx, drafts, draftId) => drafts.remove({ scope: ctx.scope, draftId }),
        'drafts.deleted') },
  ],
};
