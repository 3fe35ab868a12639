import type { DraftView } from '../../areas/drafts/index.ts';
import { ApiError } from '../../platform/errors.ts';
import { Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime, formatWon } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { attempt, dashboardCaller, newReferenceId, Refusal, refused } from './acting.tsx';
import { LiveConfirmation, liveConfirmed } from '../confirmation.tsx';

// Drafts (docs/drafts.md): the account's tax invoice drafts, the ones waiting for approval with
// approve and send back for who may issue, submit and delete for who may save drafts, and the
// account's approval setting for Owners and Admins. Every action is the drafts area's service,
// the one behind /v1/taxInvoices/drafts.

const SHOWN = 100;
const REASON_MAX = 500;
const DRAFT_ID = /^drf_[A-Za-z0-9_-]{1,60}$/;
const NOTICES = ['drafts.approvalSaved', 'drafts.approved', 'drafts.sentBack',
  'drafts.submitted', 'drafts.deleted'] as const satisfies readonly MessageKey[];

type Row = DraftView;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

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

function Actions({ ctx, row }: { ctx: PageContext; row: Row }) {
  const { t } = ctx;
  const base = `/drafts/${row.draftId}`;
  return (
    <div class="stack">
      {row.status === 'SUBMITTED' && ctx.may('documents.issue') && (
        <>
          <PostForm ctx={ctx} action={`${base}/approve`} class="row">
            <input type="hidden" name="referenceId" value={newReferenceId()} />
            <LiveConfirmation ctx={ctx} />
            <button type="submit" class="primary">{t('drafts.approve')}</button>
          </PostForm>
          <PostForm ctx={ctx} action={`${base}/return`} class="row">
            <label>{t('drafts.reason')}
              <input name="reason" required maxLength={REASON_MAX} /></label>
            <button type="submit" class="danger">{t('drafts.sendBack')}</button>
          </PostForm>
        </>
      )}
      {row.status === 'DRAFT' && ctx.may('drafts.submit') && (
        <PostForm ctx={ctx} action={`${base}/submit`}>
          <button type="submit" class="secondary">{t('drafts.submit')}</button>
        </PostForm>
      )}
      {row.status !== 'ISSUED' && ctx.may('drafts.submit') && (
        <PostForm ctx={ctx} action={`${base}/delete`} confirm={t('drafts.deleteConfirm')}>
          <button type="submit" class="danger">{t('drafts.delete')}</button>
        </PostForm>
      )}
    </div>
  );
}

