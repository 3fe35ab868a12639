import type { RevenueExpensesService } from '../../areas/revenue-expenses/index.ts';
import type { ApiError } from '../../platform/errors.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { toCsv } from '../csv.ts';
import { formatDateTime, formatNumber, formatWon, seoulDate } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { attempt, planGap, planGateOutcome, rateLimited, Refusal, refused } from
  './acting.tsx';
import { workbook, XLSX_TYPE } from './spreadsheet.ts';
import { looksLikeCursor } from '../../platform/cursor.ts';

// The books (docs/dashboard.md § Books): revenue and expense by month of write date (sales and
// purchases: counts, supply, tax and totals) with the invoices behind each figure, the
// collections from the tax portal and their state, and the year as CSV or Excel. Every read is
// the revenue-expenses area's service, the one behind /v1/revenueExpenses, behind the same plan
// gate.

type MonthRow = Awaited<ReturnType<RevenueExpensesService['monthlyTotals']>>[number];
type Figures = MonthRow['sales'];
type Entry = Awaited<ReturnType<RevenueExpensesService['monthEntries']>>['items'][number];
type Direction = 'SALES' | 'PURCHASE';

const ENTRIES_PAGE = 100;
const EXPORT_ENTRIES_MAX = 50_000;
const COLLECTIONS_SHOWN = 20;
const YEAR = /^(19[9]\d|2\d{3})$/;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const NOTICES = ['books.collectionQueued', 'books.collectionJoined'] as const satisfies
  readonly MessageKey[];

const thisYear = (ctx: PageContext) => Number(seoulDate(ctx.now()).slice(0, 4));

// The year of the query, the current one when none; null when it is not a year.
function yearOf(ctx: PageContext): number | null {
  const raw = ctx.query.get('year');
  if (raw === null || raw === '') return thisYear(ctx);
  return YEAR.test(raw) ? Number(raw) : null;
}

const gate = (ctx: PageContext) => planGap(ctx, 'revenueExpenses.taxInvoices.list');

async function yearTotals(ctx: PageContext, year: number) {
  return ctx.services.areas.revenueExpenses.monthlyTotals(ctx.scope,
    { from: `${year}-01`, to: `${year}-12` });
}

function sum(rows: MonthRow[], side: 'sales' | 'purchases'): Figures {
  return rows.reduce((total, row) => ({ count: total.count + row[side].count,
    supplyCost: total.supplyCost + row[side].supplyCost, tax: total.tax + row[side].tax,
    totalAmount: total.totalAmount + row[side].totalAmount }),
  { count: 0, supplyCost: 0, tax: 0, totalAmount: 0 });
}

const entriesPath = (month: string, direction: Direction) =>
  `/dashboard/books/entries?month=${month}&direction=${direction}`;

function FigureCells({ ctx, figures, month, direction }: { ctx: PageContext; figures: Figures;
  month: string | null; direction: Direction }) {
  const { t } = ctx;
  const side = direction === 'SALES' ? 'books.sales' : 'books.purchases';
  const label = (key: MessageKey) => `${t(side)} ${t(key)}`;
  return (
    <>
      <td data-label={label('books.count')} class="num">
        {month !== null && figures.count > 0
          ? <a href={entriesPath(month, direction)}>{formatNumber(figures.count)}</a>
          : formatNumber(figures.count)}
      </td>
      <td data-label={label('books.supplyCost')} class="num">{formatWon(figures.supplyCost)}</td>
      <td data-label={label('books.tax')} class="num">{formatWon(figures.tax)}</td>
      <td data-label={label('books.totalAmount')} class="num">
        {formatWon(figures.totalAmount)}
      </td>
    </>
  );
}

function MonthTable({ ctx, rows }: { ctx: PageContext; rows: MonthRow[] }) {
  const { t } = ctx;
  const headers = (side: MessageKey) => (['books.count', 'books.supplyCost', 'books.tax',
    'books.totalAmount'] as const).map((key) => (
    <th key={key} class="num" scope="col">{t(side)} {t(key)}</th>
  ));
  return (
    <CardTable id="months" head={<>
      <th scope="col">{t('books.month')}</th>
      {headers('books.sales')}
      {headers('books.purchases')}
    </>}>
      {rows.map((row) => (
        <tr key={row.month}>
          <th scope="row" class="nowrap" data-label={t('books.month')}>{row.month}</th>
          <FigureCells ctx={ctx} figures={row.sales} month={row.month} direction="SALES" />
          <FigureCells ctx={ctx} figures={row.purchases} month={row.month}
            direction="PURCHASE" />
        </tr>
      ))}
      <tr>
        <th scope="row" class="nowrap" data-label={t('books.month')}>
          {t('books.yearTotal')}
        </th>
        <FigureCells ctx={ctx} figures={sum(rows, 'sales')} month={null} direction="SALES" />
        <FigureCells ctx={ctx} figures={sum(rows, 'purchases')} month={null}
          direction="PURCHASE" />
      </tr>
    </CardTable>
  );
}

