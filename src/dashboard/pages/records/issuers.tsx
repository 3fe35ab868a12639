import Value from 'typebox/value';
import { CreateIssuerBody, UpdateIssuerBody, type IssuersService } from
  '../../../areas/issuers/index.ts';
import { formatBusinessRegistrationNumber } from
  '../../../domain/business-registration-number.ts';
import { ApiError } from '../../../platform/errors.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../../context.ts';
import { formatDateTime, seoulDate } from '../../format.ts';
import type { MessageKey } from '../../i18n/index.ts';
import { expiryState } from '../business.tsx';
import { errorOutcome } from '../errors.tsx';
import { asApiError, rateLimitedPage } from './shared.tsx';
import { LiveConfirmation, liveConfirmed } from '../../confirmation.tsx';

// Issuers and their joint certificates (docs/dashboard.md § Issuers and certificates): the
// businesses that issue tax invoices in the session's environment, listed, created and edited
// with the issuers area's service (the same as POST, GET and PATCH /v1/issuers, the forms
// checked with the API's own schemas), each issuer's certificate registered on the hosted page
// through a one-time link made as GET /v1/issuers/{issuerId}/certificates/url makes it, its
// registration history (the latest record and the earlier ones) and a warning from 30 days
// before the certificate expires.

type Issuer = Awaited<ReturnType<IssuersService['getIssuer']>>;
type Certificate = Awaited<ReturnType<IssuersService['getCertificate']>>;

const PAGE_SIZE = 50;
const HISTORY_SHOWN = 20;
const DAY_MS = 86_400_000;
const ID = /^[A-Za-z0-9_-]{1,100}$/;
const MONTHS = Array.from({ length: 12 }, (_, index) => index + 1);

const SERVICE_ERRORS: Partial<Record<string, MessageKey>> = {
  INVALID_BUSINESS_REGISTRATION_NUMBER: 'issuers.error.number',
  ISSUER_ALREADY_REGISTERED: 'issuers.error.duplicate',
  // The only INVALID_REQUEST the service adds to the schema's: a fiscal year for an
  // individual's number.
  INVALID_REQUEST: 'issuers.error.fiscalYear',
  ISSUER_DEACTIVATED: 'issuers.deactivated',
};

const daysLeft = (notAfter: Date, now: Date) =>
  Math.ceil((notAfter.getTime() - now.getTime()) / DAY_MS);

function ExpiryBadge({ ctx, expiresAt }: { ctx: PageContext; expiresAt: string }) {
  const notAfter = new Date(expiresAt);
  const now = ctx.now();
  const state = expiryState(notAfter, now);
  if (state === 'valid') return null;
  return (
    <span class="state bad">
      {state === 'expired' ? ctx.t('issuers.expiredBadge')
        : ctx.t('issuers.expiringBadge', { days: daysLeft(notAfter, now) })}
    </span>
  );
}

// The form's text fields; an empty optional one is absent (create) or null (edit: cleared).
function fields(form: URLSearchParams, names: readonly string[], empty: 'absent' | 'null') {
  const body: Record<string, unknown> = {};
  for (const name of names) {
    const value = (form.get(name) ?? '').trim();
    if (value !== '') body[name] = value;
    else if (empty === 'null') body[name] = null;
  }
  return body;
}

function fiscalYear(form: URLSearchParams, empty: 'absent' | 'null') {
  const value = (form.get('fiscalYearEndMonth') ?? '').trim();
  if (value === '') return empty === 'null' ? { fiscalYearEndMonth: null } : {};
  return { fiscalYearEndMonth: /^[0-9]{1,2}$/.test(value) ? Number(value) : value };
}

const CONTACT = ['contactName', 'contactEmail', 'contactPhone'] as const;

