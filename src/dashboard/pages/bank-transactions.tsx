import type { BankTransactionsService } from '../../areas/bank-transactions/index.ts';
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

// The bank accounts a page shows: one page of GET /v1/bankAccounts, the most an account has.
const BANK_ACCOUNTS_SHOWN = 100;

// Bank transactions (docs/dashboard.md § Bank transactions): the connected bank accounts with
// their balance and last sync, a sync on request, and one account's deposits and withdrawals by
// month with the transactions of a month and the issued tax invoices each deposit may pay; the
// month as CSV or Excel. Every call is the bank-transactions area's service, the one behind
// /v1/bankAccounts, behind the same plan gate.

type Account = Awaited<ReturnType<BankTransactionsService['listAccounts']>>['items'][number];
type Transaction =
  Awaited<ReturnType<BankTransactionsService['listTransactions']>>['items'][number];
type Flow = Awaited<ReturnType<BankTransactionsService['monthlyFlows']>>[number];

const MONTHS_SHOWN = 12;
const PAGE_SIZE = 200;
const EXPORT_MAX = 50_000;
const ID = /^bac_[A-Za-z0-9_-]{1,60}$/;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const NOTICES = ['bank.syncQueued', 'bank.syncJoined'] as const satisfies readonly MessageKey[];

const gate = (ctx: PageContext) => planGap(ctx, 'bankAccounts.list');
const accountPath = (id: string) => `/dashboard/bank-transactions/${id}`;

