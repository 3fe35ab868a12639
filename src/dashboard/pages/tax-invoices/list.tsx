import {
  TAX_INVOICE_STATUSES, type BrowseFilters, type TaxInvoiceStatus, type TaxInvoiceView,
} from '../../../areas/tax-invoices/index.ts';
import { looksLikeCursor } from '../../../platform/cursor.ts';
import {
  ChoiceFilter, FilterForm as ListFilterForm, filterQuery, listAnswer, NextPage,
} from '../../list-page.tsx';
import { ApiError } from '../../../platform/errors.ts';
import { CardTable, Notice, RedirectNotice, Section } from '../../components.tsx';
import type { Outcome, PageContext } from '../../context.ts';
import { toCsv } from '../../csv.ts';
import { formatDateTime, formatWon } from '../../format.ts';
import type { MessageKey } from '../../i18n/index.ts';
import { ApiErrorNotice, StatusBadge } from './shared.tsx';
import { workbook, XLSX_TYPE } from '../spreadsheet.ts';

// The list of tax invoices of the session's scope, newest first, 50 at a time by cursor,
// filtered by what the address says (so a reload or a shared link keeps the filters), and its
// CSV and Excel exports of the same filters.

const PAGE_SIZE = 50;
// An export is bounded: beyond this many rows a narrower filter is asked for.
const EXPORT_ROWS_MAX = 50_000;
const EXPORT_BATCH = 1_000;
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const AMOUNT = /^-?\d{1,13}$/;
const TEXT_MAX = 100;
const NOTICES = ['taxInvoices.notice.issued', 'taxInvoices.notice.canceled'] as const satisfies
  readonly MessageKey[];

type ListQuery = {
  status: TaxInvoiceStatus | null;
  from: string | null;
  to: string | null;
  recipient: string | null;
  min: string | null;
  max: string | null;
  ref: string | null;
  late: 'yes' | 'no' | null;
  amendment: 'yes' | 'no' | null;
  q: string | null;
  cursor: string | null;
};

const FILTER_NAMES = ['status', 'from', 'to', 'recipient', 'min', 'max', 'ref', 'late',
  'amendment', 'q'] as const;

// The filters of the address, or null when one is not a value the form offers.
function readListQuery(query: URLSearchParams): ListQuery | null {
  const pick = (name: string) => {
    const value = query.get(name)?.trim();
    return value === undefined || value === '' ? null : value;
  };
  const read = { status: pick('status'), from: pick('from'), to: pick('to'),
    recipient: pick('recipient'), min: pick('min')?.replaceAll(',', '') ?? null,
    max: pick('max')?.replaceAll(',', '') ?? null, ref: pick('ref'), late: pick('late'),
    amendment: pick('amendment'), q: pick('q'), cursor: pick('cursor') };
  if (read.status !== null && !(TAX_INVOICE_STATUSES as readonly string[]).includes(read.status)) {
    return null;
  }
  for (const date of [read.from, read.to]) {
    if (date !== null && (!DATE.test(date) || Number.isNaN(Date.parse(date)))) return null;
  }
  for (const amount of [read.min, read.max]) {
    if (amount !== null && !AMOUNT.test(amount)) return null;
  }
  for (const flag of [read.late, read.amendment]) {
    if (flag !== null && flag !== 'yes' && flag !== 'no') return null;
  }
  for (const text of [read.recipient, read.ref, read.q]) {
    if (text !== null && text.length > TEXT_MAX) return null;
  }
  if (read.cursor !== null && !looksLikeCursor(read.cursor)) return null;
  return read as ListQuery;
}

function browseFilters(query: ListQuery): Omit<BrowseFilters, 'beforeSequence'> {
  const digits = query.recipient?.replaceAll('-', '') ?? '';
  const byNumber = /^(\d{10}|\d{13})$/.test(digits);
  const flag = (value: 'yes' | 'no' | null) => (value === null ? undefined : value === 'yes');
  return {
    statuses: query.status === null ? undefined : [query.status],
    writeDateFrom: query.from ?? undefined,
    writeDateTo: query.to ?? undefined,
    recipientNumber: byNumber ? digits : undefined,
    recipientName: query.recipient !== null && !byNumber ? query.recipient : undefined,
    totalMin: query.min === null ? undefined : Number(query.min),
    totalMax: query.max === null ? undefined : Number(query.max),
    referenceId: query.ref ?? undefined,
    lateIssuance: flag(query.late),
    amendment: flag(query.amendment),
    search: query.q ?? undefined,
  };
}

function queryString(query: ListQuery, cursor?: string): string {
  return filterQuery({ ...Object.fromEntries(FILTER_NAMES.map((name) => [name, query[name]])),
    cursor });
}

const recipientOf = (row: TaxInvoiceView) => row.invoice.supplied.organizationName;