async function Collections({ ctx, problem }: { ctx: PageContext; problem?: ApiError | undefined }) {
  const { t } = ctx;
  const collections = await ctx.services.areas.revenueExpenses.listCollections(ctx.scope,
    COLLECTIONS_SHOWN);
  const month = seoulDate(ctx.now()).slice(0, 7);
  return (
    <Section title={t('books.collections')} id="collections">
      <p>{t('books.collectionsLead')}</p>
      {problem && <Refusal ctx={ctx} error={problem} />}
      {ctx.may('records.refresh') && (
        <PostForm ctx={ctx} action="/books/collect" class="row">
          <label>{t('books.from')}
            <input type="month" name="from" required value={ctx.form.get('from') ?? month} />
          </label>
          <label>{t('books.to')}
            <input type="month" name="to" required value={ctx.form.get('to') ?? month} />
          </label>
          <button type="submit" class="secondary">{t('books.collect')}</button>
        </PostForm>
      )}
      {collections.length === 0 ? <p class="muted">{t('books.noCollections')}</p> : (
        <CardTable head={<>
          <th>{t('books.requestedAt')}</th><th>{t('books.range')}</th>
          <th>{t('books.state')}</th><th>{t('books.counts')}</th>
        </>}>
          {collections.map((collection) => (
            <tr key={collection.collectionId}>
              <td data-label={t('books.requestedAt')}>
                {formatDateTime(new Date(collection.requestedAt))}
              </td>
              <td data-label={t('books.range')}>{collection.from} – {collection.to}</td>
              <td data-label={t('books.state')}>
                <span class={`badge status-${collection.state.toLowerCase()}`}>
                  {t(`books.state.${collection.state}`)}
                </span>
                {collection.failure && <> <code>{collection.failure.code}</code>{' '}
                  <span class="break">{collection.failure.message}</span></>}
              </td>
              <td data-label={t('books.counts')}>
                {t('books.countsText', { collected: collection.counts.collected,
                  inserted: collection.counts.inserted, updated: collection.counts.updated })}
              </td>
            </tr>
          ))}
        </CardTable>
      )}
    </Section>
  );
}

async function booksOutcome(ctx: PageContext, problem?: ApiError): Promise<Outcome> {
  const { t } = ctx;
  const minimum = gate(ctx);
  if (minimum !== null) return planGateOutcome(ctx, 'books.title', minimum);
  const year = yearOf(ctx);
  if (year === null) {
    return { kind: 'page', title: 'books.title', status: 400,
      body: <Notice kind="error">{t('books.invalid')}</Notice> };
  }
  const rows = await yearTotals(ctx, year);
  return { kind: 'page', title: 'books.title', status: problem ? problem.status : 200, body: (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      <Section title={t('books.byMonth', { year })} id="by-month">
        <p class="row">
          <a href={`/dashboard/books?year=${year - 1}`}>{t('books.previousYear')}</a>
          {year < thisYear(ctx) && <a href={`/dashboard/books?year=${year + 1}`}>
            {t('books.nextYear')}</a>}
          <a href={`/dashboard/books.csv?year=${year}`} download>{t('books.csv')}</a>
          <a href={`/dashboard/books.xlsx?year=${year}`} download>{t('books.xlsx')}</a>
        </p>
        <p class="muted">{t('books.lead')}</p>
        <MonthTable ctx={ctx} rows={rows} />
      </Section>
      {await Collections({ ctx, problem })}
    </>
  ) };
}

function readEntriesQuery(query: URLSearchParams) {
  const month = query.get('month') ?? '';
  const direction = query.get('direction') ?? '';
  const cursor = query.get('cursor') ?? undefined;
  if (!MONTH.test(month) || (direction !== 'SALES' && direction !== 'PURCHASE')) return null;
  if (cursor !== undefined && !looksLikeCursor(cursor)) return null;
  return { month, direction: direction as Direction, cursor };
}