function IssuerFields({ ctx, issuer, values, creating }: { ctx: PageContext;
  issuer?: Issuer; values?: URLSearchParams; creating: boolean }) {
  const { t } = ctx;
  const value = (name: string, fallback: string | null | undefined) =>
    values?.get(name) ?? fallback ?? '';
  const month = value('fiscalYearEndMonth', issuer?.fiscalYearEndMonth?.toString());
  return (
    <>
      {creating && <>
        <label>{t('issuers.number')} <span class="hint">{t('issuers.numberHint')}</span>
          <input type="text" name="identificationNumber" required maxLength={12}
            inputMode="numeric" value={value('identificationNumber', undefined)} />
        </label>
        <label>{t('issuers.subPlace')} <span class="hint">{t('issuers.subPlaceHint')}</span>
          <input type="text" name="taxRegistrationId" maxLength={4} inputMode="numeric"
            value={value('taxRegistrationId', undefined)} />
        </label>
      </>}
      <label>{t('issuers.name')}
        <input type="text" name="organizationName" required maxLength={100}
          value={value('organizationName', issuer?.organizationName)} />
      </label>
      <label>{t('issuers.representative')}
        <input type="text" name="representativeName" required maxLength={50}
          value={value('representativeName', issuer?.representativeName)} />
      </label>
      <label>{t('issuers.contactName')} <span class="hint">{t('issuers.optional')}</span>
        <input type="text" name="contactName" maxLength={50}
          value={value('contactName', issuer?.contactName)} />
      </label>
      <label>{t('issuers.contactEmail')} <span class="hint">{t('issuers.optional')}</span>
        <input type="email" name="contactEmail" maxLength={254}
          value={value('contactEmail', issuer?.contactEmail)} />
      </label>
      <label>{t('issuers.contactPhone')} <span class="hint">{t('issuers.optional')}</span>
        <input type="tel" name="contactPhone" maxLength={30}
          value={value('contactPhone', issuer?.contactPhone)} />
      </label>
      <label>{t('issuers.fiscalYearEnd')} <span class="hint">{t('issuers.fiscalYearEndHint')}</span>
        <select name="fiscalYearEndMonth">
          <option value="" selected={month === ''}>{t('issuers.calendarYear')}</option>
          {MONTHS.slice(0, 11).map((number) => (
            <option key={number} value={String(number)} selected={month === String(number)}>
              {t('issuers.month', { month: number })}
            </option>
          ))}
        </select>
      </label>
      <LiveConfirmation ctx={ctx} />
    </>
  );
}

type Listed = Awaited<ReturnType<IssuersService['listIssuers']>>['issuers'];