function ResultsTable(props: { ctx: PageContext; rows: TaxInvoiceView[];
  nextCursor: string | null; query: ListQuery }) {
  const { ctx, rows } = props;
  const { t } = ctx;
  return (
    <div id="tax-invoice-results">
      {rows.length === 0 ? <p class="muted">{t('taxInvoices.none')}</p> : (
        <CardTable head={<>
          <th>{t('taxInvoices.col.writeDate')}</th><th>{t('taxInvoices.col.recipient')}</th>
          <th class="num">{t('taxInvoices.col.total')}</th>
          <th>{t('taxInvoices.col.status')}</th>
          <th>{t('taxInvoices.col.kind')}</th><th>{t('taxInvoices.col.reference')}</th>
          <th>{t('taxInvoices.col.created')}</th>
        </>}>
          {rows.map((row) => (
            <tr key={row.issuanceKey}>
              <td data-label={t('taxInvoices.col.writeDate')}>
                <a href={`/dashboard/tax-invoices/${row.issuanceKey}`}>{row.invoice.date}</a>
              </td>
              <td data-label={t('taxInvoices.col.recipient')}><span>{recipientOf(row)}
                <span class="muted"> {row.invoice.supplied.identificationNumber}</span></span>
              </td>
              <td data-label={t('taxInvoices.col.total')} class="num">
                {formatWon(row.totals.total)}</td>
              <td data-label={t('taxInvoices.col.status')}>
                <StatusBadge ctx={ctx} status={row.status} /></td>
              <td data-label={t('taxInvoices.col.kind')}>
                {row.issuanceType === 'REVERSE' ? t('taxInvoices.kind.reverse') : ''}
                {row.amendment ? ` ${t(`taxInvoices.reason.${row.amendment.reason as
                  'TERMINATION'}`)}` : ''}
                {row.lateIssuance ? ` ${t('taxInvoices.kind.late')}` : ''}
              </td>
              <td data-label={t('taxInvoices.col.reference')}>
                {row.clientReferenceId && <code>{row.clientReferenceId}</code>}</td>
              <td data-label={t('taxInvoices.col.created')}>
                {formatDateTime(new Date(row.createdAt))}</td>
            </tr>
          ))}
        </CardTable>
      )}
      <NextPage href={props.nextCursor ? `/dashboard/tax-invoices?${queryString(props.query,
        props.nextCursor)}` : null} label={t('taxInvoices.more')} />
    </div>
  );
}

function YesNoFilter(props: { ctx: PageContext; name: 'late' | 'amendment';
  value: 'yes' | 'no' | null; label: MessageKey }) {
  const { t } = props.ctx;
  return <ChoiceFilter label={t(props.label)} name={props.name}
    all={t('taxInvoices.filter.any')} options={['yes', 'no'] as const} chosen={props.value}
    text={(answer) => t(`taxInvoices.filter.${answer}`)} />;
}

function FilterForm({ ctx, query }: { ctx: PageContext; query: ListQuery }) {
  const { t } = ctx;
  const exportQuery = queryString(query);
  return (
    <ListFilterForm path="/tax-invoices" target="tax-invoice-results" class="filters">
      <label>{t('taxInvoices.filter.search')}
        <input type="search" name="q" value={query.q ?? ''} maxLength={TEXT_MAX} />
      </label>
      <ChoiceFilter label={t('taxInvoices.filter.status')} name="status"
        all={t('taxInvoices.filter.any')} options={TAX_INVOICE_STATUSES} chosen={query.status}
        text={(status) => t(`taxInvoices.status.${status}`)} />
      <label>{t('taxInvoices.filter.from')}
        <input type="date" name="from" value={query.from ?? ''} /></label>
      <label>{t('taxInvoices.filter.to')}
        <input type="date" name="to" value={query.to ?? ''} /></label>
      <label>{t('taxInvoices.filter.recipient')}
        <input name="recipient" value={query.recipient ?? ''} maxLength={TEXT_MAX} /></label>
      <label>{t('taxInvoices.filter.min')}
        <input name="min" inputMode="numeric" value={query.min ?? ''} /></label>
      <label>{t('taxInvoices.filter.max')}
        <input name="max" inputMode="numeric" value={query.max ?? ''} /></label>
      <label>{t('taxInvoices.filter.reference')}
        <input name="ref" value={query.ref ?? ''} maxLength={TEXT_MAX} /></label>
      <YesNoFilter ctx={ctx} name="late" value={query.late} label="taxInvoices.filter.late" />
      <YesNoFilter ctx={ctx} name="amendment" value={query.amendment}
        label="taxInvoices.filter.amendment" />
      <div class="actions">
        <button type="submit" class="secondary">{t('taxInvoices.filter.apply')}</button>
        <a href="/dashboard/tax-invoices">{t('taxInvoices.filter.clear')}</a>
        <a href={`/dashboard/tax-invoices.csv?${exportQuery}`} download>CSV</a>
        <a href={`/dashboard/tax-invoices.xlsx?${exportQuery}`} download>Excel</a>
      </div>
    </ListFilterForm>
  );
}

