import { CASH_RECEIPT_STATUSES } from '../../areas/cash-receipts/index.ts';
import { TAX_INVOICE_STATUSES } from '../../areas/tax-invoices/index.ts';
import { looksLikeCursor } from '../../platform/cursor.ts';
import type { ApiError } from '../../platform/errors.ts';
import { CardTable, Notice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { attempt, Refusal, refused } from './acting.tsx';

// Bulks (docs/dashboard.md § Bulks): the bulk issuances of the session's account and
// environment, tax invoices and cash receipts, newest first with their progress and how many of
// their documents are in each state; one bulk with each item's outcome, linked to its document.
// Everything is read through the areas' bulk services, the ones behind
// GET /v1/taxInvoices/bulks and GET /v1/cashReceipts/bulks, scoped by the session.

const PAGE_SIZE = 20;
const BULK_ID = /^blk_[A-Za-z0-9_-]{1,96}$/;

type Kind = 'TAX_INVOICE' | 'CASH_RECEIPT';
type BulkStatus = 'ACCEPTING' | 'PROCESSING' | 'COMPLETED';

// What differs between the two kinds: the service, the cursor's query name, where a document
// is shown and what its states are called.
const KINDS = {
  TAX_INVOICE: {
    title: 'bulks.taxInvoices', cursor: 'taxInvoiceCursor', section: 'tax-invoice-bulks',
    service: (ctx: PageContext) => ctx.services.areas.taxInvoiceBulks,
    documentPath: (issuanceKey: string) => `/dashboard/tax-invoices/${issuanceKey}`,
    states: TAX_INVOICE_STATUSES as readonly string[],
    stateLabel: (state: string) => `taxInvoices.status.${state}` as MessageKey,
  },
  CASH_RECEIPT: {
    title: 'bulks.cashReceipts', cursor: 'cashReceiptCursor', section: 'cash-receipt-bulks',
    service: (ctx: PageContext) => ctx.services.areas.cashReceiptBulks,
    documentPath: (issuanceKey: string) => `/dashboard/cash-receipts/${issuanceKey}`,
    states: CASH_RECEIPT_STATUSES as readonly string[],
    stateLabel: (state: string) => `cashReceipts.status.${state}` as MessageKey,
  },
} as const satisfies Record<Kind, { title: MessageKey } & Record<string, unknown>>;

const bulkPath = (bulkId: string) => `/dashboard/bulks/${bulkId}`;

function BulkStatusBadge({ ctx, status }: { ctx: PageContext; status: BulkStatus }) {
  const tone = status === 'COMPLETED' ? 'ok' : 'warn';
  return <span class={`badge ${tone}`}>{ctx.t(`bulks.status.${status}`)}</span>;
}

function DocumentStatus({ ctx, kind, status }: { ctx: PageContext; kind: Kind;
  status: string }) {
  if (!KINDS[kind].states.includes(status)) return <span>{status}</span>;
  return <span class={`badge status-${status.toLowerCase()}`}>
    {ctx.t(KINDS[kind].stateLabel(status))}</span>;
}

// The states that hold documents, each with its count.
function Counts({ ctx, kind, counts }: { ctx: PageContext; kind: Kind;
  counts: Record<string, number> }) {
  const held = KINDS[kind].states.filter((state) => (counts[state] ?? 0) > 0);
  if (held.length === 0) return <span class="muted">{ctx.t('bulks.noDocuments')}</span>;
  return (
    <ul class="plain-list">
      {held.map((state) => (
        <li key={state}><DocumentStatus ctx={ctx} kind={kind} status={state} />{' '}
          {counts[state]}</li>
      ))}
    </ul>
  );
}

type BulkService = PageContext['services']['areas']['taxInvoiceBulks'];
type BulkPage = Awaited<ReturnType<BulkService['browseBulks']>>;

function BulkTable({ ctx, kind, page, next }: { ctx: PageContext; kind: Kind;
  page: BulkPage; next: string | null }) {
  const { t } = ctx;
  if (page.bulks.length === 0) return <p class="muted">{t('bulks.none')}</p>;
  return (
    <>
      <CardTable head={<>
        <th>{t('bulks.col.bulk')}</th><th>{t('bulks.col.status')}</th>
        <th>{t('bulks.col.items')}</th><th>{t('bulks.col.counts')}</th>
        <th>{t('bulks.col.createdAt')}</th>
      </>}>
        {page.bulks.map((bulk) => (
          <tr key={bulk.bulkId}>
            <td data-label={t('bulks.col.bulk')} class="break">
              <a href={bulkPath(bulk.bulkId)}><code>{bulk.bulkId}</code></a><br />
              <span class="muted">{bulk.clientReferenceId}</span>
            </td>
            <td data-label={t('bulks.col.status')}>
              <BulkStatusBadge ctx={ctx} status={bulk.status} /></td>
            <td data-label={t('bulks.col.items')}>
              {t('bulks.itemsSummary', { items: bulk.itemCount,
                accepted: bulk.acceptedCount, refused: bulk.refusedCount })}</td>
            <td data-label={t('bulks.col.counts')}>
              <Counts ctx={ctx} kind={kind} counts={bulk.counts} /></td>
            <td data-label={t('bulks.col.createdAt')}>
              {formatDateTime(new Date(bulk.createdAt))}</td>
          </tr>
        ))}
      </CardTable>
      {next !== null && <p><a href={next}>{t('bulks.more')}</a></p>}
    </>
  );
}

// The list page's query: each kind's cursor, or null when one is not a cursor at all (the
// service refuses a cursor of another list or scope).
function cursorsOf(query: URLSearchParams): Partial<Record<Kind, string>> | null {
  const cursors: Partial<Record<Kind, string>> = {};
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const value = query.get(KINDS[kind].cursor);
    if (value === null || value === '') continue;
    if (!looksLikeCursor(value)) return null;
    cursors[kind] = value;
  }
  return cursors;
}