function IssuersTable({ ctx, issuers }: { ctx: PageContext; issuers: Listed }) {
  const { t } = ctx;
  return (
    <CardTable head={<>
      <th>{t('issuers.name')}</th><th>{t('issuers.number')}</th>
      <th>{t('issuers.representative')}</th><th>{t('issuers.active')}</th>
      <th>{t('issuers.certificate')}</th>
    </>}>
      {issuers.map((issuer) => (
        <tr key={issuer.issuerId}>
          <td data-label={t('issuers.name')} class="break">
            <a href={`/dashboard/issuers/${issuer.issuerId}`}>
              {issuer.organizationName}
            </a>
          </td>
          <td data-label={t('issuers.number')} class="nowrap">
            {formatBusinessRegistrationNumber(issuer.identificationNumber)}
            {issuer.taxRegistrationId !== null && <> ({issuer.taxRegistrationId})</>}
          </td>
          <td data-label={t('issuers.representative')} class="break">
            {issuer.representativeName}
          </td>
          <td data-label={t('issuers.active')}>
            {t(issuer.active ? 'issuers.activeYes' : 'issuers.activeNo')}
          </td>
          <td data-label={t('issuers.certificate')}>
            {issuer.certificate === null ? t('issuers.noCertificate') : <>
              {t('issuers.certificateUntil',
                { date: seoulDate(new Date(issuer.certificate.expiresAt)) })}{' '}
              <ExpiryBadge ctx={ctx} expiresAt={issuer.certificate.expiresAt} />
            </>}
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

async function listBody(ctx: PageContext, problem?: { key: MessageKey;
  values: URLSearchParams }) {
  const { t } = ctx;
  const cursorParam = ctx.query.get('cursor') ?? undefined;
  let listed: Awaited<ReturnType<IssuersService['listIssuers']>>;
  try {
    listed = await ctx.services.areas.issuers.listIssuers({ scope: ctx.scope, limit: PAGE_SIZE,
      cursor: cursorParam });
  } catch (error) {
    // A cursor this list did not make starts the list from the beginning.
    if (asApiError(error).code !== 'INVALID_REQUEST') throw error;
    listed = await ctx.services.areas.issuers.listIssuers({ scope: ctx.scope,
      limit: PAGE_SIZE });
  }
  const now = ctx.now();
  const expiring = listed.issuers.filter((issuer) => issuer.active &&
    issuer.certificate !== null &&
    expiryState(new Date(issuer.certificate.expiresAt), now) !== 'valid');
  const manage = ctx.may('issuers.manage');
  return (
    <>
      {problem && <Notice kind="error">{t(problem.key)}</Notice>}
      {expiring.length > 0 && (
        <Notice kind="error">{t('issuers.expiringList',
          { names: expiring.map((issuer) => issuer.organizationName).join(', ') })}</Notice>
      )}
      <p>{t('issuers.lead', { environment: t(`env.${ctx.scope.environment}`) })}</p>
      <Section title={t('issuers.list')} id="issuers">
        {listed.issuers.length === 0 ? <p>{t('issuers.none')}</p>
          : <IssuersTable ctx={ctx} issuers={listed.issuers} />}
        {listed.nextCursor !== null && (
          <p><a href={`/dashboard/issuers?cursor=${encodeURIComponent(listed.nextCursor)}`}>
            {t('issuers.next')}</a></p>
        )}
      </Section>
      <Section title={t('issuers.add')} id="add">
        {manage ? (
          <PostForm ctx={ctx} action="/issuers" class="stack" once>
            <IssuerFields ctx={ctx} values={problem?.values} creating />
            <button type="submit" class="primary">{t('issuers.create')}</button>
          </PostForm>
        ) : <p class="muted">{t('issuers.readOnly')}</p>}
      </Section>
    </>
  );
}

const listPage = async (ctx: PageContext, problem?: { key: MessageKey;
  values: URLSearchParams }, status?: number): Promise<Outcome> =>
  ({ kind: 'page', title: 'issuers.title', status, body: await listBody(ctx, problem) });

async function certificateOf(ctx: PageContext, issuer: Issuer): Promise<Certificate | null> {
  if (issuer.certificate === null) return null;
  try {
    return await ctx.services.areas.issuers.getCertificate({ scope: ctx.scope,
      issuerId: issuer.issuerId });
  } catch (error) {
    if (asApiError(error).code === 'NOT_FOUND') return null;
    throw error;
  }
}

function CertificateFacts({ ctx, certificate }: { ctx: PageContext;
  certificate: Certificate | null }) {
  const { t } = ctx;
  if (certificate === null) return <Notice kind="info">{t('issuers.noCertificate')}</Notice>;
  const notAfter = new Date(certificate.notAfter);
  const now = ctx.now();
  const state = expiryState(notAfter, now);
  return (
    <>
      {state === 'expired' && <Notice kind="error">{t('issuers.expired')}</Notice>}
      {state === 'expiring' && (
        <Notice kind="error">{t('issuers.expiring', { days: daysLeft(notAfter, now) })}</Notice>
      )}
      <dl class="facts">
        <dt>{t('issuers.subject')}</dt><dd class="break">{certificate.subject}</dd>
        <dt>{t('issuers.issuerName')}</dt><dd class="break">{certificate.issuerName}</dd>
        <dt>{t('issuers.validity')}</dt>
        <dd>{formatDateTime(new Date(certificate.notBefore))} – {formatDateTime(notAfter)}</dd>
        <dt>{t('issuers.registeredAt')}</dt>
        <dd>{formatDateTime(new Date(certificate.registeredAt))}</dd>
      </dl>
    </>
  );
}

async function History({ ctx, issuer }: { ctx: PageContext; issuer: Issuer }) {
  const { t } = ctx;
  const records = await ctx.services.areas.issuers.listHistory({ scope: ctx.scope,
    issuerId: issuer.issuerId, limit: HISTORY_SHOWN });
  if (records.length === 0) return <p>{t('issuers.noHistory')}</p>;
  return (
    <CardTable head={<>
      <th>{t('issuers.historyAt')}</th><th>{t('issuers.historyCode')}</th>
      <th>{t('issuers.historyMessage')}</th>
    </>}>
      {records.map((record, index) => (
        <tr key={record.identifier}>
          <td data-label={t('issuers.historyAt')}>
            {formatDateTime(new Date(record.occurredAt))}
            {index === 0 && <> <strong>{t('issuers.latest')}</strong></>}
          </td>
          <td data-label={t('issuers.historyCode')}><code>{record.code}</code></td>
          <td data-label={t('issuers.historyMessage')} class="break">{record.message}</td>
        </tr>
      ))}
    </CardTable>
  );
}

// The issuer of the route's id in this scope, or null (another account's, another
// environment's or none: all 404).
async function ownIssuer(ctx: PageContext): Promise<Issuer | null> {
  const issuerId = ctx.params.issuerId ?? '';
  if (!ID.test(issuerId)) return null;
  try {
    return await ctx.services.areas.issuers.getIssuer({ scope: ctx.scope, issuerId });
  } catch (error) {
    if (asApiError(error).code === 'NOT_FOUND') return null;
    throw error;
  }
}

async function detailBody(ctx: PageContext, issuer: Issuer, problem?: { key: MessageKey;
  values: URLSearchParams }) {
  const { t } = ctx;
  const manage = ctx.may('issuers.manage') && issuer.active;
  return (
    <>
      <RedirectNotice ctx={ctx} known={['issuers.created', 'issuers.saved']} />
      {problem && <Notice kind="error">{t(problem.key)}</Notice>}
      {!issuer.active && <Notice kind="info">{t('issuers.deactivated')}</Notice>}
      <p><a href="/dashboard/issuers">{t('issuers.list')}</a></p>
      <Section title={issuer.organizationName} id="issuer">
        <dl class="facts">
          <dt>{t('issuers.number')}</dt>
          <dd>{formatBusinessRegistrationNumber(issuer.identificationNumber)}</dd>
          {issuer.taxRegistrationId !== null && <>
            <dt>{t('issuers.subPlace')}</dt><dd>{issuer.taxRegistrationId}</dd>
          </>}
          <dt>{t('issuers.representative')}</dt><dd class="break">{issuer.representativeName}</dd>
          <dt>{t('issuers.active')}</dt>
          <dd>{t(issuer.active ? 'issuers.activeYes' : 'issuers.activeNo')}</dd>
        </dl>
      </Section>
      <Section title={t('issuers.certificate')} id="certificate">
        <CertificateFacts ctx={ctx} certificate={await certificateOf(ctx, issuer)} />
        {manage && (
          <PostForm ctx={ctx} action={`/issuers/${issuer.issuerId}/certificate-link`}
            class="actions">
            <button type="submit" class="primary">{t('issuers.register')}</button>
            <span class="hint">{t('issuers.registerHint')}</span>
          </PostForm>
        )}
      </Section>
      <Section title={t('issuers.history')} id="history">
        {await History({ ctx, issuer })}
      </Section>
      {manage && (
        <Section title={t('issuers.edit')} id="edit">
          <PostForm ctx={ctx} action={`/issuers/${issuer.issuerId}`} class="stack">
            <IssuerFields ctx={ctx} issuer={issuer} values={problem?.values} creating={false} />
            <button type="submit" class="primary">{t('issuers.save')}</button>
          </PostForm>
        </Section>
      )}
    </>
  );
}

const detailPage = async (ctx: PageContext, issuer: Issuer, problem?: { key: MessageKey;
  values: URLSearchParams }, status?: number): Promise<Outcome> =>
  ({ kind: 'page', title: 'issuers.title', status,
    body: await detailBody(ctx, issuer, problem) });

// A refusal of the issuers service the form can explain, else rethrown.
function serviceProblem(error: unknown): { key: MessageKey; status: number } {
  const problem = asApiError(error);
  const key = SERVICE_ERRORS[problem.code];
  if (key === undefined) throw problem;
  return { key, status: problem.status };
}

const rateLimited = (ctx: PageContext, operation: 'issuers.create' | 'issuers.update') =>
  rateLimitedPage(ctx, operation, 'issuers.title');

export const issuersPage: DashboardPage = {
  nav: { label: 'nav.issuers', path: '/issuers', section: 'records',
    permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/issuers', permission: 'account.read', handle: (ctx) => listPage(ctx) },
    {
      method: 'POST', path: '/issuers', permission: 'issuers.manage',
      async handle(ctx) {
        const body: Record<string, unknown> = { ...fields(ctx.form, ['identificationNumber',
          'organizationName', 'representativeName', 'taxRegistrationId', ...CONTACT], 'absent'),
        ...fiscalYear(ctx.form, 'absent') };
        if (!Value.Check(CreateIssuerBody, body)) {
          const numberShaped = /^[0-9-]{10,12}$/.test(String(body.identificationNumber ?? ''));
          return listPage(ctx, { key: numberShaped ? 'issuers.error.invalid'
            : 'issuers.error.number', values: ctx.form }, 400);
        }
        if (!liveConfirmed(ctx)) {
          return listPage(ctx, { key: 'confirm.liveMissing', values: ctx.form }, 400);
        }
        const limited = await rateLimited(ctx, 'issuers.create');
        if (limited !== null) return limited;
        try {
          const issuer = await ctx.services.areas.issuers.createIssuer({ scope: ctx.scope,
            issuer: body });
          await ctx.audit('issuer.created', issuer.issuerId, ctx.scope.environment);
          return { kind: 'redirect',
            to: `/dashboard/issuers/${issuer.issuerId}?notice=issuers.created` };
        } catch (error) {
          const { key, status } = serviceProblem(error);
          return listPage(ctx, { key, values: ctx.form }, status);
        }
      },
    },
    {
      method: 'GET', path: '/issuers/:issuerId', permission: 'account.read',
      async handle(ctx) {
        const issuer = await ownIssuer(ctx);
        return issuer === null ? errorOutcome(ctx.t, 'notFound', 404) : detailPage(ctx, issuer);
      },
    },
    {
      method: 'POST', path: '/issuers/:issuerId', permission: 'issuers.manage',
      async handle(ctx) {
        const issuer = await ownIssuer(ctx);
        if (issuer === null) return errorOutcome(ctx.t, 'notFound', 404);
        const changes = { ...fields(ctx.form, ['organizationName', 'representativeName'],
          'absent'), ...fields(ctx.form, CONTACT, 'null'), ...fiscalYear(ctx.form, 'null') };
        if (!Value.Check(UpdateIssuerBody, changes)) {
          return detailPage(ctx, issuer, { key: 'issuers.error.invalid', values: ctx.form }, 400);
        }
        if (!liveConfirmed(ctx)) {
          return detailPage(ctx, issuer, { key: 'confirm.liveMissing',
            values: ctx.form }, 400);
        }
        const limited = await rateLimited(ctx, 'issuers.update');
        if (limited !== null) return limited;
        try {
          await ctx.services.areas.issuers.updateIssuer({ scope: ctx.scope,
            issuerId: issuer.issuerId, changes });
        } catch (error) {
          if (error instanceof ApiError && error.code === 'NOT_FOUND') {
            return errorOutcome(ctx.t, 'notFound', 404);
          }
          const { key, status } = serviceProblem(error);
          return detailPage(ctx, issuer, { key, values: ctx.form }, status);
        }
        await ctx.audit('issuer.updated', issuer.issuerId, ctx.scope.environment);
        return { kind: 'redirect',
          to: `/dashboard/issuers/${issuer.issuerId}?notice=issuers.saved` };
      },
    },
    {
      // The hosted page's one-time link, shown on the answer to this POST (never stored or put
      // in an address of the dashboard): it is the credential of the page.
      method: 'POST', path: '/issuers/:issuerId/certificate-link', permission: 'issuers.manage',
      async handle(ctx) {
        const issuer = await ownIssuer(ctx);
        if (issuer === null) return errorOutcome(ctx.t, 'notFound', 404);
        let link: { url: string; expiresAt: string };
        try {
          link = await ctx.services.areas.issuers.createRegistrationUrl({ scope: ctx.scope,
            issuerId: issuer.issuerId, apiKeyId: null });
        } catch (error) {
          const { key, status } = serviceProblem(error);
          return detailPage(ctx, issuer, { key, values: new URLSearchParams() }, status);
        }
        await ctx.audit('issuer.certificateLinkCreated', issuer.issuerId, ctx.scope.environment);
        const { t } = ctx;
        return { kind: 'page', title: 'issuers.title', body: (
          <Section title={t('issuers.register')} id="link">
            <p>{t('issuers.linkLead', { name: issuer.organizationName,
              until: formatDateTime(new Date(link.expiresAt)) })}</p>
            <p class="actions">
              <a class="button primary" href={link.url} id="registration-link">
                {t('issuers.openPage')}
              </a>
              <a href={`/dashboard/issuers/${issuer.issuerId}`}>{t('issuers.back')}</a>
            </p>
          </Section>
        ) };
      },
    },
  ],
};
