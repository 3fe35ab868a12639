import type { VNode } from 'preact';
import Value from 'typebox/value';
import {
  CANCEL_REASONS,
  CASH_RECEIPT_KINDS,
  CASH_RECEIPT_STATUSES,
  CASH_RECEIPT_USAGES,
  CashReceiptCancelInput,
  CashReceiptIssueInput,
  TAXATIONS,
  TRADE_OPTIONS,
  type CashReceiptView,
} from '../../areas/cash-receipts/index.ts';
import type { ApiError } from '../../platform/errors.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime, formatWon, seoulDate } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { LiveConfirmation, liveConfirmed } from '../confirmation.tsx';
import {
  actingRefusal,
  attempt,
  dashboardCaller,
  rateLimited,
  readReferenceId,
  ReferenceIdField,
  Refusal,
  refused,
} from './acting.tsx';
import {
  AMOUNT_FIELDS, amountOf, draftFormOutcome, issueDraftOutcome, saveDraftOutcome,
} from './cash-receipt-drafts.tsx';
import {
  ChoiceFilter, FilterForm as ListFilterForm, filterQuery, isCursor, isDay, listAnswer, NextPage,
  oneOf as oneOfList, readFilters,
} from '../list-page.tsx';

// Cash receipts (docs/dashboard.md § Cash receipts): the list of the session's environment with
// the API's filters, one receipt with its PDF, the issue form and the (partial) cancel form.
// Every read and write is the cash-receipts area's service, the one behind /v1/cashReceipts:
// the same validation, points, reference ids, events and processing.

const PAGE_SIZE = 50;
const ISSUERS_SHOWN = 100;
const KEY = /^[A-Za-z0-9_-]{1,100}$/;
const NOTICES = ['cashReceipts.issued', 'cashReceipts.canceled'] as const satisfies
  readonly MessageKey[];

type Status = (typeof CASH_RECEIPT_STATUSES)[number];
type Kind = (typeof CASH_RECEIPT_KINDS)[number];
type Filters = { tradeDateFrom?: string; tradeDateTo?: string; status?: Status; kind?: Kind;
  cursor?: string };

// The filters the form offers; the rules admit only the values of each type.
const FILTER_RULES = { tradeDateFrom: isDay, tradeDateTo: isDay,
  status: oneOfList(CASH_RECEIPT_STATUSES), kind: oneOfList(CASH_RECEIPT_KINDS),
  cursor: isCursor };
const readReceiptFilters = (query: URLSearchParams) =>
  readFilters(query, FILTER_RULES) as Filters | null;
const pageHref = (filters: Filters, next: string | null) => (next === null ? null
  : `/dashboard/cash-receipts?${filterQuery({ ...filters, cursor: next })}`);

const receiptPath = (issuanceKey: string) => `/dashboard/cash-receipts/${issuanceKey}`;

function StatusBadge({ ctx, status }: { ctx: PageContext; status: Status }) {
  return <span class={`badge status-${status.toLowerCase()}`}>
    {ctx.t(`cashReceipts.status.${status}`)}
  </span>;
}

function ReceiptTable({ ctx, receipts, next, filters }: { ctx: PageContext;
  receipts: CashReceiptView[]; next: string | null; filters: Filters }) {
  const { t } = ctx;
  return (
    <div id="receipts">
      {receipts.length === 0 ? <p class="muted">{t('cashReceipts.none')}</p> : (
        <CardTable head={<>
          <th>{t('cashReceipts.tradeDate')}</th><th>{t('cashReceipts.kind')}</th>
          <th>{t('cashReceipts.status')}</th><th>{t('cashReceipts.item')}</th>
          <th class="num">{t('cashReceipts.total')}</th>
          <th>{t('cashReceipts.approvalNumber')}</th>
        </>}>
          {receipts.map((receipt) => (
            <tr key={receipt.issuanceKey}>
              <td data-label={t('cashReceipts.tradeDate')}>
                <a href={receiptPath(receipt.issuanceKey)}>{receipt.tradeDate}</a>
              </td>
              <td data-label={t('cashReceipts.kind')}>
                {t(`cashReceipts.kind.${receipt.kind}`)}
              </td>
              <td data-label={t('cashReceipts.status')}>
                <StatusBadge ctx={ctx} status={receipt.status} />
              </td>
              <td data-label={t('cashReceipts.item')} class="break">{receipt.itemName}</td>
              <td data-label={t('cashReceipts.total')} class="num">
                {formatWon(receipt.totalAmount)}
              </td>
              <td data-label={t('cashReceipts.approvalNumber')}>
                {receipt.approvalNumber ?? '—'}
              </td>
            </tr>
          ))}
        </CardTable>
      )}
      <NextPage href={pageHref(filters, next)} label={t('cashReceipts.more')} />
    </div>
  );
}

