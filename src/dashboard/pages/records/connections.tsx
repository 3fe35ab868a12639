import Value from 'typebox/value';
import type { ConnectionView } from '../../../areas/connections/index.ts';
import { CollectBody } from '../../../areas/revenue-expenses/index.ts';
import { findBank } from '../../../domain/bank-codes.ts';
import { formatBusinessRegistrationNumber } from
  '../../../domain/business-registration-number.ts';
import type { ApiError } from '../../../platform/errors.ts';
import { Notice, PostForm, Section } from '../../components.tsx';
import type { DashboardAreas, DashboardPage, Outcome, PageContext } from '../../context.ts';
import { formatDateTime, formatWon, seoulDate } from '../../format.ts';
import type { MessageKey } from '../../i18n/index.ts';
import { errorOutcome } from '../errors.tsx';
import {
  ApiProblem,
  asApiError,
  planShortfall,
  PlanNotice,
  rateLimitedPage,
} from './shared.tsx';
import { LiveConfirmation, liveConfirmed } from '../../confirmation.tsx';

// The bank accounts a page shows: one page of GET /v1/bankAccounts, the most an account has.
const BANK_ACCOUNTS_SHOWN = 100;

// Connections (docs/dashboard.md § Connections): the tax portal (Hometax) and bank accounts of
// the session's account and environment, made on the connections area's hosted page (the same
// one-time link as GET /v1/connections/url: credentials are typed there, never in the
// dashboard, and the bank is chosen there by its name), with their state and the outcome of
// the last collection or sync; "collect now" and "sync now" start the same work as
// POST /v1/revenueExpenses:collect and POST /v1/bankAccounts/{id}/syncs, behind the same plan
// gate and rate limits; disconnecting is DELETE /v1/connections/{id}.

type Kind = ConnectionView['kind'];
type Areas = DashboardAreas;
type Collection = Awaited<ReturnType<Areas['revenueExpenses']['getCollection']>>;
type Sync = Awaited<ReturnType<Areas['bankTransactions']['getSync']>>;
type BankAccount = Awaited<ReturnType<Areas['bankTransactions']['listAccounts']>>['items'][number];

const KINDS: readonly Kind[] = ['HOMETAX', 'BANK_ACCOUNT'];
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const MONTH = '[0-9]{4}-[0-9]{2}';
// How often the page asks for a queued or running collection's or sync's state.
const POLL = 'every 2s';

const months = (now: Date) => {
  const today = seoulDate(now).slice(0, 7);
  const [year, month] = today.split('-').map(Number) as [number, number];
  const previous = month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
  return { from: previous, to: today };
};

function StateBadge({ ctx, connection }: { ctx: PageContext; connection: ConnectionView }) {
  const ok = connection.state === 'CONNECTED';
  return (
    <>
      <span class={`state ${ok ? 'ok' : 'bad'}`}>
        {ctx.t(`connections.state.${connection.state}`)}
      </span>
      {connection.failure !== null && (
        <> <code>{connection.failure.code}</code>{' '}
          <span class="break">{connection.failure.message}</span></>
      )}
    </>
  );
}

// The state of a collection or a sync; asks again while it is queued or running.
function RunStatus({ ctx, title, run, counts, path }: { ctx: PageContext; title: MessageKey;
  run: Collection | Sync; counts: string; path: string }) {
  const { t } = ctx;
  const going = run.state === 'QUEUED' || run.state === 'RUNNING';
  const ok = run.state === 'SUCCEEDED';
  return (
    <div id="run" class={`notice ${ok ? 'success' : run.state === 'FAILED' ? 'error' : 'info'}`}
      role="status" hx-get={going ? path : undefined} hx-trigger={going ? POLL : undefined}
      hx-swap={going ? 'outerHTML' : undefined}>
      <strong>{t(title)}: {t(`connections.run.${run.state}`)}</strong>
      {ok && <> {counts}</>}
      {run.failure !== null && <> <code>{run.failure.code}</code> <span class="break">
        {run.failure.message}</span></>}
    </div>
  );
}

const collectionCounts = (ctx: PageContext, run: Collection) =>
  ctx.t('connections.collectionCounts', { from: run.from, to: run.to, ...run.counts });
