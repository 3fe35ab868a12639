import { ENVIRONMENTS } from '../../platform/accounts/keys.ts';
import type { UsageRow } from '../../platform/points/ledger-reads.ts';
import { CardTable, Section } from '../components.tsx';
import type { DashboardPage, PageContext } from '../context.ts';
import { formatDateTime, formatDateWithWeekday, formatNumber, formatPoints, seoulDate } from
  '../format.ts';
import { lastDays, UsageChart } from './usage-chart.tsx';

// Home: the balances of both environments, whatever environment the session acts in; the last
// 30 days' usage of the session's environment from the ledger, per day and per operation; and
// the next tax-invoice issue deadline, by the tax-invoices area's rule.

// The usage comes from the dashboard's cache (src/dashboard/usage-cache.ts): the settled days
// once per account and environment, today and yesterday on every request.
const USAGE_DAYS = 30;
// Failures of each kind shown, the latest first.
const FAILURES_SHOWN = 5;

type Failure = { when: string; what: string; why: string; href?: string };

function FailureTable({ ctx, title, rows }: { ctx: PageContext; title: string;
  rows: Failure[] }) {
  const { t } = ctx;
  if (rows.length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <CardTable head={<>
        <th>{t('home.failureWhen')}</th><th>{t('home.failureWhat')}</th>
        <th>{t('home.failureWhy')}</th>
      </>}>
        {rows.map((row, index) => (
          <tr key={index}>
            <td data-label={t('home.failureWhen')} class="nowrap">
              {formatDateTime(new Date(row.when))}
            </td>
            <td data-label={t('home.failureWhat')}>
              {row.href === undefined ? row.what : <a href={row.href}>{row.what}</a>}
            </td>
            <td data-label={t('home.failureWhy')}>{row.why}</td>
          </tr>
        ))}
      </CardTable>
    </>
  );
}

// The session's environment's latest failed tax invoices and webhook deliveries, from their
// areas' services.
async function recentFailures(ctx: PageContext) {
  const { taxInvoices, webhooks } = ctx.services.areas;
  const [invoices, deliveries] = await Promise.all([
    taxInvoices.recentFailures({ scope: ctx.scope, limit: FAILURES_SHOWN }),
    webhooks.recentFailedDeliveries({ caller: ctx.scope, limit: FAILURES_SHOWN }),
  ]);
  return {
    invoices: invoices.map((invoice): Failure => ({ when: invoice.updatedAt,
      what: invoice.issuanceKey,
      why: invoice.failure === null ? ''
        : `${invoice.failure.code}: ${invoice.failure.message}` })),
    deliveries: deliveries.map((delivery): Failure => ({
      when: delivery.completedAt ?? delivery.nextAttemptAt ?? '',
      what: `${delivery.eventType} → ${delivery.endpointUrl}`,
      why: delivery.lastError ?? '',
      href: `/dashboard/webhooks/${encodeURIComponent(delivery.endpointId)}` })),
  };
}

function Failures({ ctx, failures }: { ctx: PageContext;
  failures: Awaited<ReturnType<typeof recentFailures>> }) {
  const { t } = ctx;
  const none = failures.invoices.length === 0 && failures.deliveries.length === 0;
  return (
    <Section title={`${t('home.failures')} · ${t(`env.${ctx.scope.environment}`)}`} id="failures">
      {none && <p class="muted">{t('home.failuresNone')}</p>}
      <FailureTable ctx={ctx} title={t('home.failedInvoices')} rows={failures.invoices} />
      <FailureTable ctx={ctx} title={t('home.failedDeliveries')} rows={failures.deliveries} />
    </Section>
  );
}

