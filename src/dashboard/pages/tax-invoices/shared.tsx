import type { ComponentChildren } from 'preact';
import type { Invoice, TaxInvoiceStatus } from '../../../areas/tax-invoices/index.ts';
import type { Plan } from '../../../platform/accounts/keys.ts';
import { ApiError, ERRORS } from '../../../platform/errors.ts';
import { isOperation, minimumPlanOf, type Operation } from '../../../platform/operations.ts';
import { retryAfterSeconds } from '../../../platform/ratelimit/limiter.ts';
import { planAtLeast } from '../../../platform/plans.ts';
import type { Caller } from '../../../platform/scope.ts';
import { CardTable, Notice } from '../../components.tsx';
import type { PageContext } from '../../context.ts';
import { formatNumber, formatWon } from '../../format.ts';

// What the tax-invoice pages share: who the dashboard acts as for the area's services, the
// checks every mutation makes before the service (plan, rate limit), how an ApiError is shown,
// and the document drawn as its PDF lays it out.

// The dashboard has no API key; a signed-in user acts as a caller of its own, `dashboard:<user
// id>`, under which the reference ids its pages generate are claimed (so a form sent twice
// issues once) and the documents it makes are recorded.
export function dashboardCaller(ctx: PageContext): Caller {
  return { ...ctx.scope, apiKeyId: `dashboard:${ctx.session.user.userId}` };
}

// The same gates as the API's before a mutation runs: the operation's plan, then its rate
// limit, counted per dashboard user. Null when it may go on; else the error to show.
export async function operationGate(ctx: PageContext, operation: string):
  Promise<ApiError | null> {
  if (isOperation(operation)) {
    const minimum = minimumPlanOf(operation);
    if (minimum !== null && !planAtLeast(ctx.account.plan as Plan, minimum)) {
      return new ApiError('PLAN_UPGRADE_REQUIRED', `This operation needs the ${minimum} plan ` +
        `or higher; the account is on ${ctx.account.plan}.`);
    }
  }
  const { rateLimiter } = ctx.services;
  const retryAfter = await rateLimiter.attempt(operation, rateLimiter.policyFor(operation),
    dashboardCaller(ctx).apiKeyId);
  return retryAfter === null ? null : rateLimited(retryAfter);
}

// The refusal of a gate whose window is spent, `seconds` before it resets.
function rateLimited(seconds: number): ApiError {
  return new ApiError('RATE_LIMITED', `Too many requests; try again in ${seconds} seconds.`);
}

// The gates of a bulk of `count` documents issued from a page, as the bulk route has them: the
// bulk operation's plan and one call of it, then each document as a call of the single issue,
// all or none. A bulk made already (the same confirmation sent again) counts its documents no
// more. Answers the error to show, or the give-back to call should a bulk sent at the same
// moment have made it first.
export async function bulkGate(ctx: PageContext, bulk: { operation: Operation;
  itemOperation: Operation; count: number; madeBefore(): Promise<boolean> }):
  Promise<{ error: ApiError } | { giveBack: (() => Promise<void>) | null }> {
  const error = await operationGate(ctx, bulk.operation);
  if (error !== null) return { error };
  const counted = await ctx.services.rateLimiter.countItems({ operation: bulk.itemOperation,
    keyId: dashboardCaller(ctx).apiKeyId, count: bulk.count, countedBefore: bulk.madeBefore });
  if (counted.kind === 'refused') return { error: rateLimited(retryAfterSeconds(counted.state)) };
  return { giveBack: counted.kind === 'counted' ? counted.giveBack : null };
}

// An ApiError of a service, in the session's language, with the service's own words (which
// name the field) under it.
export function ApiErrorNotice(props: { ctx: PageContext; error: ApiError }) {
  const { ctx, error } = props;
  const entry = ERRORS[error.code];
  return (
    <Notice kind="error">
      <strong>{ctx.locale === 'ko' ? entry.messageKo : entry.message}</strong>
      {error.message !== entry.message && <span class="detail"> {error.message}</span>}
    </Notice>
  );
}

// The error a page shows for what a service refused; anything else is not ours to explain.
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  throw error;
}

const STATUS_TONES: Record<TaxInvoiceStatus, 'ok' | 'warn' | 'bad' | 'neutral'> = {
  REQUESTED: 'warn', APPROVED: 'neutral', REFUSED: 'bad', REQUEST_CANCELED: 'neutral',
  PENDING: 'neutral', ISSUED: 'neutral', TRANSMITTING: 'neutral', TRANSMITTED: 'ok',
  CANCELED: 'neutral', FAILED: 'bad',
};

export function StatusBadge(props: { ctx: PageContext; status: TaxInvoiceStatus }) {
  return (
    <span class={`badge ${STATUS_TONES[props.status]}`}>
      {props.ctx.t(`taxInvoices.status.${props.status}`)}
    </span>
  );
}

const formatRegistration = (number: string) => (number.length === 10
  ? `${number.slice(0, 3)}-${number.slice(3, 5)}-${number.slice(5)}` : number);

function Party(props: { ctx: PageContext; title: string; party: Invoice['supplier'] |
  Invoice['supplied']; emails: string[] }) {
  const { t } = props.ctx;
  const { party } = props;
  return (
    <section class="party" aria-label={props.title}>
      <h3>{props.title}</h3>
      <dl>
        <dt>{t('taxInvoices.doc.number')}</dt>
        <dd>{formatRegistration(party.identificationNumber)}
          {party.taxRegistrationId ? ` (${party.taxRegistrationId})` : ''}</dd>
        <dt>{t('taxInvoices.doc.name')}</dt><dd>{party.organizationName}</dd>
        <dt>{t('taxInvoices.doc.representative')}</dt><dd>{party.representativeName}</dd>
        <dt>{t('taxInvoices.doc.address')}</dt><dd>{party.address ?? ''}</dd>
        <dt>{t('taxInvoices.doc.businessType')}</dt>
        <dd>{[party.businessType, party.businessItem].filter(Boolean).join(' / ')}</dd>
        <dt>{t('taxInvoices.doc.email')}</dt><dd>{props.emails.join(', ')}</dd>
      </dl>
    </section>
  );
}