async function listOutcome(ctx: PageContext): Promise<Outcome> {
  const { t } = ctx;
  const cursors = cursorsOf(ctx.query);
  const invalid = (error?: ApiError): Outcome => ({ kind: 'page', title: 'bulks.title',
    status: 400, body: error ? <Refusal ctx={ctx} error={error} />
      : <Notice kind="error">{t('bulks.cursorInvalid')}</Notice> });
  if (cursors === null) return invalid();
  const kinds = Object.keys(KINDS) as Kind[];
  const pages = await Promise.all(kinds.map((kind) => attempt(() => KINDS[kind].service(ctx)
    .browseBulks({ scope: ctx.scope, limit: PAGE_SIZE, cursor: cursors[kind] }))));
  const problem = pages.find(refused);
  if (problem !== undefined) return invalid(problem);
  // The next page of one kind keeps the other's place.
  const nextOf = (kind: Kind, cursor: string | null) => {
    if (cursor === null) return null;
    const query = new URLSearchParams();
    for (const other of kinds) {
      const value = other === kind ? cursor : cursors[other];
      if (value !== undefined) query.set(KINDS[other].cursor, value);
    }
    return `/dashboard/bulks?${query.toString()}`;
  };
  return { kind: 'page', title: 'bulks.title', body: (
    <>
      <p>{t('bulks.lead')}</p>
      {kinds.map((kind, index) => {
        const page = pages[index] as BulkPage;
        return (
          <Section key={kind} title={t(KINDS[kind].title)} id={KINDS[kind].section}>
            <BulkTable ctx={ctx} kind={kind} page={page}
              next={nextOf(kind, page.nextCursor)} />
          </Section>
        );
      })}
    </>
  ) };
}

type Bulk = Awaited<ReturnType<BulkService['getBulk']>>;