function FilterForm({ ctx, filters }: { ctx: PageContext; filters: Filters }) {
  const { t } = ctx;
  return (
    <ListFilterForm path="/cash-receipts" target="receipts">
      <label>{t('cashReceipts.filterFrom')}
        <input type="date" name="tradeDateFrom" value={filters.tradeDateFrom ?? ''} />
      </label>
      <label>{t('cashReceipts.filterTo')}
        <input type="date" name="tradeDateTo" value={filters.tradeDateTo ?? ''} />
      </label>
      <ChoiceFilter label={t('cashReceipts.status')} name="status"
        all={t('cashReceipts.filterAll')} options={CASH_RECEIPT_STATUSES} chosen={filters.status}
        text={(status) => t(`cashReceipts.status.${status}`)} />
      <ChoiceFilter label={t('cashReceipts.kind')} name="kind" all={t('cashReceipts.filterAll')}
        options={CASH_RECEIPT_KINDS} chosen={filters.kind}
        text={(kind) => t(`cashReceipts.kind.${kind}`)} />
      <button type="submit" class="secondary">{t('cashReceipts.apply')}</button>
    </ListFilterForm>
  );
}

async function listOutcome(ctx: PageContext): Promise<Outcome> {
  const { t } = ctx;
  const filters = readReceiptFilters(ctx.query);
  const invalid = (): Outcome => ({ kind: 'page', title: 'cashReceipts.title', status: 400,
    body: <Notice kind="error">{t('cashReceipts.filterInvalid')}</Notice> });
  if (filters === null) return invalid();
  const { cursor, ...listFilters } = filters;
  const page = await attempt(() => ctx.services.areas.cashReceipts.list({ scope: ctx.scope,
    filters: listFilters, limit: PAGE_SIZE, cursor }));
  if (refused(page)) return invalid();
  const table = <ReceiptTable ctx={ctx} receipts={page.cashReceipts} next={page.nextCursor}
    filters={filters} />;
  return listAnswer(ctx, table, () => ({ kind: 'page', title: 'cashReceipts.title', body: (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {ctx.may('documents.issue') && (
        <p class="actions">
          <a class="button primary" href="/dashboard/cash-receipts/new">
            {t('cashReceipts.new')}
          </a>
        </p>
      )}
      <Section title={t('cashReceipts.list')} id="list">
        <FilterForm ctx={ctx} filters={filters} />
        {table}
      </Section>
    </>
  ) }));
}

type IssuerChoice = { issuerId: string; organizationName: string; identificationNumber: string };

function Choice<T extends string>({ ctx, name, label, options, values, text }: {
  ctx: PageContext; name: string; label: MessageKey; options: readonly T[];
  values?: URLSearchParams | undefined; text: (option: T) => MessageKey }) {
  return (
    <label>{ctx.t(label)}
      <select name={name}>
        {options.map((option) => (
          <option key={option} value={option} selected={values?.get(name) === option}>
            {ctx.t(text(option))}
          </option>
        ))}
      </select>
    </label>
  );
}