const syncCounts = (ctx: PageContext, run: Sync) =>
  ctx.t('connections.syncCounts', { from: run.from ?? '', to: run.to ?? '', ...run.counts });

async function collectionStatus(ctx: PageContext, id: string) {
  const run = await ctx.services.areas.revenueExpenses.getCollection(ctx.scope, id);
  return <RunStatus ctx={ctx} title="connections.collection" run={run}
    counts={collectionCounts(ctx, run)} path={`/dashboard/connections/collections/${id}`} />;
}

async function syncStatus(ctx: PageContext, accountId: string, id: string) {
  const run = await ctx.services.areas.bankTransactions.getSync(ctx.scope, accountId, id);
  return <RunStatus ctx={ctx} title="connections.syncRequest" run={run}
    counts={syncCounts(ctx, run)}
    path={`/dashboard/connections/bank-accounts/${accountId}/syncs/${id}`} />;
}

// The collection or sync a redirect named, when it is one of this scope; nothing otherwise.
async function requestedRun(ctx: PageContext) {
  const collection = ctx.query.get('collection');
  const sync = ctx.query.get('sync');
  const account = ctx.query.get('account');
  try {
    if (collection !== null && ID.test(collection)) return await collectionStatus(ctx, collection);
    if (sync !== null && account !== null && ID.test(sync) && ID.test(account)) {
      return await syncStatus(ctx, account, sync);
    }
  } catch (error) {
    if (asApiError(error).code !== 'NOT_FOUND') throw error;
  }
  return null;
}

function Facts({ ctx, connection, extra }: { ctx: PageContext; connection: ConnectionView;
  extra?: Array<[MessageKey, string]> }) {
  const { t } = ctx;
  const subject: Array<[MessageKey, string]> = connection.kind === 'HOMETAX'
    ? [['connections.business',
      formatBusinessRegistrationNumber(connection.businessRegistrationNumber ?? '')]]
    : [['connections.bank', findBank(connection.bankCode ?? '')?.nameKorean ??
      connection.bankCode ?? ''], ['connections.account', connection.accountNumber ?? '']];
  return (
    <dl class="facts">
      {subject.map(([label, value]) => <><dt>{t(label)}</dt><dd class="break">{value}</dd></>)}
      <dt>{t('connections.name')}</dt><dd class="break">{connection.displayName ?? ''}</dd>
      <dt>{t('connections.method')}</dt><dd>{t(`connections.method.${connection.method}`)}</dd>
      <dt>{t('connections.state')}</dt><dd><StateBadge ctx={ctx} connection={connection} /></dd>
      <dt>{t('connections.connectedAt')}</dt>
      <dd>{connection.connectedAt === null ? t('connections.never')
        : formatDateTime(new Date(connection.connectedAt))}</dd>
      <dt>{t('connections.lastSynced')}</dt>
      <dd>{connection.lastSyncedAt === null ? t('connections.never')
        : formatDateTime(new Date(connection.lastSyncedAt))}</dd>
      <dt>{t('connections.outcome')}</dt>
      <dd>{connection.failure !== null ? <><code>{connection.failure.code}</code> <span
        class="break">{connection.failure.message}</span></>
        : connection.lastSyncedAt === null ? t('connections.never')
          : t('connections.outcomeOk')}</dd>
      {(extra ?? []).map(([label, value]) => <><dt>{t(label)}</dt><dd>{value}</dd></>)}
    </dl>
  );
}

function Disconnect({ ctx, connection }: { ctx: PageContext; connection: ConnectionView }) {
  return (
    <PostForm ctx={ctx} action={`/connections/${connection.id}/disconnect`} class="actions"
      confirm={ctx.t('connections.disconnectConfirm')}>
      <LiveConfirmation ctx={ctx} />
      <button type="submit" class="danger">{ctx.t('connections.disconnect')}</button>
    </PostForm>
  );
}

