import Value from 'typebox/value';
import { OwnerBusinessInput, type OwnerBusinesses } from '../../areas/documents/index.ts';
import type { IssuersService } from '../../areas/issuers/index.ts';
import { ApiError, isApiError } from '../../platform/errors.ts';
import { CardTable, Notice, PostForm, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';

// The owner business of the session's account and environment and its joint certificate
// (docs/dashboard.md § The owner business and its certificate). Tax-authority documents are issued
// only for the owner business, and only while its issuer's certificate is registered and valid
// (docs/documents.md § The owner business), so this page is where that certificate is "registered
// in the dashboard": the business is set by the documents area's owner-business service (as PUT
// /v1/account/business and `etax account-business set`), and the certificate is registered on the
// issuers area's hosted page, whose one-time link the page makes with the same service as GET
// /v1/issuers/{issuerId}/certificates/url.

type Business = Awaited<ReturnType<OwnerBusinesses['get']>>;
type Certificate = Awaited<ReturnType<IssuersService['getCertificate']>>;

// A certificate is flagged this long before it expires: time to renew it with the CA.
const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 86_400_000;
// Registration records shown: the latest and those before it.
const HISTORY_SHOWN = 20;

const SAVE_ERRORS: Partial<Record<string, MessageKey>> = {
  INVALID_REQUEST: 'business.error.number',
  INVALID_BUSINESS_REGISTRATION_NUMBER: 'business.error.number',
};

async function ownerBusiness(ctx: PageContext): Promise<Business | null> {
  try {
    return await ctx.services.areas.owners.get({ scope: ctx.scope });
  } catch (error) {
    if (isApiError(error) && error.code === 'OWNER_BUSINESS_NOT_REGISTERED') return null;
    throw error;
  }
}

async function certificateOf(ctx: PageContext, business: Business): Promise<Certificate | null> {
  if (business.certificate === null) return null;
  try {
    return await ctx.services.areas.issuers.getCertificate({ scope: ctx.scope,
      issuerId: business.issuerId });
  } catch (error) {
    if (isApiError(error) && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

// Whether the certificate has expired, expires within the warning window, or neither.
export function expiryState(notAfter: Date, now: Date): 'expired' | 'expiring' | 'valid' {
  const left = notAfter.getTime() - now.getTime();
  if (left <= 0) return 'expired';
  return left <= EXPIRY_WARNING_DAYS * DAY_MS ? 'expiring' : 'valid';
}

function BusinessForm({ ctx, business, values }: { ctx: PageContext; business: Business | null;
  values?: URLSearchParams }) {
  const { t } = ctx;
  const value = (name: string, fallback: string | undefined) => values?.get(name) ?? fallback;
  return (
    <PostForm ctx={ctx} action="/business" class="stack">
      <label>{t('business.number')} <span class="hint">{t('business.numberHint')}</span>
        <input type="text" name="businessNumber" required maxLength={12} inputMode="numeric"
          value={value('businessNumber', business?.businessNumber)} />
      </label>
      <label>{t('business.name')}
        <input type="text" name="name" required maxLength={100}
          value={value('name', business?.name)} />
      </label>
      <label>{t('business.representative')}
        <input type="text" name="representativeName" required maxLength={50}
          value={value('representativeName', business?.representativeName)} />
      </label>
      <button type="submit" class="primary">{t('business.save')}</button>
    </PostForm>
  );
}

function CertificateFacts({ ctx, certificate }: { ctx: PageContext;
  certificate: Certificate | null }) {
  const { t } = ctx;
  if (certificate === null) {
    return <Notice kind="error">{t('business.noCertificate')}</Notice>;
  }
  const notAfter = new Date(certificate.notAfter);
  const now = ctx.now();
  const state = expiryState(notAfter, now);
  const days = Math.ceil((notAfter.getTime() - now.getTime()) / DAY_MS);
  return (
    <>
      {state === 'expired' && <Notice kind="error">{t('business.expired')}</Notice>}
      {state === 'expiring' && (
        <Notice kind="error">{t('business.expiring', { days })}</Notice>
      )}
      <dl class="facts">
        <dt>{t('business.subject')}</dt><dd class="break">{certificate.subject}</dd>
        <dt>{t('business.issuerName')}</dt><dd class="break">{certificate.issuerName}</dd>
        <dt>{t('business.validity')}</dt>
        <dd>{formatDateTime(new Date(certificate.notBefore))} – {formatDateTime(notAfter)}</dd>
        <dt>{t('business.registeredAt')}</dt>
        <dd>{formatDateTime(new Date(certificate.registeredAt))}</dd>
      </dl>
    </>
  );
}

async function History({ ctx, business }: { ctx: PageContext; business: Business }) {
  const { t } = ctx;
  const records = await ctx.services.areas.issuers.listHistory({ scope: ctx.scope,
    issuerId: business.issuerId, limit: HISTORY_SHOWN });
  if (records.length === 0) return <p>{t('business.noHistory')}</p>;
  return (
    <CardTable head={<>
      <th>{t('business.historyAt')}</th><th>{t('business.historyCode')}</th>
      <th>{t('business.historyMessage')}</th>
    </>}>
      {records.map((record, index) => (
        <tr key={record.identifier}>
          <td data-label={t('business.historyAt')}>
            {formatDateTime(new Date(record.occurredAt))}
            {index === 0 && <> <strong>{t('business.latest')}</strong></>}
          </td>
          <td data-label={t('business.historyCode')}><code>{record.code}</code></td>
          <td data-label={t('business.historyMessage')} class="break">{record.message}</td>
        </tr>
      ))}
    </CardTable>
  );
}

async function businessBody(ctx: PageContext, problem?: { key: MessageKey;
  values: URLSearchParams }) {
  const { t } = ctx;
  const business = await ownerBusiness(ctx);
  const manage = ctx.may('business.manage');
  const environment = t(`env.${ctx.scope.environment}`);
  const saved = ctx.query.get('notice') === 'saved';
  return (
    <>
      {saved && <Notice kind="success">{t('business.saved')}</Notice>}
      {problem && <Notice kind="error">{t(problem.key)}</Notice>}
      <p>{t('business.lead', { environment })}</p>
      <Section title={t('business.business')} id="business">
        {business === null ? <p>{t('business.none')}</p> : (
          <dl class="facts">
            <dt>{t('business.name')}</dt><dd class="break">{business.name}</dd>
            <dt>{t('business.number')}</dt><dd>{business.businessNumber}</dd>
            <dt>{t('business.representative')}</dt>
            <dd class="break">{business.representativeName}</dd>
          </dl>
        )}
        {manage ? <BusinessForm ctx={ctx} business={business} values={problem?.values} />
          : <p class="muted">{t('business.readOnly')}</p>}
      </Section>
      {business !== null && <>
        <Section title={t('business.certificate')} id="certificate">
          <CertificateFacts ctx={ctx} certificate={await certificateOf(ctx, business)} />
          {manage && (
            <PostForm ctx={ctx} action="/business/certificate-link" class="actions">
              <button type="submit" class="primary">{t('business.register')}</button>
              <span class="hint">{t('business.registerHint')}</span>
            </PostForm>
          )}
        </Section>
        <Section title={t('business.history')} id="history">
          {await History({ ctx, business })}
        </Section>
      </>}
    </>
  );
}

const page = async (ctx: PageContext, problem?: { key: MessageKey; values: URLSearchParams },
  status?: number): Promise<Outcome> =>
  ({ kind: 'page', title: 'business.title', status, body: await businessBody(ctx, problem) });

export const businessPage: DashboardPage = {
  nav: { label: 'nav.business', path: '/business', section: 'account',
    permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/business', permission: 'account.read', handle: (ctx) => page(ctx) },
    {
      method: 'POST', path: '/business', permission: 'business.manage',
      async handle(ctx) {
        const input = { businessNumber: (ctx.form.get('businessNumber') ?? '').trim(),
          name: (ctx.form.get('name') ?? '').trim(),
          representativeName: (ctx.form.get('representativeName') ?? '').trim() };
        const numberShaped = /^[0-9-]{10,12}$/.test(input.businessNumber);
        if (!Value.Check(OwnerBusinessInput, input)) {
          const key = numberShaped ? 'business.error.invalid' : 'business.error.number';
          return page(ctx, { key, values: ctx.form }, 400);
        }
        try {
          const business = await ctx.services.areas.owners.save({ scope: ctx.scope,
            business: input });
          await ctx.audit('business.saved', business.issuerId, ctx.scope.environment);
        } catch (error) {
          const key = error instanceof ApiError ? SAVE_ERRORS[error.code] : undefined;
          if (key === undefined) throw error;
          return page(ctx, { key, values: ctx.form }, 400);
        }
        return { kind: 'redirect', to: '/dashboard/business?notice=saved' };
      },
    },
    {
      // The hosted page's one-time link, shown on the answer to this POST (never stored or put
      // in an address of the dashboard): it is the credential of the page.
      method: 'POST', path: '/business/certificate-link', permission: 'business.manage',
      async handle(ctx) {
        const business = await ownerBusiness(ctx);
        if (business === null) {
          return page(ctx, { key: 'business.none', values: new URLSearchParams() }, 409);
        }
        const link = await ctx.services.areas.issuers.createRegistrationUrl({ scope: ctx.scope,
          issuerId: business.issuerId, apiKeyId: null });
        await ctx.audit('business.certificateLinkCreated', business.issuerId,
          ctx.scope.environment);
        const { t } = ctx;
        return { kind: 'page', title: 'business.title', body: (
          <Section title={t('business.register')} id="link">
            <p>{t('business.linkLead', { name: business.name,
              until: formatDateTime(new Date(link.expiresAt)) })}</p>
            <p class="actions">
              <a class="button primary" href={link.url} id="registration-link">
                {t('business.openPage')}
              </a>
              <a href="/dashboard/business">{t('business.back')}</a>
            </p>
          </Section>
        ) };
      },
    },
  ],
};