function IssueFields({ ctx, issuers, values }: { ctx: PageContext; issuers: IssuerChoice[];
  values?: URLSearchParams | undefined }) {
  const { t } = ctx;
  const value = (name: string, fallback = '') => values?.get(name) ?? fallback;
  const draftId = value('draftId');
  return (
    <PostForm ctx={ctx} action="/cash-receipts" class="stack">
      <ReferenceIdField values={values} />
      <label>{t('cashReceipts.merchant')}
        <select name="issuerId" required>
          {issuers.map((issuer) => (
            <option key={issuer.issuerId} value={issuer.issuerId}
              selected={value('issuerId') === issuer.issuerId}>
              {issuer.organizationName} ({issuer.identificationNumber})
            </option>
          ))}
        </select>
      </label>
      <label>{t('cashReceipts.tradeDate')}
        <input type="date" name="tradeDate" required value={value('tradeDate',
          seoulDate(ctx.now()))} />
      </label>
      <Choice ctx={ctx} name="usage" label="cashReceipts.usage" options={CASH_RECEIPT_USAGES}
        values={values} text={(usage) => `cashReceipts.usage.${usage}`} />
      <label>{t('cashReceipts.identityNumber')}
        <span class="hint">{t('cashReceipts.identityNumberHint')}</span>
        <input type="text" name="identityNumber" required maxLength={30} inputMode="numeric"
          autocomplete="off" value={value('identityNumber')} />
      </label>
      <Choice ctx={ctx} name="taxation" label="cashReceipts.taxation" options={TAXATIONS}
        values={values} text={(taxation) => `cashReceipts.taxation.${taxation}`} />
      <Choice ctx={ctx} name="tradeOption" label="cashReceipts.tradeOption"
        options={TRADE_OPTIONS} values={values}
        text={(option) => `cashReceipts.tradeOption.${option}`} />
      <AmountFields ctx={ctx} values={values} />
      <label>{t('cashReceipts.item')}
        <input type="text" name="itemName" required maxLength={100}
          value={value('itemName')} />
      </label>
      <label>{t('cashReceipts.customerName')}
        <input type="text" name="customerName" maxLength={50} value={value('customerName')} />
      </label>
      <label>{t('cashReceipts.customerEmail')}
        <input type="email" name="customerEmail" maxLength={100}
          value={value('customerEmail')} />
      </label>
      {draftId !== '' && (
        <>
          <input type="hidden" name="draftId" value={draftId} />
          <input type="hidden" name="draftVersion" value={value('draftVersion')} />
        </>
      )}
      {ctx.may('documents.issue') && (
        <LiveConfirmation ctx={ctx} points={ctx.services.platform.prices['cashReceipts.issue']} />
      )}
      <p class="actions">
        {ctx.may('documents.issue') && (
          <button type="submit" class="primary" formAction={draftId === '' ? undefined
            : '/dashboard/cash-receipts/new/draft-issue'}>{t('cashReceipts.issue')}</button>)}
        {/* A draft keeps what is there, complete or not: the browser's checks are skipped. */}
        {ctx.may('drafts.submit') && (
          <button type="submit" class="secondary" formNoValidate
            formAction="/dashboard/cash-receipts/new/draft">
            {t(draftId === '' ? 'drafts.form.save' : 'drafts.form.saveChanges')}</button>)}
      </p>
    </PostForm>
  );
}

// The issue form. `values` are what was posted when the form is shown again after a refusal;
// the reference id stays the same, so sending the corrected form is still one request. `aside`
// is shown above it (the draft it edits).
async function issueForm(ctx: PageContext, problem?: ApiError | MessageKey,
  values?: URLSearchParams, aside?: VNode): Promise<Outcome> {
  const { t } = ctx;
  const { issuers } = await ctx.services.areas.issuers.listIssuers({ scope: ctx.scope,
    limit: ISSUERS_SHOWN });
  const active = issuers.filter((issuer) => issuer.active);
  const body = active.length === 0
    ? <Notice kind="info">{t('cashReceipts.noIssuers')}</Notice>
    : <IssueFields ctx={ctx} issuers={active} values={values} />;
  // A refusal of the service answers its own status (400, 402, 409, 503), as the API would.
  const status = problem === undefined ? 200 : typeof problem === 'string' ? 400 : problem.status;
  return { kind: 'page', title: 'cashReceipts.newTitle', status, body: (
    <>
      {problem && <Refusal ctx={ctx} error={problem} />}
      {aside}
      <Section title={t('cashReceipts.newTitle')} id="issue">{body}</Section>
      <p><a href="/dashboard/cash-receipts">{t('cashReceipts.back')}</a></p>
    </>
  ) };
}