function DraftTable({ ctx, rows }: { ctx: PageContext; rows: Row[] }) {
  const { t } = ctx;
  if (rows.length === 0) return <p class="muted">{t('drafts.none')}</p>;
  const supplied = (row: Row) => (row.body.supplied ?? {}) as Record<string, unknown>;
  return (
    <div class="table-wrap">
      <table class="cards">
        <thead><tr>
          <th>{t('drafts.col.draft')}</th><th>{t('drafts.col.recipient')}</th>
          <th>{t('drafts.col.description')}</th>
          <th class="num">{t('drafts.col.supplyCost')}</th>
          <th>{t('drafts.col.createdBy')}</th><th>{t('drafts.col.actions')}</th>
        </tr></thead>
        <tbody>
          {rows.map((row) => {
            const cost = supplyCostOf(row);
            return (
              <tr key={row.draftId}>
                <td data-label={t('drafts.col.draft')}>
                  {/* One block: as a card (below 700 px) the cell is a grid of its label and
                      one value, and the lines stay together beside the label. */}
                  <div>
                    <code>{row.draftId}</code><br />
                    <span class="muted">{formatDateTime(new Date(row.updatedAt))}</span>
                    {row.issuanceKey !== null && (<><br />{t('drafts.issuanceKey')}{' '}
                      <a href={`/dashboard/tax-invoices/${row.issuanceKey}`}>
                        <code>{row.issuanceKey}</code></a></>)}
                    {row.returnReason !== null && row.status === 'DRAFT' && (
                      <><br /><span class="break">
                        {t('drafts.returned', { reason: row.returnReason })}</span></>)}
                  </div>
                </td>
                <td data-label={t('drafts.col.recipient')}>
                  {text(supplied(row).organizationName)}</td>
                <td data-label={t('drafts.col.description')} class="break">
                  {text(row.body.description)}</td>
                <td data-label={t('drafts.col.supplyCost')} class="num">
                  {cost === null ? '' : formatWon(cost)}</td>
                <td data-label={t('drafts.col.createdBy')}><code>{row.createdBy}</code></td>
                {/* The buttons' words stay on one line (승인 요청, not 승인 / 요청). */}
                <td data-label={t('drafts.col.actions')} class="nowrap">
                  <Actions ctx={ctx} row={row} /></td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
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

async function draftsPage(ctx: PageContext, problem?: ApiError): Promise<Outcome> {
  const { t } = ctx;
  const { taxInvoiceDrafts, draftApproval } = ctx.services.areas;
  const list = (status: Row['status']) => taxInvoiceDrafts.list({ scope: ctx.scope,
    statuses: [status], limit: SHOWN });
  const [waiting, editable, issued, required] = await Promise.all([list('SUBMITTED'),
    list('DRAFT'), list('ISSUED'), draftApproval.approvalRequired(ctx.scope.accountId)]);
  return { kind: 'page', title: 'drafts.title', status: problem ? problem.status : 200, body: (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Refusal ctx={ctx} error={problem} />}
      <p>{t('drafts.lead')}</p>
      {required && <Notice kind="info">{t('drafts.approvalOn')}</Notice>}
      <Section title={t('drafts.waiting')} id="waiting">
        <DraftTable ctx={ctx} rows={waiting.drafts} />
      </Section>
      <Section title={t('drafts.editable')} id="editable">
        <DraftTable ctx={ctx} rows={editable.drafts} />
      </Section>
      <Section title={t('drafts.issued')} id="issued">
        <DraftTable ctx={ctx} rows={issued.drafts} />
      </Section>
      {ctx.may('drafts.configure') && <ApprovalSetting ctx={ctx} required={required} />}
    </>
  ) };
}

const done = (notice: MessageKey): Outcome =>
  ({ kind: 'redirect', to: `/dashboard/drafts?notice=${notice}` });

// A draft action: the draft named by the path, the service's call, then back to the list with
// a notice, or the list with the refusal.
function action(run: (ctx: PageContext, draftId: string) => Promise<unknown>,
  notice: MessageKey) {
  return async (ctx: PageContext): Promise<Outcome> => {
    const draftId = ctx.params.draftId ?? '';
    if (!DRAFT_ID.test(draftId)) return { kind: 'redirect', to: '/dashboard/drafts' };
    const outcome = await attempt(() => run(ctx, draftId));
    return refused(outcome) ? draftsPage(ctx, outcome) : done(notice);
  };
}

const drafts = (ctx: PageContext) => ctx.services.areas.taxInvoiceDrafts;

export const draftsPageModule: DashboardPage = {
  nav: { label: 'nav.drafts', path: '/drafts', section: 'issuing', permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/drafts', permission: 'account.read',
      handle: (ctx) => draftsPage(ctx) },
    { method: 'POST', path: '/drafts/approval', permission: 'drafts.configure',
      handle: async (ctx) => {
        await ctx.services.areas.draftApproval.setApprovalRequired({
          accountId: ctx.scope.accountId,
          approvalRequired: ctx.form.get('approvalRequired') === 'true',
          actor: dashboardCaller(ctx).apiKeyId });
        return done('drafts.approvalSaved');
      } },
    { method: 'POST', path: '/drafts/:draftId/approve', permission: 'documents.issue',
      handle: action(async (ctx, draftId) => {
        if (!liveConfirmed(ctx)) {
          throw new ApiError('INVALID_REQUEST', ctx.t('confirm.liveMissing'));
        }
        const referenceId = ctx.form.get('referenceId') ?? '';
        return drafts(ctx).approve({ caller: dashboardCaller(ctx), draftId,
          referenceId: /^dash-[0-9a-f-]{36}$/.test(referenceId) ? referenceId
            : newReferenceId() });
      }, 'drafts.approved') },
    { method: 'POST', path: '/drafts/:draftId/return', permission: 'documents.issue',
      handle: action((ctx, draftId) => drafts(ctx).sendBack({ caller: dashboardCaller(ctx),
        draftId, reason: ctx.form.get('reason') ?? '' }), 'drafts.sentBack') },
    { method: 'POST', path: '/drafts/:draftId/submit', permission: 'drafts.submit',
      handle: action((ctx, draftId) => drafts(ctx).submit({ caller: dashboardCaller(ctx),
        draftId }), 'drafts.submitted') },
    { method: 'POST', path: '/drafts/:draftId/delete', permission: 'drafts.submit',
      handle: action((ctx, draftId) => drafts(ctx).remove({ scope: ctx.scope, draftId }),
        'drafts.deleted') },
  ],
};