function monthShift(month: string, by: number): string {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + by;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

function lastDay(month: string): string {
  const next = new Date(`${monthShift(month, 1)}-01T00:00:00Z`);
  return new Date(next.getTime() - 86_400_000).toISOString().slice(0, 10);
}

const invalid = (ctx: PageContext): Outcome => ({ kind: 'page', title: 'bank.title',
  status: 400, body: <Notice kind="error">{ctx.t('bank.invalid')}</Notice> });

const notFound = (ctx: PageContext): Outcome => ({ kind: 'page', title: 'error.notFound.title',
  status: 404, body: <div class="card"><p>{ctx.t('error.notFound')}</p></div> });

function AccountTable({ ctx, accounts }: { ctx: PageContext; accounts: Account[] }) {
  const { t } = ctx;
  if (accounts.length === 0) return <p class="muted">{t('bank.noAccounts')}</p>;
  return (
    <CardTable head={<>
      <th>{t('bank.account')}</th><th>{t('bank.holder')}</th>
      <th class="num">{t('bank.balance')}</th><th>{t('bank.lastSynced')}</th>
      <th>{t('bank.state')}</th><th></th>
    </>}>
      {accounts.map((account) => (
        <tr key={account.bankAccountId}>
          <td data-label={t('bank.account')}>
            <a href={accountPath(account.bankAccountId)}>
              {account.bankName ?? account.bankCode} {account.accountNumber}
            </a>
          </td>
          <td data-label={t('bank.holder')} class="break">{account.holderName ?? '—'}</td>
          <td data-label={t('bank.balance')} class="num">
            {account.balance === null ? '—' : formatWon(account.balance)}
          </td>
          <td data-label={t('bank.lastSynced')}>
            {account.lastSyncedAt === null ? t('bank.never')
              : formatDateTime(new Date(account.lastSyncedAt))}
          </td>
          <td data-label={t('bank.state')}>
            <code>{account.state}</code>
            {account.failure && <> <span class="break">{account.failure.message}</span></>}
          </td>
          <td data-label="">
            {ctx.may('records.refresh') && (
              <PostForm ctx={ctx} action={`/bank-transactions/${account.bankAccountId}/sync`}>
                <button type="submit" class="secondary">{t('bank.sync')}</button>
              </PostForm>
            )}
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

async function accountsOutcome(ctx: PageContext, problem?: ApiError): Promise<Outcome> {
  const { t } = ctx;
  const minimum = gate(ctx);
  if (minimum !== null) return planGateOutcome(ctx, 'bank.title', minimum);
  const { items } = await ctx.services.areas.bankTransactions.listAccounts(ctx.scope,
    { limit: BANK_ACCOUNTS_SHOWN });
  return { kind: 'page', title: 'bank.title', status: problem?.status ?? 200, body: (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Refusal ctx={ctx} error={problem} />}
      <Section title={t('bank.accounts')} id="accounts">
        <p class="muted">{t('bank.lead')}</p>
        <AccountTable ctx={ctx} accounts={items} />
      </Section>
    </>
  ) };
}

function FlowTable({ ctx, id, flows, month }: { ctx: PageContext; id: string; flows: Flow[];
  month: string }) {
  const { t } = ctx;
  return (
    <CardTable id="flows" head={<>
      <th scope="col">{t('bank.month')}</th>
      <th class="num" scope="col">{t('bank.deposits')}</th>
      <th class="num" scope="col">{t('bank.depositAmount')}</th>
      <th class="num" scope="col">{t('bank.withdrawals')}</th>
      <th class="num" scope="col">{t('bank.withdrawalAmount')}</th>
    </>}>
      {flows.map((flow) => (
        <tr key={flow.month}>
          <th scope="row" class="nowrap" data-label={t('bank.month')}>
            {flow.month === month ? <strong>{flow.month}</strong>
              : <a href={`${accountPath(id)}?month=${flow.month}`}>{flow.month}</a>}
          </th>
          <td data-label={t('bank.deposits')} class="num">{formatNumber(flow.deposits)}</td>
          <td data-label={t('bank.depositAmount')} class="num">
            {formatWon(flow.depositAmount)}
          </td>
          <td data-label={t('bank.withdrawals')} class="num">
            {formatNumber(flow.withdrawals)}
          </td>
          <td data-label={t('bank.withdrawalAmount')} class="num">
            {formatWon(flow.withdrawalAmount)}
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

function TransactionTable({ ctx, items }: { ctx: PageContext; items: Transaction[] }) {
  const { t } = ctx;
  if (items.length === 0) return <p class="muted">{t('bank.noTransactions')}</p>;
  return (
    <CardTable id="transactions" head={<>
      <th>{t('bank.bookedAt')}</th><th>{t('bank.counterparty')}</th>
      <th class="num">{t('bank.in')}</th><th class="num">{t('bank.out')}</th>
      <th class="num">{t('bank.balanceAfter')}</th><th>{t('bank.memo')}</th>
      <th>{t('bank.matches')}</th>
    </>}>
      {items.map((item) => (
        <tr key={item.transactionId}>
          <td data-label={t('bank.bookedAt')}>
            {item.bookedAt.replace('T', ' ').slice(0, 16)}
          </td>
          <td data-label={t('bank.counterparty')} class="break">
            {item.counterpartyName ?? '—'}
          </td>
          <td data-label={t('bank.in')} class="num">
            {item.direction === 'DEPOSIT' ? formatWon(item.amount) : ''}
          </td>
          <td data-label={t('bank.out')} class="num">
            {item.direction === 'WITHDRAWAL' ? formatWon(item.amount) : ''}
          </td>
          <td data-label={t('bank.balanceAfter')} class="num">
            {item.balanceAfter === null ? '—' : formatWon(item.balanceAfter)}
          </td>
          <td data-label={t('bank.memo')} class="break">{item.memo ?? ''}</td>
          <td data-label={t('bank.matches')}>
            {item.matchedTaxInvoices.length === 0 ? '' : (
              <ul class="plain-list">
                {item.matchedTaxInvoices.map((match) => (
                  <li key={match.issuanceKey}>
                    <code>{match.issuanceKey}</code> {match.writeDate}{' '}
                    {formatWon(match.totalAmount)}
                  </li>
                ))}
              </ul>
            )}
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

function readAccountQuery(ctx: PageContext) {
  const id = ctx.params.bankAccountId ?? '';
  const month = ctx.query.get('month') || seoulDate(ctx.now()).slice(0, 7);
  const cursor = ctx.query.get('cursor') || undefined;
  if (!ID.test(id)) return 'notFound' as const;
  if (!MONTH.test(month) || (cursor !== undefined && !looksLikeCursor(cursor))) {
    return 'invalid' as const;
  }
  return { id, month, cursor };
}

async function accountOutcome(ctx: PageContext): Promise<Outcome> {
  const { t } = ctx;
  const minimum = gate(ctx);
  if (minimum !== null) return planGateOutcome(ctx, 'bank.title', minimum);
  const query = readAccountQuery(ctx);
  if (query === 'notFound') return notFound(ctx);
  if (query === 'invalid') return invalid(ctx);
  const { id, month, cursor } = query;
  const { bankTransactions: bank } = ctx.services.areas;
  const flows = await attempt(() => bank.monthlyFlows(ctx.scope, id,
    { from: monthShift(month, 1 - MONTHS_SHOWN), to: month }));
  if (refused(flows)) return flows.code === 'NOT_FOUND' ? notFound(ctx) : invalid(ctx);
  const page = await attempt(() => bank.listTransactions(ctx.scope, id, { from: `${month}-01`,
    to: lastDay(month), cursor, limit: PAGE_SIZE }));
  if (refused(page)) return invalid(ctx);
  const account = (await bank.listAccounts(ctx.scope, { limit: BANK_ACCOUNTS_SHOWN }))
    .items
    .find((item) => item.bankAccountId === id);
  return { kind: 'page', title: 'bank.title', body: (
    <>
      <Section title={account ? `${account.bankName ?? account.bankCode} ${account.accountNumber}`
        : t('bank.disconnected')} id="account">
        <p class="row">
          <a href={`${accountPath(id)}/export.csv?month=${month}`} download>{t('bank.csv')}</a>
          <a href={`${accountPath(id)}/export.xlsx?month=${month}`} download>{t('bank.xlsx')}</a>
          <a href="/dashboard/bank-transactions">{t('bank.back')}</a>
        </p>
        <FlowTable ctx={ctx} id={id} flows={flows.reverse()} month={month} />
      </Section>
      <Section title={t('bank.transactionsOf', { month })} id="month">
        <p class="muted">{t('bank.matchesLead')}</p>
        <TransactionTable ctx={ctx} items={page.items} />
        {page.hasMore && (
          <p><a href={`${accountPath(id)}?month=${month}&cursor=${page.nextCursor}`}>
            {t('bank.more')}
          </a></p>
        )}
      </Section>
    </>
  ) };
}

const EXPORT_COLUMNS = ['bookedAt', 'direction', 'amount', 'balanceAfter', 'counterpartyName',
  'memo', 'branch', 'matchedTaxInvoices', 'transactionId'] as const;

async function exportOutcome(ctx: PageContext, format: 'csv' | 'xlsx'): Promise<Outcome> {
  if (gate(ctx) !== null) return accountOutcome(ctx);
  const query = readAccountQuery(ctx);
  if (query === 'notFound') return notFound(ctx);
  if (query === 'invalid') return invalid(ctx);
  const items: Transaction[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await attempt(() => ctx.services.areas.bankTransactions.listTransactions(ctx.scope,
      query.id, { from: `${query.month}-01`, to: lastDay(query.month), cursor, limit: 1_000 }));
    if (refused(page)) return page.code === 'NOT_FOUND' ? notFound(ctx) : invalid(ctx);
    items.push(...page.items);
    if (!page.hasMore || items.length >= EXPORT_MAX) break;
    cursor = page.nextCursor;
  }
  const rows = items.slice(0, EXPORT_MAX).map((item) => ({ ...item,
    matchedTaxInvoices: item.matchedTaxInvoices.map((match) => match.issuanceKey).join(' ') }));
  const filename = `etax-bank-${query.month}-${ctx.scope.environment}`;
  if (format === 'csv') {
    return { kind: 'download', filename: `${filename}.csv`,
      contentType: 'text/csv; charset=utf-8', body: toCsv(EXPORT_COLUMNS, rows) };
  }
  const body = await workbook([{ name: query.month, rows, columns: EXPORT_COLUMNS.map((key) =>
    ({ header: key, key, won: key === 'amount' || key === 'balanceAfter' })) }]);
  return { kind: 'download', filename: `${filename}.xlsx`, contentType: XLSX_TYPE, body };
}

export const bankTransactionsPage: DashboardPage = {
  nav: { label: 'nav.bankTransactions', path: '/bank-transactions', section: 'records',
    permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/bank-transactions', permission: 'account.read',
      handle: (ctx) => accountsOutcome(ctx) },
    { method: 'GET', path: '/bank-transactions/:bankAccountId', permission: 'account.read',
      handle: accountOutcome },
    { method: 'GET', path: '/bank-transactions/:bankAccountId/export.csv',
      permission: 'account.read',
      handle: (ctx) => exportOutcome(ctx, 'csv') },
    { method: 'GET', path: '/bank-transactions/:bankAccountId/export.xlsx',
      permission: 'account.read',
      handle: (ctx) => exportOutcome(ctx, 'xlsx') },
    {
      method: 'POST', path: '/bank-transactions/:bankAccountId/sync',
      permission: 'records.refresh',
      async handle(ctx) {
        const minimum = planGap(ctx, 'bankAccounts.sync');
        if (minimum !== null) return planGateOutcome(ctx, 'bank.title', minimum);
        const id = ctx.params.bankAccountId ?? '';
        if (!ID.test(id)) return notFound(ctx);
        if (await rateLimited(ctx, 'bankAccounts.sync') !== null) {
          return { kind: 'page', title: 'bank.title', status: 429,
            body: <Notice kind="error">{ctx.t('acting.rateLimited')}</Notice> };
        }
        const queued = await attempt(() =>
          ctx.services.areas.bankTransactions.requestSync(ctx.scope, id));
        if (refused(queued)) {
          return queued.code === 'NOT_FOUND' ? notFound(ctx) : accountsOutcome(ctx, queued);
        }
        await ctx.audit('bank.syncRequested', id, ctx.scope.environment);
        return { kind: 'redirect', to: `/dashboard/bank-transactions?notice=${queued.joined
          ? 'bank.syncJoined' : 'bank.syncQueued'}` };
      },
    },
  ],
};