function AmountFields({ ctx, values, optional }: { ctx: PageContext;
  values?: URLSearchParams | undefined; optional?: boolean }) {
  return (
    <fieldset class="amounts">
      <legend>{ctx.t(optional ? 'cashReceipts.partAmounts' : 'cashReceipts.amounts')}</legend>
      {AMOUNT_FIELDS.map((name) => (
        <label key={name}>{ctx.t(`cashReceipts.${name}`)}
          <input type="text" name={name} inputMode="numeric" maxLength={19}
            required={optional !== true} value={values?.get(name) ?? ''} />
        </label>
      ))}
    </fieldset>
  );
}

// The API's request body from the form, or null when a field is not of its shape.
function issueBodyOf(form: URLSearchParams): Record<string, unknown> | null {
  const amounts: Record<string, number> = {};
  for (const name of AMOUNT_FIELDS) {
    const amount = amountOf(form.get(name) ?? '');
    if (amount === null) return null;
    amounts[name] = amount;
  }
  const text = (name: string) => (form.get(name) ?? '').trim();
  const customer = { ...(text('customerName') ? { name: text('customerName') } : {}),
    ...(text('customerEmail') ? { email: text('customerEmail') } : {}) };
  const body = { tradeDate: text('tradeDate'), usage: text('usage'),
    identityNumber: text('identityNumber'), taxation: text('taxation'), ...amounts,
    itemName: text('itemName'), tradeOption: text('tradeOption') || 'GENERAL',
    ...(Object.keys(customer).length > 0 ? { customer } : {}) };
  return Value.Check(CashReceiptIssueInput, body) ? body : null;
}

async function issue(ctx: PageContext): Promise<Outcome> {
  const referenceId = readReferenceId(ctx.form);
  const body = issueBodyOf(ctx.form);
  if (referenceId === null || body === null) {
    return issueForm(ctx, 'cashReceipts.error.invalid', ctx.form);
  }
  if (!liveConfirmed(ctx)) return issueForm(ctx, 'confirm.liveMissing', ctx.form);
  const issuerId = ctx.form.get('issuerId') ?? '';
  const issuer = await attempt(() => ctx.services.areas.issuers.listIssuers({ scope: ctx.scope,
    limit: ISSUERS_SHOWN }).then(({ issuers }) => issuers.find((row) =>
    row.issuerId === issuerId && row.active)));
  if (refused(issuer) || issuer === undefined) {
    return issueForm(ctx, 'cashReceipts.error.issuer', ctx.form);
  }
  if (await rateLimited(ctx, 'cashReceipts.issue') !== null) {
    return issueForm(ctx, 'acting.rateLimited', ctx.form);
  }
  const accepted = await attempt(() => ctx.services.areas.cashReceipts.issue({
    caller: dashboardCaller(ctx), supplierKey: issuer.supplierKey, referenceId,
    body: body as Parameters<typeof ctx.services.areas.cashReceipts.issue>[0]['body'] }));
  if (refused(accepted)) return issueForm(ctx, accepted, ctx.form);
  await ctx.audit('cashReceipt.issued', accepted.issuanceKey, ctx.scope.environment);
  return { kind: 'redirect',
    to: `${receiptPath(accepted.issuanceKey)}?notice=cashReceipts.issued` };
}

// The receipt of the session's scope, or null for a key that is not one (another account's or
// environment's, or none): the page then answers 404, as the API does.
async function receiptOf(ctx: PageContext): Promise<CashReceiptView | null> {
  const issuanceKey = ctx.params.issuanceKey ?? '';
  if (!KEY.test(issuanceKey)) return null;
  const found = await attempt(() => ctx.services.areas.cashReceipts.get({ scope: ctx.scope,
    issuanceKey }));
  return refused(found) ? null : found;
}

const cancelable = (receipt: CashReceiptView) => receipt.kind === 'ISSUANCE' &&
  (receipt.status === 'ISSUED' || receipt.status === 'TRANSMITTED') &&
  (receipt.remainingAmount ?? 0) > 0;

