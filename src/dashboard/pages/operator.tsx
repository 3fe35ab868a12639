import { Fragment, type VNode } from 'preact';
import { isCalendarDate } from '../../domain/business-days.ts';
import {
  addHoliday,
  HOLIDAY_NAME_LENGTH_MAX,
  HOLIDAYS_REFRESH_MS,
  listHolidays,
  removeHoliday,
} from '../../areas/tax-invoices/index.ts';
import { ENVIRONMENTS, PLANS, type Plan } from '../../platform/accounts/keys.ts';
import { AccountNotFoundError, ACCOUNT_NAME_LENGTH_MAX } from
  '../../platform/accounts/service.ts';
import { readOutbox } from '../../platform/mail/outbox.ts';
import { MAIL_STATUSES, type MailStatus } from '../../platform/mail/tables.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, DashboardRoute, Outcome, PageContext } from '../context.ts';
import { formatDateTime, formatPoints } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { readInstanceHealth } from '../instance-health.ts';
import { recordAudit } from '../audit/store.ts';
import { clientAddress } from '../http.ts';
import { ChoiceFilter } from '../list-page.tsx';
import { errorOutcome } from './errors.tsx';

// The operator's pages at /dashboard/operator (docs/dashboard.md § The operator's pages), for
// users flagged operator only: the instance's health, accounts (create, plan, live point grants,
// a read-only look at one), the holiday table and the mail outbox. Each does what the CLI's
// command does, through the same platform service or area function (src/cli/admin.ts,
// holidays.ts, mail.ts), and every change is recorded in the audit log of the operator's own
// account, with the account or day it was done to as the target.

const ACCOUNTS_SHOWN = 100;
const OUTBOX_SHOWN = 50;
const NOTICES = ['operator.planChanged', 'operator.pointsGranted', 'operator.holidayAdded',
  'operator.holidayRemoved'] as const satisfies readonly MessageKey[];

const isPlan = (value: string | null): value is Plan =>
  (PLANS as readonly string[]).includes(value ?? '');