function EntryTable({ ctx, items }: { ctx: PageContext; items: Entry[] }) {
  const { t } = ctx;
  if (items.length === 0) return <p class="muted">{t('books.noEntries')}</p>;
  return (
    <CardTable head={<>
      <th>{t('books.writeDate')}</th><th>{t('books.counterpart')}</th>
      <th>{t('books.approvalNumber')}</th><th class="num">{t('books.supplyCost')}</th>
      <th class="num">{t('books.tax')}</th><th class="num">{t('books.totalAmount')}</th>
      <th>{t('books.source')}</th>
    </>}>
      {items.map((item) => (
        <tr key={item.approvalNumber}>
          <td data-label={t('books.writeDate')}>{item.writeDate}</td>
          <td data-label={t('books.counterpart')} class="break">
            {item.counterpart.name} ({item.counterpart.businessRegistrationNumber})
          </td>
          <td data-label={t('books.approvalNumber')} class="break">
            {item.approvalNumber}
            {item.amendment !== null && <> <span class="badge">{t('books.amendment')}</span></>}
            {item.late && <> <span class="badge">{t('books.late')}</span></>}
          </td>
          <td data-label={t('books.supplyCost')} class="num">{formatWon(item.supplyCost)}</td>
          <td data-label={t('books.tax')} class="num">{formatWon(item.tax)}</td>
          <td data-label={t('books.totalAmount')} class="num">
            {formatWon(item.totalAmount)}
          </td>
          <td data-label={t('books.source')}>{t(`books.source.${item.source}`)}</td>
        </tr>
      ))}
    </CardTable>
  );
}

async function entriesOutcome(ctx: PageContext): Promise<Outcome> {
  const { t } = ctx;
  const minimum = gate(ctx);
  if (minimum !== null) return planGateOutcome(ctx, 'books.title', minimum);
  const query = readEntriesQuery(ctx.query);
  const page = query === null ? null : await attempt(() =>
    ctx.services.areas.revenueExpenses.monthEntries(ctx.scope, { ...query, limit: ENTRIES_PAGE }));
  if (query === null || page === null || refused(page)) {
    return { kind: 'page', title: 'books.title', status: 400,
      body: <Notice kind="error">{t('books.invalid')}</Notice> };
  }
  const side = query.direction === 'SALES' ? t('books.sales') : t('books.purchases');
  return { kind: 'page', title: 'books.title', body: (
    <Section title={t('books.entriesOf', { month: query.month, side })} id="entries">
      <EntryTable ctx={ctx} items={page.items} />
      <p class="row">
        {page.nextCursor !== null && (
          <a href={`${entriesPath(query.month, query.direction)}&cursor=${page.nextCursor}`}>
            {t('books.more')}
          </a>
        )}
        <a href={`/dashboard/books?year=${query.month.slice(0, 4)}`}>{t('books.back')}</a>
      </p>
    </Section>
  ) };
}

// Every entry of the year, both directions, up to EXPORT_ENTRIES_MAX.
async function yearEntries(ctx: PageContext, year: number) {
  const entries: Entry[] = [];
  for (let month = 1; month <= 12; month += 1) {
    for (const direction of ['SALES', 'PURCHASE'] as const) {
      let cursor: string | undefined;
      do {
        const page = await ctx.services.areas.revenueExpenses.monthEntries(ctx.scope, { month:
          `${year}-${String(month).padStart(2, '0')}`, direction, cursor, limit: 1_000 });
        entries.push(...page.items);
        cursor = page.nextCursor ?? undefined;
        if (entries.length >= EXPORT_ENTRIES_MAX) return entries.slice(0, EXPORT_ENTRIES_MAX);
      } while (cursor !== undefined);
    }
  }
  return entries;
}

const SUMMARY_COLUMNS = ['month', 'salesCount', 'salesSupplyCost', 'salesTax',
  'salesTotalAmount', 'purchasesCount', 'purchasesSupplyCost', 'purchasesTax',
  'purchasesTotalAmount'] as const;
const ENTRY_COLUMNS = ['direction', 'writeDate', 'issueDate', 'approvalNumber',
  'counterpartNumber', 'counterpartName', 'supplyCost', 'tax', 'totalAmount', 'taxType',
  'source', 'status', 'late', 'amendmentReason', 'originalApprovalNumber'] as const;