// The bulk of the session's scope by its id, of either kind; null for an id that is none of
// its (another account's or environment's, or none): the page then answers 404, as the API does.
async function bulkOf(ctx: PageContext): Promise<{ kind: Kind; bulk: Bulk } | null> {
  const bulkId = ctx.params.bulkId ?? '';
  if (!BULK_ID.test(bulkId)) return null;
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const found = await attempt(() => KINDS[kind].service(ctx).getBulk({ scope: ctx.scope,
      bulkId }));
    if (!refused(found)) return { kind, bulk: found };
    if (found.code !== 'NOT_FOUND') throw found;
  }
  return null;
}

function detailBody(ctx: PageContext, kind: Kind, bulk: Bulk) {
  const { t } = ctx;
  const fact = (label: MessageKey, value: string) => (
    <><dt>{t(label)}</dt><dd class="break">{value}</dd></>
  );
  return (
    <>
      <p><a href="/dashboard/bulks">{t('bulks.back')}</a></p>
      <Section title={t(`bulks.kind.${kind}`)} id="bulk">
        <p><BulkStatusBadge ctx={ctx} status={bulk.status} />{' '}
          {t('bulks.itemsSummary', { items: bulk.itemCount, accepted: bulk.acceptedCount,
            refused: bulk.refusedCount })}</p>
        <dl class="facts">
          {fact('bulks.col.bulk', bulk.bulkId)}
          {fact('bulks.reference', bulk.clientReferenceId)}
          {fact('bulks.col.createdAt', formatDateTime(new Date(bulk.createdAt)))}
          {fact('bulks.completedAt', bulk.completedAt === null ? '—'
            : formatDateTime(new Date(bulk.completedAt)))}
        </dl>
        <Counts ctx={ctx} kind={kind} counts={bulk.counts} />
      </Section>
      <Section title={t('bulks.items')} id="items">
        <CardTable head={<>
          <th class="num">{t('bulks.col.index')}</th><th>{t('bulks.col.reference')}</th>
          <th>{t('bulks.col.outcome')}</th>
        </>}>
          {bulk.items.map((item) => (
            <tr key={item.index}>
              <td data-label={t('bulks.col.index')} class="num">{item.index + 1}</td>
              <td data-label={t('bulks.col.reference')} class="break">
                {item.clientReferenceId ?? '—'}</td>
              {/* One element in the cell, so a phone's card keeps it beside its label. */}
              <td data-label={t('bulks.col.outcome')} class="break"><div>
                {item.issuanceKey !== null ? (
                  <>
                    <a href={KINDS[kind].documentPath(item.issuanceKey)}>
                      <code>{item.issuanceKey}</code></a>{' '}
                    {item.status !== null &&
                      <DocumentStatus ctx={ctx} kind={kind} status={item.status} />}
                  </>
                ) : (
                  <>
                    <span class="badge bad">{t('bulks.refused')}</span>{' '}
                    <code>{item.error?.code}</code>{' '}
                    <span lang="en">{item.error?.message}</span>
                  </>
                )}
              </div></td>
            </tr>
          ))}
        </CardTable>
      </Section>
    </>
  );
}

const notFound = (ctx: PageContext): Outcome => ({ kind: 'page', title: 'error.notFound.title',
  status: 404, body: <div class="card"><p>{ctx.t('error.notFound')}</p></div> });

export const bulksPage: DashboardPage = {
  nav: { label: 'nav.bulks', path: '/bulks', section: 'issuing', permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/bulks', permission: 'account.read', handle: listOutcome },
    {
      method: 'GET', path: '/bulks/:bulkId', permission: 'account.read',
      async handle(ctx) {
        const found = await bulkOf(ctx);
        if (found === null) return notFound(ctx);
        return { kind: 'page', title: 'bulks.title',
          body: detailBody(ctx, found.kind, found.bulk) };
      },
    },
  ],
};