function HometaxItem({ ctx, connection, collects }: { ctx: PageContext;
  connection: ConnectionView; collects: boolean }) {
  const { t } = ctx;
  const range = months(ctx.now());
  const manage = ctx.may('connections.manage');
  const shortfall = planShortfall(ctx, 'revenueExpenses.collect');
  return (
    <li class="connection" id={`connection-${connection.id}`}>
      <Facts ctx={ctx} connection={connection} />
      {manage && collects && (shortfall !== null
        ? <PlanNotice ctx={ctx} what="connections.collectWhat" shortfall={shortfall} />
        : (
          <PostForm ctx={ctx} action={`/connections/${connection.id}/collect`} class="row" once>
            <label>{t('connections.collectFrom')}
              <input type="month" name="from" required value={range.from} pattern={MONTH} />
            </label>
            <label>{t('connections.collectTo')}
              <input type="month" name="to" required value={range.to} pattern={MONTH} />
            </label>
            <LiveConfirmation ctx={ctx} />
            <button type="submit" class="primary">{t('connections.collect')}</button>
          </PostForm>
        ))}
      {manage && <Disconnect ctx={ctx} connection={connection} />}
    </li>
  );
}


function BankItem({ ctx, connection, account }: { ctx: PageContext; connection: ConnectionView;
  account: BankAccount | undefined }) {
  const { t } = ctx;
  const manage = ctx.may('connections.manage');
  const shortfall = planShortfall(ctx, 'bankAccounts.sync');
  const extra: Array<[MessageKey, string]> = account?.balance === null ||
    account === undefined ? [] : [['connections.balance', formatWon(account.balance)]];
  return (
    <li class="connection" id={`connection-${connection.id}`}>
      <Facts ctx={ctx} connection={connection} extra={extra} />
      {manage && (shortfall !== null
        ? <PlanNotice ctx={ctx} what="connections.syncWhat" shortfall={shortfall} />
        : (
          <PostForm ctx={ctx} action={`/connections/${connection.id}/sync`} class="actions" once>
            <LiveConfirmation ctx={ctx} />
            <button type="submit" class="primary">{t('connections.sync')}</button>
          </PostForm>
        ))}
      {manage && <Disconnect ctx={ctx} connection={connection} />}
    </li>
  );
}

function ConnectButton({ ctx, kind }: { ctx: PageContext; kind: Kind }) {
  const { t } = ctx;
  return (
    <PostForm ctx={ctx} action="/connections/link" class="actions">
      <input type="hidden" name="kind" value={kind} />
      <button type="submit" class="primary">
        {t(kind === 'HOMETAX' ? 'connections.connectHometax' : 'connections.connectBank')}
      </button>
      <span class="hint">
        {t(kind === 'HOMETAX' ? 'connections.connectHint' : 'connections.connectHintBank')}
      </span>
    </PostForm>
  );
}

async function connectionsBody(ctx: PageContext, problem?: ApiError | MessageKey) {
  const { t } = ctx;
  const { areas } = ctx.services;
  // The run first: a connection read after it is at least as new as the run's outcome.
  const run = await requestedRun(ctx);
  const all = await areas.connections.list(ctx.scope);
  const hometax = all.filter((connection) => connection.kind === 'HOMETAX');
  const banks = all.filter((connection) => connection.kind === 'BANK_ACCOUNT');
  // Balances are what GET /v1/bankAccounts answers, for the plans that may call it.
  const accounts = banks.length > 0 && planShortfall(ctx, 'bankAccounts.list') === null
    ? (await areas.bankTransactions.listAccounts(ctx.scope,
      { limit: BANK_ACCOUNTS_SHOWN })).items : [];
  const manage = ctx.may('connections.manage');
  return (
    <>
      {ctx.query.get('notice') === 'disconnected' &&
        <Notice kind="success">{t('connections.disconnected')}</Notice>}
      {typeof problem === 'string' && <Notice kind="error">{t(problem)}</Notice>}
      {problem !== undefined && typeof problem !== 'string' &&
        <ApiProblem ctx={ctx} error={problem} />}
      {run}
      <p>{t('connections.lead', { environment: t(`env.${ctx.scope.environment}`) })}</p>
      {!manage && <p class="muted">{t('connections.readOnly')}</p>}
      <Section title={t('connections.hometax')} id="hometax">
        {hometax.length === 0 ? <p>{t('connections.noHometax')}</p> : (
          <ul class="plain-list">
            {/* Collections go through the first Hometax connection, as the API's do. */}
            {hometax.map((connection, index) => (
              <HometaxItem key={connection.id} ctx={ctx} connection={connection}
                collects={index === 0} />
            ))}
          </ul>
        )}
        {manage && <ConnectButton ctx={ctx} kind="HOMETAX" />}
      </Section>
      <Section title={t('connections.bankAccounts')} id="bank-accounts">
        {banks.length === 0 ? <p>{t('connections.noBankAccounts')}</p> : (
          <ul class="plain-list">
            {banks.map((connection) => (
              <BankItem key={connection.id} ctx={ctx} connection={connection}
                account={accounts.find((account) => account.connectionId === connection.id)} />
            ))}
          </ul>
        )}
        {manage && <ConnectButton ctx={ctx} kind="BANK_ACCOUNT" />}
      </Section>
    </>
  );
}

