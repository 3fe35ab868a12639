import { ApiError } from '../../platform/errors.ts';
import { LEDGER_KINDS, type LedgerEntry, type LedgerKind } from
  '../../platform/points/ledger-reads.ts';
import type { LedgerPage, LedgerQuery } from '../../platform/points/service.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime, formatNumber, formatPoints } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { toCsv } from '../csv.ts';
import type { VNode } from 'preact';
import {
  ChoiceFilter, FilterForm as ListFilterForm, filterQuery, isCursor, isDay, listAnswer, NextPage,
  readFilters,
} from '../list-page.tsx';

// Points: the ledger of the session's environment with the reservations still open, filtered
// by kind and Seoul dates (an htmx request gets the table alone), paged newest first, and as
// CSV. The test balance can be topped up here through the same ledger grant as the operator's
// `etax points grant`; live points stay the operator's to grant.

const PAGE_SIZE = 50;
const CSV_ROWS_MAX = 50_000;
const OPEN_RESERVATIONS_SHOWN = 50;
const TEST_TOP_UP_POINTS_MAX = 10_000_000;
const NOTICES = ['points.toppedUp'] as const satisfies readonly MessageKey[];

// `before`: the ledger's cursor, named as the API's.
type Filters = { kind?: LedgerKind; from?: string; to?: string; before?: string };

const isKind = (value: string): value is LedgerKind =>
  (LEDGER_KINDS as readonly string[]).includes(value);

// The filters of the query string, or null when one of them is not a value the form offers.
const FILTER_RULES = { kind: isKind, from: isDay, to: isDay, before: isCursor };
const readLedgerFilters = (query: URLSearchParams) =>
  readFilters(query, FILTER_RULES) as Filters | null;

function ledgerQuery(filters: Filters, limit: number): LedgerQuery {
  return { limit, kinds: filters.kind === undefined ? undefined : [filters.kind],
    from: filters.from, to: filters.to, cursor: filters.before };
}

// A page of the ledger, or null when the service refuses the filters (a day that does not
// exist, a cursor it did not write): the same checks as the API's.
async function ledgerPageOf(ctx: PageContext, filters: Filters, limit: number):
  Promise<LedgerPage | null> {
  try {
    return await ctx.services.areas.pointsLedger.ledgerPage(ctx.scope,
      ledgerQuery(filters, limit));
  } catch (error) {
    if (error instanceof ApiError && error.code === 'INVALID_REQUEST') return null;
    throw error;
  }
}

const queryOf = (filters: Filters, before?: string) =>
  filterQuery({ kind: filters.kind, from: filters.from, to: filters.to, before });

function LedgerTable({ ctx, entries, nextCursor, filters }: { ctx: PageContext;
  entries: LedgerEntry[]; nextCursor: string | null; filters: Filters }) {
  const { t } = ctx;
  return (
    <div id="ledger">
      {entries.length === 0 ? <p class="muted">{t('points.noEntries')}</p> : (
        <CardTable head={<>
          <th>{t('points.when')}</th><th>{t('points.kind')}</th>
          <th>{t('points.operation')}</th><th class="num">{t('points.amount')}</th>
          <th class="num">{t('points.balanceAfter')}</th><th>{t('points.reference')}</th>
          <th>{t('points.memo')}</th>
        </>}>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td data-label={t('points.when')}>{formatDateTime(entry.createdAt)}</td>
              <td data-label={t('points.kind')}>{t(`points.kind.${entry.kind}`)}</td>
              <td data-label={t('points.operation')}>
                {entry.operation && <code>{entry.operation}</code>}
              </td>
              <td data-label={t('points.amount')} class="num">
                {entry.amountPoints > 0 ? '+' : ''}{formatNumber(entry.amountPoints)}
              </td>
              <td data-label={t('points.balanceAfter')} class="num">
                {formatPoints(entry.balanceAfterPoints)}
              </td>
              <td data-label={t('points.reference')}>
                {entry.reservationId && <code>{entry.reservationId}</code>}
              </td>
              <td data-label={t('points.memo')}>{entry.memo ?? ''}</td>
            </tr>
          ))}
        </CardTable>
      )}
      <NextPage href={nextCursor === null ? null
        : `/dashboard/points?${queryOf(filters, nextCursor)}`} label={t('points.more')} />
    </div>
  );
}

function FilterForm({ ctx, filters }: { ctx: PageContext; filters: Filters }) {
  const { t } = ctx;
  return (
    <ListFilterForm path="/points" target="ledger">
      <ChoiceFilter label={t('points.filterKind')} name="kind" all={t('points.filterAll')}
        options={['grant', 'capture', 'charge', 'refund'] as const} chosen={filters.kind}
        text={(kind) => `${t(`points.kind.${kind}`)} (${kind})`} />
      <label>{t('points.filterFrom')}
        <input type="date" name="from" value={filters.from ?? ''} />
      </label>
      <label>{t('points.filterTo')}
        <input type="date" name="to" value={filters.to ?? ''} />
      </label>
      <button type="submit" class="secondary">{t('points.apply')}</button>
      <a href={`/dashboard/points.csv?${queryOf(filters)}`} download>{t('points.csv')}</a>
    </ListFilterForm>
  );
}