export async function listOutcome(ctx: PageContext): Promise<Outcome> {
  const { t } = ctx;
  const query = readListQuery(ctx.query);
  if (query === null) {
    return { kind: 'page', title: 'taxInvoices.title', status: 400,
      body: <Notice kind="error">{t('taxInvoices.filter.invalid')}</Notice> };
  }
  let result: Awaited<ReturnType<PageContext['services']['areas']['taxInvoices']['browse']>>;
  try {
    result = await ctx.services.areas.taxInvoices.browse({ scope: ctx.scope,
      filters: browseFilters(query), limit: PAGE_SIZE, cursor: query.cursor ?? undefined });
  } catch (error) {
    // A cursor this server did not write.
    if (!(error instanceof ApiError)) throw error;
    return { kind: 'page', title: 'taxInvoices.title', status: 400,
      body: <ApiErrorNotice ctx={ctx} error={error} /> };
  }
  const table = <ResultsTable ctx={ctx} rows={result.taxInvoices}
    nextCursor={result.nextCursor} query={query} />;
  return listAnswer(ctx, table, () => ({ kind: 'page', title: 'taxInvoices.title', body: (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      <p class="actions">
        {ctx.may('documents.issue') && (
          <a class="button primary" href="/dashboard/tax-invoices/new">{t('taxInvoices.new')}</a>
        )}
        <a href="/dashboard/tax-invoices/requests">{t('taxInvoices.requests')}</a>
      </p>
      <Section title={t('taxInvoices.list')} id="tax-invoice-list">
        <FilterForm ctx={ctx} query={query} />
        {table}
      </Section>
    </>
  ) }));
}

// ---- Exports ------------------------------------------------------------------------------

const EXPORT_COLUMNS = ['issuanceKey', 'status', 'writeDate', 'issuanceType', 'taxType',
  'recipientNumber', 'recipientName', 'supplierNumber', 'supplyCost', 'tax', 'total',
  'amendmentReason', 'originalIssuanceKey', 'lateIssuance', 'ntsTransactionId',
  'clientReferenceId', 'issuedAt', 'transmittedAt', 'createdAt'] as const;

type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string | number | boolean | null>;

const exportRow = (row: TaxInvoiceView): ExportRow => ({
  issuanceKey: row.issuanceKey, status: row.status, writeDate: row.invoice.date,
  issuanceType: row.issuanceType, taxType: row.taxType,
  recipientNumber: row.invoice.supplied.identificationNumber,
  recipientName: row.invoice.supplied.organizationName,
  supplierNumber: row.invoice.supplier.identificationNumber,
  supplyCost: row.totals.supplyCost, tax: row.totals.tax, total: row.totals.total,
  amendmentReason: row.amendment?.reason ?? null,
  originalIssuanceKey: row.amendment?.originalIssuanceKey ?? null,
  lateIssuance: row.lateIssuance, ntsTransactionId: row.ntsTransactionId,
  clientReferenceId: row.clientReferenceId, issuedAt: row.issuedAt,
  transmittedAt: row.transmittedAt, createdAt: row.createdAt,
});

// Every row the filters select, newest first, page by page through the same service; null
// when there are more than an export holds.
async function exportRows(ctx: PageContext, query: ListQuery): Promise<ExportRow[] | null> {
  const rows: ExportRow[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await ctx.services.areas.taxInvoices.browse({ scope: ctx.scope,
      filters: browseFilters(query), limit: EXPORT_BATCH, cursor });
    rows.push(...page.taxInvoices.map(exportRow));
    if (rows.length > EXPORT_ROWS_MAX) return null;
    if (page.nextCursor === null) return rows;
    cursor = page.nextCursor;
  }
}

export async function exportOutcome(ctx: PageContext, format: 'csv' | 'xlsx'): Promise<Outcome> {
  const query = readListQuery(ctx.query);
  if (query === null) return listOutcome(ctx);
  const rows = await exportRows(ctx, { ...query, cursor: null });
  if (rows === null) {
    return { kind: 'page', title: 'taxInvoices.title', status: 413, body: (
      <Notice kind="error">{ctx.t('taxInvoices.exportTooLarge',
        { max: EXPORT_ROWS_MAX.toLocaleString('ko-KR') })}</Notice>
    ) };
  }
  const filename = `etax-tax-invoices-${ctx.scope.environment}`;
  if (format === 'csv') {
    return { kind: 'download', contentType: 'text/csv; charset=utf-8',
      filename: `${filename}.csv`, body: toCsv(EXPORT_COLUMNS, rows) };
  }
  return { kind: 'download', filename: `${filename}.xlsx`, contentType: XLSX_TYPE,
    body: await workbook([{ name: 'tax invoices', rows, columns: EXPORT_COLUMNS.map((key) =>
      ({ header: key, key, width: key === 'recipientName' ? 30 : 18,
        won: (['supplyCost', 'tax', 'total'] as readonly string[]).includes(key) })) }]) };
}