function Balances({ ctx, balances }: { ctx: PageContext; balances: Array<{
  environment: 'test' | 'live'; balance: { available: number; reserved: number } }> }) {
  return (
    <Section title={ctx.t('home.balances')} id="balances">
      <div class="grid two">
        {balances.map(({ environment, balance }) => (
          <div key={environment} class={`balance ${environment}`}>
            <h3 class="label">{ctx.t(`env.${environment}`)}</h3>
            <p class="figure">{formatPoints(balance.available)}</p>
            <p class="label">{ctx.t('home.available')}</p>
            <p class="muted">{ctx.t('home.reserved')} {formatPoints(balance.reserved)}</p>
          </div>
        ))}
      </div>
    </Section>
  );
}

function Usage({ ctx, days, usage }: { ctx: PageContext; days: string[]; usage: UsageRow[] }) {
  const { t } = ctx;
  const byOperation = new Map<string, { points: number; calls: number }>();
  for (const row of usage) {
    const total = byOperation.get(row.operation) ?? { points: 0, calls: 0 };
    byOperation.set(row.operation, { points: total.points + row.points,
      calls: total.calls + row.calls });
  }
  const operations = [...byOperation].sort((a, b) => b[1].points - a[1].points);
  return (
    <Section title={`${t('home.usage')} · ${t(`env.${ctx.scope.environment}`)}`} id="usage">
      {usage.length === 0 ? <p class="muted">{t('home.usageEmpty')}</p> : (
        <>
          <UsageChart days={days} usage={usage} label={t('home.usageChart')} />
          <h3 class="label">{t('home.usageByOperation')}</h3>
          <div class="table-wrap">
            <table>
              <thead><tr>
                <th>{t('home.operation')}</th><th class="num">{t('home.calls')}</th>
                <th class="num">{t('home.points')}</th>
              </tr></thead>
              <tbody>
                {operations.map(([operation, total]) => (
                  <tr key={operation}>
                    <td><code>{operation}</code></td>
                    <td class="num">{formatNumber(total.calls)}</td>
                    <td class="num">{formatPoints(total.points)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Section>
  );
}

// The deadline still ahead: last month's supplies until their deadline has passed, then this
// month's.
async function nextIssueDeadline(ctx: PageContext, today: string) {
  const { taxInvoices } = ctx.services.areas;
  const [year, month] = today.split('-').map(Number) as [number, number];
  const lastMonth = month === 1 ? `${year - 1}-12`
    : `${year}-${String(month - 1).padStart(2, '0')}`;
  const previous = await taxInvoices.issueDueDate({ date: `${lastMonth}-01` });
  if (today <= previous.issueDueDate) return { month: lastMonth, date: previous.issueDueDate };
  const current = await taxInvoices.issueDueDate({ date: today });
  return { month: today.slice(0, 7), date: current.issueDueDate };
}

export const homePage: DashboardPage = {
  nav: { label: 'nav.home', path: '/', section: 'account', permission: 'account.read' },
  routes: [{
    method: 'GET', path: '/', permission: 'account.read',
    async handle(ctx) {
      const { points } = ctx.services.platform;
      const today = seoulDate(ctx.services.platform.outside.now());
      const days = lastDays(today, USAGE_DAYS);
      const [balances, usage, deadline, failures] = await Promise.all([
        Promise.all(ENVIRONMENTS.map(async (environment) => ({ environment,
          balance: await points.getBalance({ accountId: ctx.scope.accountId, environment }) }))),
        ctx.services.usageCache.usageOf(ctx.scope, days),
        nextIssueDeadline(ctx, today),
        recentFailures(ctx),
      ]);
      return { kind: 'page', title: 'home.title', body: (
        <>
          <Balances ctx={ctx} balances={balances} />
          <Usage ctx={ctx} days={days} usage={usage} />
          <Failures ctx={ctx} failures={failures} />
          <Section title={ctx.t('home.deadline')} id="deadline">
            <p class="figure">{formatDateWithWeekday(deadline.date, ctx.locale)}</p>
            <p>{ctx.t('home.deadlineLead', { month: deadline.month, date: deadline.date })}</p>
          </Section>
        </>
      ) };
    },
  }],
};