const page = async (ctx: PageContext, problem?: ApiError | MessageKey, status?: number):
  Promise<Outcome> =>
  ({ kind: 'page', title: 'connections.title', status,
    body: await connectionsBody(ctx, problem) });

// The connection of this scope with this id and kind, else null (another account's, another
// environment's, or none: all answered 404).
async function ownConnection(ctx: PageContext, kind?: Kind) {
  const id = ctx.params.connectionId ?? '';
  if (!ID.test(id)) return null;
  const found = await ctx.services.areas.connections.list(ctx.scope, kind);
  return { connection: found.find((connection) => connection.id === id) ?? null, all: found };
}

// The checks "collect now" and "sync now" share before any work: the plan (the API's 403
// PLAN_UPGRADE_REQUIRED, shown as what is needed), the typed confirmation in live, the rate
// limit of the operation.
async function refusal(ctx: PageContext, operation: 'revenueExpenses.collect' |
  'bankAccounts.sync', what: MessageKey): Promise<Outcome | null> {
  const shortfall = planShortfall(ctx, operation);
  if (shortfall !== null) {
    return { kind: 'page', title: 'connections.title', status: 403,
      body: <>
        <PlanNotice ctx={ctx} what={what} shortfall={shortfall} />
        <p><a href="/dashboard/connections">{ctx.t('connections.back')}</a></p>
      </> };
  }
  if (!liveConfirmed(ctx)) return page(ctx, 'confirm.liveMissing', 400);
  return rateLimitedPage(ctx, operation, 'connections.title');
}

const fragmentOrNotFound = async (ctx: PageContext, work: () => Promise<Outcome>) => {
  try {
    return await work();
  } catch (error) {
    if (asApiError(error).code === 'NOT_FOUND') return errorOutcome(ctx.t, 'notFound', 404);
    throw error;
  }
};