function CancelForm({ ctx, receipt, values }: { ctx: PageContext; receipt: CashReceiptView;
  values?: URLSearchParams | undefined }) {
  const { t } = ctx;
  const price = ctx.services.platform.prices['cashReceipts.cancel'];
  return (
    <PostForm ctx={ctx} action={`/cash-receipts/${receipt.issuanceKey}/cancel`} class="stack">
      <ReferenceIdField values={values} />
      <p>{t('cashReceipts.cancelLead', { remaining: formatWon(receipt.remainingAmount ?? 0) })}</p>
      <label>{t('cashReceipts.cancelReason')}
        <select name="reason">
          {CANCEL_REASONS.map((reason) => (
            <option key={reason} value={reason} selected={values?.get('reason') === reason}>
              {t(`cashReceipts.reason.${reason}`)}
            </option>
          ))}
        </select>
      </label>
      <AmountFields ctx={ctx} values={values} optional />
      <LiveConfirmation ctx={ctx} points={price} />
      <button type="submit" class="danger">{t('cashReceipts.cancel')}</button>
    </PostForm>
  );
}

function detailBody(ctx: PageContext, receipt: CashReceiptView,
  problem?: { error: ApiError | MessageKey; values: URLSearchParams }) {
  const { t } = ctx;
  const fact = (label: MessageKey, value: string | null) => (
    <><dt>{t(label)}</dt><dd class="break">{value ?? '—'}</dd></>
  );
  return (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Refusal ctx={ctx} error={problem.error} />}
      <Section title={t('cashReceipts.receipt')} id="receipt">
        <p><StatusBadge ctx={ctx} status={receipt.status} />{' '}
          {t(`cashReceipts.kind.${receipt.kind}`)}</p>
        {receipt.failure && (
          <Notice kind="error">
            <code>{receipt.failure.code}</code> <span class="break">{receipt.failure.message}</span>
          </Notice>
        )}
        <dl class="facts">
          {fact('cashReceipts.issuanceKey', receipt.issuanceKey)}
          {fact('cashReceipts.approvalNumber', receipt.approvalNumber)}
          {fact('cashReceipts.merchant', `${receipt.merchant.organizationName} (` +
            `${receipt.merchant.businessRegistrationNumber})`)}
          {fact('cashReceipts.tradeDate', receipt.tradeDate)}
          {fact('cashReceipts.usage', t(`cashReceipts.usage.${receipt.usage}`))}
          {fact('cashReceipts.identityNumber', receipt.identityNumber)}
          {fact('cashReceipts.item', receipt.itemName)}
          {fact('cashReceipts.supplyCost', formatWon(receipt.supplyCost))}
          {fact('cashReceipts.tax', formatWon(receipt.tax))}
          {fact('cashReceipts.serviceFee', formatWon(receipt.serviceFee))}
          {fact('cashReceipts.totalAmount', formatWon(receipt.totalAmount))}
          {receipt.remainingAmount !== null &&
            fact('cashReceipts.remaining', formatWon(receipt.remainingAmount))}
          {receipt.customer?.name && fact('cashReceipts.customerName', receipt.customer.name)}
          {receipt.customer?.email && fact('cashReceipts.customerEmail', receipt.customer.email)}
          {receipt.cancelReason && fact('cashReceipts.cancelReason',
            t(`cashReceipts.reason.${receipt.cancelReason}`))}
          {fact('cashReceipts.createdAt', formatDateTime(new Date(receipt.createdAt)))}
          {receipt.issuedAt && fact('cashReceipts.issuedAt',
            formatDateTime(new Date(receipt.issuedAt)))}
          {receipt.transmittedAt && fact('cashReceipts.transmittedAt',
            formatDateTime(new Date(receipt.transmittedAt)))}
        </dl>
        {receipt.originalIssuanceKey && (
          <p><a href={receiptPath(receipt.originalIssuanceKey)}>
            {t('cashReceipts.original')}
          </a></p>
        )}
        <p class="actions">
          <a class="button secondary" href={`${receiptPath(receipt.issuanceKey)}/pdf`}
            download>{t('cashReceipts.pdf')}</a>
          <a href="/dashboard/cash-receipts">{t('cashReceipts.back')}</a>
        </p>
      </Section>
      {ctx.may('documents.issue') && cancelable(receipt) && (
        <Section title={t('cashReceipts.cancelTitle')} id="cancel">
          <CancelForm ctx={ctx} receipt={receipt} values={problem?.values} />
        </Section>
      )}
    </>
  );
}

const notFound = (ctx: PageContext): Outcome => ({ kind: 'page', title: 'error.notFound.title',
  status: 404, body: <div class="card"><p>{ctx.t('error.notFound')}</p></div> });