// A positive whole number of points, as `etax points grant --amount` takes it.
function parsePoints(raw: string | null): number | null {
  const text = (raw ?? '').replaceAll(',', '').trim();
  if (!/^[0-9]+$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

const accountPath = (accountId: string) => `/operator/accounts/${encodeURIComponent(accountId)}`;

function Health({ ctx, health }: { ctx: PageContext;
  health: Awaited<ReturnType<typeof readInstanceHealth>> }) {
  const { t } = ctx;
  return (
    <Section title={t('operator.health')} id="health">
      <dl class="facts">
        <dt>{t('operator.database')}</dt>
        <dd>{health.database.ok ? t('operator.ok')
          : <span class="break">{t('operator.down')}: {health.database.error}</span>}</dd>
        <dt>{t('operator.redis')}</dt>
        <dd>{t(`operator.redis.${health.rateLimits}`)}</dd>
        <dt>{t('operator.queues')}</dt>
        <dd>{health.queues === null ? t('operator.queuesUnknown') : (
          <ul class="plain-list">
            {health.queues.map((queue) => (
              <li key={queue.name}><code>{queue.name}</code> {queue.waiting}</li>
            ))}
          </ul>
        )}</dd>
        <dt>{t('operator.gateways')}</dt>
        <dd>{health.unconfigured.length === 0 ? t('operator.gatewaysAll') : (
          <>
            <p class="hint">{t('operator.gatewaysMissing')}</p>
            {health.unconfigured.map((setting) => <code key={setting} class="tag">{setting}</code>)}
          </>
        )}</dd>
      </dl>
    </Section>
  );
}

function OperatorLinks({ ctx }: { ctx: PageContext }) {
  const { t } = ctx;
  return (
    <p class="actions operator-links">
      <a href="/dashboard/operator">{t('operator.title')}</a>
      <a href="/dashboard/operator/holidays">{t('operator.holidays')}</a>
      <a href="/dashboard/operator/outbox">{t('operator.outbox')}</a>
    </p>
  );
}

async function homeBody(ctx: PageContext, problem?: MessageKey) {
  const { t } = ctx;
  const [health, accounts] = await Promise.all([readInstanceHealth(ctx.services),
    ctx.services.platform.accounts.listAccounts(ACCOUNTS_SHOWN)]);
  return (
    <>
      <OperatorLinks ctx={ctx} />
      {problem && <Notice kind="error">{t(problem)}</Notice>}
      <Health ctx={ctx} health={health} />
      <Section title={t('operator.accounts')} id="accounts">
        <CardTable head={<>
          <th>{t('operator.accountName')}</th><th>{t('operator.accountId')}</th>
          <th>{t('operator.plan')}</th><th>{t('operator.createdAt')}</th>
        </>}>
          {accounts.map((account) => (
            <tr key={account.accountId}>
              <td data-label={t('operator.accountName')}>
                <a href={`/dashboard${accountPath(account.accountId)}`} class="break">
                  {account.name}
                </a>
              </td>
              <td data-label={t('operator.accountId')}><code>{account.accountId}</code></td>
              <td data-label={t('operator.plan')}>{account.plan}</td>
              <td data-label={t('operator.createdAt')}>{formatDateTime(account.createdAt)}</td>
            </tr>
          ))}
        </CardTable>
      </Section>
      <Section title={t('operator.createAccount')} id="create">
        <PostForm ctx={ctx} action="/operator/accounts" class="stack">
          <label>{t('operator.accountName')}
            <input type="text" name="name" required maxLength={ACCOUNT_NAME_LENGTH_MAX} />
          </label>
          <PlanSelect ctx={ctx} current="STANDARD" />
          <button type="submit" class="primary">{t('operator.createAccount')}</button>
        </PostForm>
      </Section>
    </>
  );
}

function PlanSelect({ ctx, current }: { ctx: PageContext; current: string }) {
  return (
    <label>{ctx.t('operator.plan')}
      <select name="plan">
        {PLANS.map((plan) => <option key={plan} value={plan} selected={plan === current}>
          {plan}</option>)}
      </select>
    </label>
  );
}

async function accountBody(ctx: PageContext, accountId: string, problem?: MessageKey) {
  const { t } = ctx;
  const { platform } = ctx.services;
  const account = await platform.accounts.requireAccount(accountId);
  const environments = await Promise.all(ENVIRONMENTS.map(async (environment) => ({
    environment,
    balance: await platform.points.getBalance({ accountId, environment }),
    keys: await platform.accounts.listKeys({ accountId, environment }),
  })));
  const users = (await ctx.services.users.listUsers(accountId));
  return (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Notice kind="error">{t(problem)}</Notice>}
      <OperatorLinks ctx={ctx} />
      <Notice kind="info">{t('operator.readOnlyView')}</Notice>
      <Section title={t('operator.openReadOnly')} id="open">
        <p class="hint">{t('operator.openReadOnlyHint')}</p>
        <PostForm ctx={ctx} action={`${accountPath(account.id)}/view`}>
          <button type="submit" class="primary">{t('operator.openReadOnly')}</button>
        </PostForm>
      </Section>
      <Section title={account.name} id="account">
        <dl class="facts">
          <dt>{t('operator.accountId')}</dt><dd><code>{account.id}</code></dd>
          <dt>{t('operator.plan')}</dt><dd>{account.plan}</dd>
          <dt>{t('operator.createdAt')}</dt><dd>{formatDateTime(account.createdAt)}</dd>
          {environments.map(({ environment, balance }) => (<Fragment key={environment}>
            <dt>{t(`env.${environment}`)}</dt>
            <dd>{t('operator.balance', { available: formatPoints(balance.available),
              reserved: formatPoints(balance.reserved) })}</dd>
          </Fragment>))}
        </dl>
      </Section>
      <Section title={t('operator.changePlan')} id="plan">
        <PostForm ctx={ctx} action={`${accountPath(account.id)}/plan`} class="row">
          <PlanSelect ctx={ctx} current={account.plan} />
          <button type="submit" class="primary">{t('operator.changePlan')}</button>
        </PostForm>
      </Section>
      <Section title={t('operator.grant')} id="grant">
        <PostForm ctx={ctx} action={`${accountPath(account.id)}/grant`} class="row"
          confirm={t('operator.grantConfirm')}>
          <label>{t('operator.grantPoints')}
            <input type="text" name="points" required inputMode="numeric" maxLength={20} />
          </label>
          <button type="submit" class="primary">{t('operator.grant')}</button>
        </PostForm>
      </Section>
      <Section title={t('operator.keysAndUsers')} id="keys">
        <ul class="plain-list">
          {environments.flatMap(({ environment, keys }) => keys.map((key) => (
            <li key={key.id}><code>{key.redacted}</code> {key.label ?? ''}
              {key.revokedAt !== null && <> ({t('keys.revoked', {
                date: formatDateTime(key.revokedAt) })})</>}
              <span class="muted"> · {t(`env.${environment}`)}</span></li>
          )))}
          {users.map((user) => (
            <li key={user.userId}>{user.email} · {t(`role.${user.role}`)}</li>
          ))}
        </ul>
      </Section>
    </>
  );
}

async function holidaysBody(ctx: PageContext, problem?: MessageKey) {
  const { t } = ctx;
  const holidays = await listHolidays(ctx.services.platform.database.db);
  return (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {problem && <Notice kind="error">{t(problem)}</Notice>}
      <OperatorLinks ctx={ctx} />
      <p>{t('operator.holidaysLead', { seconds: HOLIDAYS_REFRESH_MS / 1000 })}</p>
      <Section title={t('operator.holidays')} id="holidays">
        {holidays.length === 0 ? <p>{t('operator.noHolidays')}</p> : (
          <ul class="plain-list">
            {holidays.map((holiday) => (
              <li key={holiday.date} class="row">
                <span>{holiday.date} <span class="break">{holiday.name}</span></span>
                <PostForm ctx={ctx} action={`/operator/holidays/${holiday.date}/remove`}>
                  <button type="submit" class="danger"
                    aria-label={`${t('operator.removeHoliday')} ${holiday.date}`}>
                    {t('operator.removeHoliday')}
                  </button>
                </PostForm>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title={t('operator.addHoliday')} id="add-holiday">
        <PostForm ctx={ctx} action="/operator/holidays" class="row">
          <label>{t('operator.holidayDate')}
            <input type="date" name="date" required />
          </label>
          <label>{t('operator.holidayName')}
            <input type="text" name="name" required maxLength={HOLIDAY_NAME_LENGTH_MAX} />
          </label>
          <button type="submit" class="primary">{t('operator.addHoliday')}</button>
        </PostForm>
      </Section>
    </>
  );
}

async function outboxBody(ctx: PageContext) {
  const { t } = ctx;
  const status = ctx.query.get('status');
  const statuses: MailStatus[] = MAIL_STATUSES.filter((known) => known === status);
  const mails = await readOutbox(ctx.services.platform.database.db,
    { limit: OUTBOX_SHOWN, statuses });
  return (
    <>
      <OperatorLinks ctx={ctx} />
      <form method="get" action="/dashboard/operator/outbox" class="row">
        <ChoiceFilter label={t('operator.mailStatus')} name="status" all={t('operator.mailAll')}
          options={MAIL_STATUSES} chosen={status} text={(known) => known} />
        <button type="submit" class="secondary">{t('operator.filter')}</button>
      </form>
      <Section title={t('operator.outbox')} id="outbox">
        {mails.length === 0 ? <p>{t('operator.outboxEmpty')}</p> : (
          <ul class="deliveries">
            {mails.map((mail) => (
              <li key={mail.id} class="delivery">
                <p><code>{mail.status}</code> · {mail.kind} · {formatDateTime(
                  new Date(mail.createdAt))}</p>
                <p class="break">{t('operator.mailTo')}: {mail.to}
                  {mail.cc.length > 0 && <> · Cc: {mail.cc.join(', ')}</>}</p>
                <p class="break"><strong>{mail.subject}</strong></p>
                {mail.lastError !== null && <p class="break muted">{mail.lastError}</p>}
                <details>
                  <summary>{t('operator.mailText')}</summary>
                  <pre class="body">{mail.text}</pre>
                </details>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}

const page = (body: Promise<VNode>, status?: number): Promise<Outcome> =>
  body.then((vnode) => ({ kind: 'page', title: 'operator.title', body: vnode, status }));

// An account by the id in the address: not found when there is none.
async function withAccount(ctx: PageContext, then: (accountId: string) => Promise<Outcome>) {
  const accountId = ctx.params.accountId ?? '';
  const exists = await ctx.services.platform.accounts.requireAccount(accountId)
    .then(() => true, (error: unknown) => {
      if (error instanceof AccountNotFoundError) return false;
      throw error;
    });
  return exists ? then(accountId) : errorOutcome(ctx.t, 'notFound', 404);
}

// Every operator route: for operators only, whatever their role; read with account.read.
const route = (method: 'GET' | 'POST', path: string,
  handle: DashboardRoute['handle']): DashboardRoute =>
  ({ method, path, permission: 'account.read', operator: true, handle });

// Opens an account's dashboard read-only in this session (the router then reads that account
// as its Viewer and refuses every change): audited in the operator's account and in the one
// looked at, whose Owner and Admins see it in their log.
async function openView(ctx: PageContext, accountId: string): Promise<Outcome> {
  await ctx.services.sessions.setViewing(ctx.session.sessionId, accountId);
  await ctx.audit('operator.accountViewed', accountId, null);
  await recordAudit(ctx.services.platform.database.db, { accountId,
    actor: { userId: ctx.session.user.userId, email: ctx.session.user.email },
    action: 'operator.accountViewed', target: accountId, address: clientAddress(ctx.request) });
  return { kind: 'redirect', to: '/dashboard' };
}

async function endView(ctx: PageContext): Promise<Outcome> {
  const { viewing } = ctx.session;
  if (viewing === null) return { kind: 'redirect', to: '/dashboard/operator' };
  await ctx.services.sessions.setViewing(ctx.session.sessionId, null);
  await ctx.audit('operator.accountViewEnded', viewing.accountId, null);
  return { kind: 'redirect', to: `/dashboard${accountPath(viewing.accountId)}` };
}

export const operatorPage: DashboardPage = {
  nav: { label: 'nav.operator', path: '/operator', section: 'operator',
    permission: 'account.read', operator: true },
  routes: [
    route('GET', '/operator', (ctx) => page(homeBody(ctx))),
    route('POST', '/operator/accounts', async (ctx) => {
      const name = (ctx.form.get('name') ?? '').trim();
      const plan = ctx.form.get('plan');
      if (name.length === 0 || name.length > ACCOUNT_NAME_LENGTH_MAX || !isPlan(plan)) {
        return page(homeBody(ctx, 'operator.accountInvalid'), 400);
      }
      const created = await ctx.services.platform.accounts.createAccount({ name, plan });
      await ctx.audit('operator.accountCreated', created.accountId, null);
      return { kind: 'redirect', to: `/dashboard${accountPath(created.accountId)}` };
    }),
    route('GET', '/operator/accounts/:accountId', (ctx) => withAccount(ctx, (accountId) =>
      page(accountBody(ctx, accountId)))),
    route('POST', '/operator/accounts/:accountId/plan', (ctx) => withAccount(ctx,
      async (accountId) => {
        const plan = ctx.form.get('plan');
        if (!isPlan(plan)) return page(accountBody(ctx, accountId, 'operator.planInvalid'), 400);
        await ctx.services.platform.accounts.changePlan(accountId, plan);
        await ctx.audit('operator.planChanged', accountId, null);
        return { kind: 'redirect',
          to: `/dashboard${accountPath(accountId)}?notice=operator.planChanged` };
      })),
    route('POST', '/operator/accounts/:accountId/grant', (ctx) => withAccount(ctx,
      async (accountId) => {
        const points = parsePoints(ctx.form.get('points'));
        if (points === null) {
          return page(accountBody(ctx, accountId, 'operator.pointsInvalid'), 400);
        }
        await ctx.services.platform.points.grant({ accountId, environment: 'live', points,
          memo: `dashboard grant by ${ctx.session.user.email}` });
        await ctx.audit('operator.pointsGranted', accountId, 'live');
        return { kind: 'redirect',
          to: `/dashboard${accountPath(accountId)}?notice=operator.pointsGranted` };
      })),
    { ...route('POST', '/operator/accounts/:accountId/view', (ctx) => withAccount(ctx,
      (accountId) => openView(ctx, accountId))), whileViewing: true },
    { ...route('POST', '/operator/view/end', endView), whileViewing: true },
    route('GET', '/operator/holidays', (ctx) => page(holidaysBody(ctx))),
    route('POST', '/operator/holidays', async (ctx) => {
      const date = ctx.form.get('date') ?? '';
      const name = (ctx.form.get('name') ?? '').trim();
      if (!isCalendarDate(date) || name.length === 0 || name.length > HOLIDAY_NAME_LENGTH_MAX) {
        return page(holidaysBody(ctx, 'operator.holidayInvalid'), 400);
      }
      await addHoliday(ctx.services.platform.database.db, { date, name });
      await ctx.audit('operator.holidayAdded', date, null);
      return { kind: 'redirect', to: '/dashboard/operator/holidays?notice=operator.holidayAdded' };
    }),
    route('POST', '/operator/holidays/:date/remove', async (ctx) => {
      const date = ctx.params.date ?? '';
      if (!isCalendarDate(date) ||
        !(await removeHoliday(ctx.services.platform.database.db, date))) {
        return errorOutcome(ctx.t, 'notFound', 404);
      }
      await ctx.audit('operator.holidayRemoved', date, null);
      return { kind: 'redirect',
        to: '/dashboard/operator/holidays?notice=operator.holidayRemoved' };
    }),
    route('GET', '/operator/outbox', (ctx) => page(outboxBody(ctx))),
  ],
};