export const connectionsPage: DashboardPage = {
  nav: { label: 'nav.connections', path: '/connections', section: 'records',
    permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/connections', permission: 'account.read', handle: (ctx) => page(ctx) },
    {
      // The hosted page's one-time link, shown on the answer to this POST and never put in an
      // address of the dashboard: whoever holds it can connect to this account.
      method: 'POST', path: '/connections/link', permission: 'connections.manage',
      async handle(ctx) {
        const kind = KINDS.find((known) => known === ctx.form.get('kind'));
        if (kind === undefined) return page(ctx, 'lookups.error.invalid', 400);
        const link = await ctx.services.areas.connectionLinks.createLink(ctx.scope, kind);
        await ctx.audit('connection.linkCreated', kind, ctx.scope.environment);
        const { t } = ctx;
        return { kind: 'page', title: 'connections.title', body: (
          <Section title={t('connections.linkTitle')} id="link">
            <p>{t('connections.linkLead', { until: formatDateTime(new Date(link.expiresAt)) })}</p>
            <p class="actions">
              <a class="button primary" href={link.url} id="connection-link">
                {t('connections.openPage')}
              </a>
              <a href="/dashboard/connections">{t('connections.back')}</a>
            </p>
          </Section>
        ) };
      },
    },
    {
      method: 'POST', path: '/connections/:connectionId/disconnect',
      permission: 'connections.manage',
      async handle(ctx) {
        const connection = (await ownConnection(ctx))?.connection ?? null;
        if (connection === null) return errorOutcome(ctx.t, 'notFound', 404);
        if (!liveConfirmed(ctx)) return page(ctx, 'confirm.liveMissing', 400);
        try {
          await ctx.services.areas.connections.disconnect(ctx.scope, connection.id);
        } catch (error) {
          if (asApiError(error).code === 'NOT_FOUND') return errorOutcome(ctx.t, 'notFound', 404);
          throw error;
        }
        await ctx.audit('connection.disconnected', connection.id, ctx.scope.environment);
        return { kind: 'redirect', to: '/dashboard/connections?notice=disconnected' };
      },
    },
    {
      method: 'POST', path: '/connections/:connectionId/collect',
      permission: 'connections.manage',
      async handle(ctx) {
        const own = await ownConnection(ctx, 'HOMETAX');
        // Collections go through the first Hometax connection; the others offer no button.
        if (own?.connection == null || own.all[0]?.id !== own.connection.id) {
          return errorOutcome(ctx.t, 'notFound', 404);
        }
        const body = { from: (ctx.form.get('from') ?? '').trim(),
          to: (ctx.form.get('to') ?? '').trim() };
        if (!Value.Check(CollectBody, body)) return page(ctx, 'connections.error.month', 400);
        const refused = await refusal(ctx, 'revenueExpenses.collect', 'connections.collectWhat');
        if (refused !== null) return refused;
        try {
          const { collectionId } = await ctx.services.areas.revenueExpenses.collect(ctx.scope,
            body);
          await ctx.audit('connection.collectRequested', collectionId, ctx.scope.environment);
          return { kind: 'redirect', to: `/dashboard/connections?collection=${collectionId}` };
        } catch (error) {
          const problem = asApiError(error);
          return page(ctx, problem, problem.status);
        }
      },
    },
    {
      method: 'POST', path: '/connections/:connectionId/sync', permission: 'connections.manage',
      async handle(ctx) {
        const own = await ownConnection(ctx, 'BANK_ACCOUNT');
        if (own?.connection == null) return errorOutcome(ctx.t, 'notFound', 404);
        const refused = await refusal(ctx, 'bankAccounts.sync', 'connections.syncWhat');
        if (refused !== null) return refused;
        const { bankTransactions } = ctx.services.areas;
        const account = (await bankTransactions.listAccounts(ctx.scope,
          { limit: BANK_ACCOUNTS_SHOWN })).items
          .find((item) => item.connectionId === own.connection?.id);
        if (account === undefined) return errorOutcome(ctx.t, 'notFound', 404);
        try {
          const { syncId } = await bankTransactions.requestSync(ctx.scope, account.bankAccountId);
          await ctx.audit('connection.syncRequested', syncId, ctx.scope.environment);
          return { kind: 'redirect',
            to: `/dashboard/connections?sync=${syncId}&account=${account.bankAccountId}` };
        } catch (error) {
          const problem = asApiError(error);
          return page(ctx, problem, problem.status);
        }
      },
    },
    {
      // The state of a collection, for the page's htmx request while it is under way.
      method: 'GET', path: '/connections/collections/:collectionId', permission: 'account.read',
      handle: (ctx) => fragmentOrNotFound(ctx, async () => {
        const id = ctx.params.collectionId ?? '';
        if (!ID.test(id)) return errorOutcome(ctx.t, 'notFound', 404);
        return { kind: 'fragment', body: await collectionStatus(ctx, id) };
      }),
    },
    {
      method: 'GET', path: '/connections/bank-accounts/:bankAccountId/syncs/:syncId',
      permission: 'account.read',
      handle: (ctx) => fragmentOrNotFound(ctx, async () => {
        const account = ctx.params.bankAccountId ?? '';
        const id = ctx.params.syncId ?? '';
        if (!ID.test(id) || !ID.test(account)) return errorOutcome(ctx.t, 'notFound', 404);
        return { kind: 'fragment', body: await syncStatus(ctx, account, id) };
      }),
    },
  ],
};