function summaryRows(rows: MonthRow[]) {
  return rows.map((row) => ({ month: row.month, salesCount: row.sales.count,
    salesSupplyCost: row.sales.supplyCost, salesTax: row.sales.tax,
    salesTotalAmount: row.sales.totalAmount, purchasesCount: row.purchases.count,
    purchasesSupplyCost: row.purchases.supplyCost, purchasesTax: row.purchases.tax,
    purchasesTotalAmount: row.purchases.totalAmount }));
}

const entryRow = (item: Entry) => ({ direction: item.direction, writeDate: item.writeDate,
  issueDate: item.issueDate, approvalNumber: item.approvalNumber,
  counterpartNumber: item.counterpart.businessRegistrationNumber,
  counterpartName: item.counterpart.name, supplyCost: item.supplyCost, tax: item.tax,
  totalAmount: item.totalAmount, taxType: item.taxType, source: item.source,
  status: item.status, late: item.late ? 'Y' : 'N', amendmentReason: item.amendment?.reason,
  originalApprovalNumber: item.amendment?.originalApprovalNumber });

async function exportOutcome(ctx: PageContext, format: 'csv' | 'xlsx'): Promise<Outcome> {
  const year = yearOf(ctx);
  if (gate(ctx) !== null || year === null) return booksOutcome(ctx);
  const rows = await yearTotals(ctx, year);
  const entries = await yearEntries(ctx, year);
  const filename = `etax-books-${year}-${ctx.scope.environment}`;
  if (format === 'csv') {
    // One file: the months, then a blank line, then the entries behind them.
    const body = toCsv(SUMMARY_COLUMNS, summaryRows(rows)) +
      toCsv(ENTRY_COLUMNS, entries.map(entryRow)).replace(/^\uFEFF/, '\r\n');
    return { kind: 'download', filename: `${filename}.csv`,
      contentType: 'text/csv; charset=utf-8', body };
  }
  const won = new Set(['salesSupplyCost', 'salesTax', 'salesTotalAmount', 'purchasesSupplyCost',
    'purchasesTax', 'purchasesTotalAmount', 'supplyCost', 'tax', 'totalAmount']);
  const columns = (keys: readonly string[]) => keys.map((key) => ({ header: key, key,
    won: won.has(key) }));
  const body = await workbook([
    { name: 'Months', columns: columns(SUMMARY_COLUMNS), rows: summaryRows(rows) },
    { name: 'Entries', columns: columns(ENTRY_COLUMNS), rows: entries.map(entryRow) },
  ]);
  return { kind: 'download', filename: `${filename}.xlsx`, contentType: XLSX_TYPE, body };
}

export const booksPage: DashboardPage = {
  nav: { label: 'nav.books', path: '/books', section: 'records', permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/books', permission: 'account.read',
      handle: (ctx) => booksOutcome(ctx) },
    { method: 'GET', path: '/books/entries', permission: 'account.read', handle: entriesOutcome },
    { method: 'GET', path: '/books.csv', permission: 'account.read',
      handle: (ctx) => exportOutcome(ctx, 'csv') },
    { method: 'GET', path: '/books.xlsx', permission: 'account.read',
      handle: (ctx) => exportOutcome(ctx, 'xlsx') },
    {
      method: 'POST', path: '/books/collect', permission: 'records.refresh',
      async handle(ctx) {
        const minimum = planGap(ctx, 'revenueExpenses.collect');
        if (minimum !== null) return planGateOutcome(ctx, 'books.title', minimum);
        const range = { from: ctx.form.get('from') ?? '', to: ctx.form.get('to') ?? '' };
        if (!MONTH.test(range.from) || !MONTH.test(range.to)) {
          return { kind: 'page', title: 'books.title', status: 400,
            body: <Notice kind="error">{ctx.t('books.invalid')}</Notice> };
        }
        if (await rateLimited(ctx, 'revenueExpenses.collect') !== null) {
          return { kind: 'page', title: 'books.title', status: 429,
            body: <Notice kind="error">{ctx.t('acting.rateLimited')}</Notice> };
        }
        const queued = await attempt(() =>
          ctx.services.areas.revenueExpenses.collect(ctx.scope, range));
        if (refused(queued)) return booksOutcome(ctx, queued);
        await ctx.audit('books.collectionRequested', queued.collectionId, ctx.scope.environment);
        return { kind: 'redirect', to: `/dashboard/books?notice=${queued.joined
          ? 'books.collectionJoined' : 'books.collectionQueued'}` };
      },
    },
  ],
};