function TopUp({ ctx, problem }: { ctx: PageContext; problem?: MessageKey }) {
  const { t } = ctx;
  if (ctx.scope.environment === 'live') return <p class="muted">{t('points.liveGrants')}</p>;
  if (!ctx.may('points.topUpTest')) return null;
  return (
    <Section title={t('points.topUp')} id="top-up">
      <p>{t('points.topUpLead')}</p>
      {problem && <Notice kind="error">
        {t(problem, { max: formatNumber(TEST_TOP_UP_POINTS_MAX) })}
      </Notice>}
      <PostForm ctx={ctx} action="/points/top-up" class="row">
        <label>{t('points.topUpAmount')}
          <input type="number" name="points" min={1} max={TEST_TOP_UP_POINTS_MAX} step={1}
            required inputMode="numeric" />
        </label>
        <button type="submit" class="primary">{t('points.topUpSubmit')}</button>
      </PostForm>
    </Section>
  );
}

async function pointsOutcome(ctx: PageContext, problem?: MessageKey): Promise<Outcome> {
  const { t } = ctx;
  const filters = readLedgerFilters(ctx.query);
  const page = filters === null ? null : await ledgerPageOf(ctx, filters, PAGE_SIZE);
  if (filters === null || page === null) {
    return { kind: 'page', title: 'points.title', status: 400,
      body: <Notice kind="error">{t('points.filterInvalid')}</Notice> };
  }
  const { entries, nextCursor } = page;
  const table = <LedgerTable ctx={ctx} entries={entries} nextCursor={nextCursor}
    filters={filters} />;
  return listAnswer(ctx, table, async () => ({ kind: 'page', title: 'points.title',
    status: problem ? 400 : 200, body: await pageBody(ctx, table, filters, problem) }));
}

async function pageBody(ctx: PageContext, table: VNode, filters: Filters,
  problem?: MessageKey) {
  const { t } = ctx;
  const open = await ctx.services.platform.points.openReservations(ctx.scope,
    OPEN_RESERVATIONS_SHOWN);
  return (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      <TopUp ctx={ctx} problem={problem} />
      <Section title={t('points.reservations')} id="reservations">
        {open.length === 0 ? <p class="muted">{t('points.noReservations')}</p> : (
          <CardTable head={<>
            <th>{t('points.when')}</th><th>{t('points.operation')}</th>
            <th class="num">{t('points.amount')}</th><th>{t('points.reference')}</th>
            <th>{t('points.expires')}</th>
          </>}>
            {open.map((row) => (
              <tr key={row.id}>
                <td data-label={t('points.when')}>{formatDateTime(row.createdAt)}</td>
                <td data-label={t('points.operation')}><code>{row.operation}</code></td>
                <td data-label={t('points.amount')} class="num">
                  {formatPoints(row.reservedPoints)}
                </td>
                <td data-label={t('points.reference')}><code>{row.id}</code></td>
                <td data-label={t('points.expires')}>{formatDateTime(row.expiresAt)}</td>
              </tr>
            ))}
          </CardTable>
        )}
      </Section>
      <Section title={t('points.ledger')} id="ledger-section">
        <FilterForm ctx={ctx} filters={filters} />
        {table}
      </Section>
    </>
  );
}

const CSV_COLUMNS = ['createdAt', 'kind', 'operation', 'amountPoints', 'balanceAfterPoints',
  'reservationId', 'requestId', 'documentId', 'memo', 'id'] as const;

export const pointsPage: DashboardPage = {
  nav: { label: 'nav.points', path: '/points', section: 'account', permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/points', permission: 'account.read',
      handle: (ctx) => pointsOutcome(ctx) },
    {
      method: 'GET', path: '/points.csv', permission: 'account.read',
      async handle(ctx) {
        const filters = readLedgerFilters(ctx.query);
        const page = filters === null ? null : await ledgerPageOf(ctx, filters, CSV_ROWS_MAX);
        if (page === null) return pointsOutcome(ctx);
        const rows = page.entries.map((entry) => ({ ...entry,
          createdAt: entry.createdAt.toISOString() }));
        return { kind: 'download', contentType: 'text/csv; charset=utf-8',
          filename: `etax-points-${ctx.scope.environment}.csv`,
          body: toCsv(CSV_COLUMNS, rows) };
      },
    },
    {
      method: 'POST', path: '/points/top-up', permission: 'points.topUpTest',
      async handle(ctx) {
        // Live points are the operator's: the form is not shown there, and a POST is refused.
        if (ctx.scope.environment !== 'test') {
          return { kind: 'redirect', to: '/dashboard/points' };
        }
        const raw = ctx.form.get('points') ?? '';
        const amount = /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : 0;
        if (amount < 1 || amount > TEST_TOP_UP_POINTS_MAX) {
          return pointsOutcome(ctx, 'points.topUpInvalid');
        }
        await ctx.services.platform.points.grant({ accountId: ctx.scope.accountId,
          environment: 'test', points: amount,
          memo: `test top-up by ${ctx.session.user.email}` });
        await ctx.audit('points.testTopUp', String(amount), 'test');
        return { kind: 'redirect', to: '/dashboard/points?notice=points.toppedUp' };
      },
    },
  ],
};