function cancelBodyOf(form: URLSearchParams): Record<string, unknown> | null {
  const reason = form.get('reason') ?? '';
  const typed = AMOUNT_FIELDS.filter((name) => (form.get(name) ?? '').trim() !== '');
  // No amounts cancels what remains; a part names all four.
  if (typed.length === 0) {
    return Value.Check(CashReceiptCancelInput, { reason }) ? { reason } : null;
  }
  if (typed.length !== AMOUNT_FIELDS.length) return null;
  const body: Record<string, unknown> = { reason };
  for (const name of AMOUNT_FIELDS) {
    const amount = amountOf(form.get(name) ?? '');
    if (amount === null) return null;
    body[name] = amount;
  }
  return Value.Check(CashReceiptCancelInput, body) ? body : null;
}

async function cancel(ctx: PageContext): Promise<Outcome> {
  const receipt = await receiptOf(ctx);
  if (receipt === null) return notFound(ctx);
  const again = (error: ApiError | MessageKey): Outcome => ({ kind: 'page',
    title: 'cashReceipts.title', status: 400,
    body: detailBody(ctx, receipt, { error, values: ctx.form }) });
  const referenceId = readReferenceId(ctx.form);
  const body = cancelBodyOf(ctx.form);
  if (referenceId === null || body === null) return again('cashReceipts.error.cancelInvalid');
  const stopped = await actingRefusal(ctx, 'cashReceipts.cancel');
  if (stopped !== null) return again(stopped);
  const accepted = await attempt(() => ctx.services.areas.cashReceipts.cancel({
    caller: dashboardCaller(ctx), issuanceKey: receipt.issuanceKey, referenceId,
    body: body as Parameters<typeof ctx.services.areas.cashReceipts.cancel>[0]['body'] }));
  if (refused(accepted)) {
    // Refusals of the receipt's state answer 409 in the API; the form says why.
    const outcome = again(accepted);
    return { ...outcome, status: accepted.status } as Outcome;
  }
  await ctx.audit('cashReceipt.canceled', accepted.issuanceKey, ctx.scope.environment);
  return { kind: 'redirect',
    to: `${receiptPath(accepted.issuanceKey)}?notice=cashReceipts.canceled` };
}

export const cashReceiptsPage: DashboardPage = {
  nav: { label: 'nav.cashReceipts', path: '/cash-receipts', section: 'issuing',
    permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/cash-receipts', permission: 'account.read', handle: listOutcome },
    // The form is open to who may save drafts (docs/drafts.md); issuing from it is not.
    { method: 'GET', path: '/cash-receipts/new', permission: 'drafts.submit',
      handle: (ctx) => (ctx.query.has('draft') ? draftFormOutcome(ctx, issueForm)
        : issueForm(ctx)) },
    { method: 'POST', path: '/cash-receipts/new/draft', permission: 'drafts.submit',
      handle: (ctx) => saveDraftOutcome(ctx, issueForm) },
    { method: 'POST', path: '/cash-receipts/new/draft-issue', permission: 'documents.issue',
      handle: (ctx) => issueDraftOutcome(ctx, issueForm) },
    { method: 'POST', path: '/cash-receipts', permission: 'documents.issue', handle: issue },
    {
      method: 'GET', path: '/cash-receipts/:issuanceKey', permission: 'account.read',
      async handle(ctx) {
        const receipt = await receiptOf(ctx);
        if (receipt === null) return notFound(ctx);
        return { kind: 'page', title: 'cashReceipts.title', body: detailBody(ctx, receipt) };
      },
    },
    {
      method: 'GET', path: '/cash-receipts/:issuanceKey/pdf', permission: 'account.read',
      async handle(ctx) {
        const receipt = await receiptOf(ctx);
        if (receipt === null) return notFound(ctx);
        const pdf = await ctx.services.areas.cashReceipts.pdf({ scope: ctx.scope,
          issuanceKey: receipt.issuanceKey });
        return { kind: 'download', filename: `${receipt.issuanceKey}.pdf`,
          contentType: 'application/pdf', body: pdf };
      },
    },
    { method: 'POST', path: '/cash-receipts/:issuanceKey/cancel', permission: 'documents.issue',
      handle: cancel },
  ],
};