export type DocumentFacts = {
  invoice: Invoice;
  taxType: 'TAXABLE' | 'ZERO_RATED' | 'TAX_FREE';
  totals: { supplyCost: number; tax: number; total: number };
  ntsTransactionId?: string | null;
  amendmentReason?: string | null;
};

function ItemsTable({ ctx, invoice, taxFree }: { ctx: PageContext; invoice: Invoice;
  taxFree: boolean }) {
  const { t } = ctx;
  return (
    <CardTable caption={t('taxInvoices.doc.items')} head={<>
      <th>{t('taxInvoices.doc.itemDate')}</th><th>{t('taxInvoices.doc.itemName')}</th>
      <th>{t('taxInvoices.doc.specification')}</th>
      <th class="num">{t('taxInvoices.doc.quantity')}</th>
      <th class="num">{t('taxInvoices.doc.unitPrice')}</th>
      <th class="num">{t('taxInvoices.doc.supplyCost')}</th>
      {!taxFree && <th class="num">{t('taxInvoices.doc.tax')}</th>}
      <th>{t('taxInvoices.doc.itemRemark')}</th>
    </>}>
      {invoice.items.map((item, index) => (
        <tr key={index}>
          <td data-label={t('taxInvoices.doc.itemDate')}>{item.date}</td>
          <td data-label={t('taxInvoices.doc.itemName')}>{item.name}</td>
          <td data-label={t('taxInvoices.doc.specification')}>{item.specification ?? ''}</td>
          <td data-label={t('taxInvoices.doc.quantity')} class="num">
            {item.quantity == null ? '' : formatNumber(item.quantity)}</td>
          <td data-label={t('taxInvoices.doc.unitPrice')} class="num">
            {item.unitPrice == null ? '' : formatNumber(item.unitPrice)}</td>
          <td data-label={t('taxInvoices.doc.supplyCost')} class="num">
            {formatNumber(item.supplyCost)}</td>
          {!taxFree && <td data-label={t('taxInvoices.doc.tax')} class="num">
            {formatNumber(item.tax ?? 0)}</td>}
          <td data-label={t('taxInvoices.doc.itemRemark')}>{item.description ?? ''}</td>
        </tr>
      ))}
    </CardTable>
  );
}

// The document laid out as its PDF is: title, approval number, the two parties side by side,
// write date and totals, the items, the payment breakdown and the purpose.
export function DocumentView(props: { ctx: PageContext; facts: DocumentFacts;
  children?: ComponentChildren }) {
  const { ctx, facts } = props;
  const { t } = ctx;
  const { invoice, totals } = facts;
  const taxFree = facts.taxType === 'TAX_FREE';
  const payment = invoice.payment ?? null;
  return (
    <article class="document" aria-label={t(`taxInvoices.doc.title.${facts.taxType}`)}>
      <header class="document-head">
        <h2>{t(`taxInvoices.doc.title.${facts.taxType}`)}
          {facts.amendmentReason ? ` (${t('taxInvoices.doc.amended')})` : ''}</h2>
        <p>{t('taxInvoices.doc.approvalNumber')}: <code>{facts.ntsTransactionId ?? '—'}</code></p>
        {facts.amendmentReason && (
          <p>{t('taxInvoices.doc.amendmentReason')}:{' '}
            {t(`taxInvoices.reason.${facts.amendmentReason as 'TERMINATION'}`)}</p>
        )}
      </header>
      <div class="parties">
        <Party ctx={ctx} title={t('taxInvoices.doc.supplier')} party={invoice.supplier}
          emails={[invoice.supplier.manager.email]} />
        <Party ctx={ctx} title={t('taxInvoices.doc.recipient')} party={invoice.supplied}
          emails={invoice.supplied.managers.map((manager) => manager.email)} />
      </div>
      <dl class="document-totals">
        <dt>{t('taxInvoices.doc.writeDate')}</dt><dd>{invoice.date}</dd>
        <dt>{t('taxInvoices.doc.supplyCost')}</dt>
        <dd class="num">{formatWon(totals.supplyCost)}</dd>
        {!taxFree && <><dt>{t('taxInvoices.doc.tax')}</dt>
          <dd class="num">{formatWon(totals.tax)}</dd></>}
        <dt>{t('taxInvoices.doc.total')}</dt><dd class="num">{formatWon(totals.total)}</dd>
        <dt>{t('taxInvoices.doc.remark')}</dt><dd>{invoice.description ?? ''}</dd>
      </dl>
      <ItemsTable ctx={ctx} invoice={invoice} taxFree={taxFree} />
      <p class="document-foot">
        {payment && (['cash', 'check', 'note', 'credit'] as const).filter((means) =>
          payment[means] != null).map((means) => (
          <span key={means}>
            {t(`taxInvoices.doc.payment.${means}`)} {formatWon(payment[means]!)}{' '}
          </span>
        ))}
        <span>{t('taxInvoices.doc.purposeLead')} <strong>
          {t(`taxInvoices.doc.purpose.${invoice.purpose}`)}</strong></span>
      </p>
      {props.children}
    </article>
  );
}
