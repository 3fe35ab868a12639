import { Fragment } from 'preact';
import Value from 'typebox/value';
import {
  documentOptionsOf,
  documentPriceRow,
  DOCUMENT_STATUSES,
  DOCUMENT_TYPES,
  DocumentRequestInput,
  INCOME_CERTIFICATE_KINDS,
  REGISTRY_TYPES,
  TAX_PAYMENT_PURPOSES,
  type DocumentType,
  type DocumentView,
} from '../../areas/documents/index.ts';
import type { ApiError } from '../../platform/errors.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../context.ts';
import { formatDateTime, formatPoints } from '../format.ts';
import type { MessageKey } from '../i18n/index.ts';
import { LiveConfirmation } from '../confirmation.tsx';
import {
  actingRefusal,
  attempt,
  dashboardCaller,
  readReferenceId,
  ReferenceIdField,
  Refusal,
  refused,
} from './acting.tsx';
import {
  ChoiceFilter, FilterForm, filterQuery, isCursor, listAnswer, NextPage, readFilters,
} from '../list-page.tsx';

// Documents (docs/dashboard.md § Documents): tax-authority certificates of the owner business and
// corporate registry copies, requested with the options each type takes and its price shown
// first, listed with their status, and the original PDF downloaded once issued. Every call is
// the documents area's service, the one behind /v1/documents.

const PAGE_SIZE = 50;
const KEY = /^[A-Za-z0-9_-]{1,100}$/;
const NOTICES = ['documents.requested'] as const satisfies readonly MessageKey[];

type Status = (typeof DOCUMENT_STATUSES)[number];
type OptionName = ReturnType<typeof documentOptionsOf>['allowed'][number];

const isType = (value: string): value is DocumentType =>
  (DOCUMENT_TYPES as readonly string[]).includes(value);
const isStatus = (value: string): value is Status =>
  (DOCUMENT_STATUSES as readonly string[]).includes(value);
const isRegistry = (type: DocumentType) => (REGISTRY_TYPES as readonly string[]).includes(type);

const OPTION_NAMES = new Set<string>(DOCUMENT_TYPES.flatMap((type) =>
  documentOptionsOf(type).allowed));
const isOptionName = (name: string): name is OptionName => OPTION_NAMES.has(name);

const priceOf = (ctx: PageContext, type: DocumentType) =>
  ctx.services.platform.prices[documentPriceRow(type)];

const documentPath = (issuanceKey: string) => `/dashboard/documents/${issuanceKey}`;

type Filters = { status?: Status; type?: DocumentType; cursor?: string };

const FILTER_RULES = { status: isStatus, type: isType, cursor: isCursor };
const readDocumentFilters = (query: URLSearchParams) =>
  readFilters(query, FILTER_RULES) as Filters | null;
const pageHref = (filters: Filters, next: string | null) => (next === null ? null
  : `/dashboard/documents?${filterQuery({ status: filters.status, type: filters.type,
    cursor: next })}`);

function StatusBadge({ ctx, status }: { ctx: PageContext; status: Status }) {
  return <span class={`badge status-${status.toLowerCase()}`}>
    {ctx.t(`documents.status.${status}`)}
  </span>;
}

function DocumentTable({ ctx, documents, next, filters }: { ctx: PageContext;
  documents: DocumentView[]; next: string | null; filters: Filters }) {
  const { t } = ctx;
  return (
    <div id="documents">
      {documents.length === 0 ? <p class="muted">{t('documents.none')}</p> : (
        <CardTable head={<>
          <th>{t('documents.acceptedAt')}</th><th>{t('documents.type')}</th>
          <th>{t('documents.status')}</th><th class="num">{t('documents.price')}</th>
          <th>{t('documents.pdf')}</th>
        </>}>
          {documents.map((document) => (
            <tr key={document.issuanceKey}>
              <td data-label={t('documents.acceptedAt')}>
                <a href={documentPath(document.issuanceKey)}>
                  {formatDateTime(new Date(document.acceptedAt))}
                </a>
              </td>
              <td data-label={t('documents.type')}>{t(`documents.type.${document.type}`)}</td>
              <td data-label={t('documents.status')}>
                <StatusBadge ctx={ctx} status={document.status} />
              </td>
              <td data-label={t('documents.price')} class="num">
                {formatPoints(document.points)}
              </td>
              <td data-label={t('documents.pdf')}>
                {document.status === 'ISSUED' ? (
                  <a href={`${documentPath(document.issuanceKey)}/pdf`} download>
                    {t('documents.download')}
                  </a>
                ) : '—'}
              </td>
            </tr>
          ))}
        </CardTable>
      )}
      <NextPage href={pageHref(filters, next)} label={t('documents.more')} />
    </div>
  );
}

function TypeChoices({ ctx }: { ctx: PageContext }) {
  const { t } = ctx;
  return (
    <CardTable head={<>
      <th>{t('documents.type')}</th><th class="num">{t('documents.price')}</th><th></th>
    </>}>
      {DOCUMENT_TYPES.map((type) => (
        <tr key={type}>
          <td data-label={t('documents.type')}>{t(`documents.type.${type}`)}</td>
          <td data-label={t('documents.price')} class="num">
            {formatPoints(priceOf(ctx, type))}
          </td>
          <td data-label="">
            <a href={`/dashboard/documents/new?type=${type}`}>{t('documents.requestThis')}</a>
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

async function listOutcome(ctx: PageContext): Promise<Outcome> {
  const { t } = ctx;
  const filters = readDocumentFilters(ctx.query);
  const invalid = (): Outcome => ({ kind: 'page', title: 'documents.title', status: 400,
    body: <Notice kind="error">{t('documents.filterInvalid')}</Notice> });
  if (filters === null) return invalid();
  const page = await attempt(() => ctx.services.areas.documents.list({ scope: ctx.scope,
    limit: PAGE_SIZE, cursor: filters.cursor, status: filters.status, type: filters.type }));
  if (refused(page)) return invalid();
  const table = <DocumentTable ctx={ctx} documents={page.documents} next={page.nextCursor}
    filters={filters} />;
  return listAnswer(ctx, table, () => ({ kind: 'page', title: 'documents.title', body: (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      {ctx.may('documents.issue') && (
        <Section title={t('documents.request')} id="request">
          <p>{t('documents.requestLead')}</p>
          <TypeChoices ctx={ctx} />
        </Section>
      )}
      <Section title={t('documents.list')} id="list">
        <FilterForm path="/documents" target="documents">
          <ChoiceFilter label={t('documents.type')} name="type" all={t('documents.filterAll')}
            options={DOCUMENT_TYPES} chosen={filters.type}
            text={(type) => t(`documents.type.${type}`)} />
          <ChoiceFilter label={t('documents.status')} name="status"
            all={t('documents.filterAll')} options={DOCUMENT_STATUSES} chosen={filters.status}
            text={(status) => t(`documents.status.${status}`)} />
          <button type="submit" class="secondary">{t('documents.apply')}</button>
        </FilterForm>
        {table}
      </Section>
    </>
  ) }));
}

// The options chosen from a list, the default first.
const CHOICES: Record<'showAddress' | 'showResidentNumber' | 'language' | 'registryScope' |
  'registryEntries', ReadonlyArray<{ value: string; text: MessageKey }>> = {
  showAddress: [{ value: 'true', text: 'documents.yes' }, { value: 'false', text: 'documents.no' }],
  showResidentNumber: [{ value: 'false', text: 'documents.no' },
    { value: 'true', text: 'documents.yes' }],
  language: [{ value: 'KO', text: 'documents.language.KO' },
    { value: 'EN', text: 'documents.language.EN' }],
  registryScope: [{ value: 'ALL', text: 'documents.scope.ALL' },
    { value: 'PART', text: 'documents.scope.PART' }],
  registryEntries: [{ value: 'CURRENT', text: 'documents.entries.CURRENT' },
    { value: 'INCLUDING_STRUCK_OUT', text: 'documents.entries.INCLUDING_STRUCK_OUT' }],
};

// The case a 납세증명서 is submitted for, from the law's list (docs/documents.md).
function SubmissionPurposeField({ ctx, label, value }: { ctx: PageContext; label: string;
  value: string }) {
  const { t } = ctx;
  return (
    <label>{label}
      <select name="submissionPurpose">
        <option value="" selected={value === ''}>{t('documents.submissionPurpose.none')}</option>
        {Object.keys(TAX_PAYMENT_PURPOSES).map((purpose) => (
          <option key={purpose} value={purpose} selected={value === purpose}>
            {t(`documents.submissionPurpose.${purpose as keyof typeof TAX_PAYMENT_PURPOSES}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

// The payer of a 대금수령 certificate: two fields of one option, nested by requestBodyOf.
function PayerField({ ctx, label, values }: { ctx: PageContext; label: string;
  values?: URLSearchParams | undefined }) {
  const { t } = ctx;
  return (
    <fieldset>
      <legend>{label}</legend>
      <label>{t('documents.payer.name')}
        <input type="text" name="payer.name" maxLength={100}
          value={values?.get('payer.name') ?? ''} />
      </label>
      <label>{t('documents.payer.businessRegistrationNumber')}
        <input type="text" name="payer.businessRegistrationNumber" maxLength={12}
          inputMode="numeric" value={values?.get('payer.businessRegistrationNumber') ?? ''} />
      </label>
    </fieldset>
  );
}

// One option's field, as the type's form shows it.
function OptionField({ ctx, name, required, values }: { ctx: PageContext; name: OptionName;
  required: boolean; values?: URLSearchParams | undefined }) {
  const { t } = ctx;
  const value = values?.get(name) ?? '';
  const label = t(`documents.option.${name}`);
  switch (name) {
    case 'showAddress':
    case 'showResidentNumber':
    case 'language':
    case 'registryScope':
    case 'registryEntries': {
      const choices = CHOICES[name];
      const chosen = value === '' ? choices[0]?.value : value;
      return (
        <label>{label}
          <select name={name}>
            {choices.map((choice) => (
              <option key={choice.value} value={choice.value} selected={chosen === choice.value}>
                {t(choice.text)}
              </option>
            ))}
          </select>
        </label>
      );
    }
    case 'startYearMonth':
    case 'endYearMonth':
    case 'fiscalYearEndMonth':
      return (
        <label>{label}
          <input type="month" name={name} required={required} value={value}
            placeholder="YYYY-MM" />
        </label>
      );
    case 'taxYear':
      return (
        <label>{label}
          <input type="number" name={name} required={required} min={1990} max={9999}
            step={1} value={value} />
        </label>
      );
    case 'corporationNumber':
      return (
        <label>{label} <span class="hint">{t('documents.corporationNumberHint')}</span>
          <input type="text" name={name} required={required} maxLength={14}
            inputMode="numeric" value={value} />
        </label>
      );
    case 'purpose':
      return <label>{label}<input type="text" name={name} maxLength={100} value={value} /></label>;
    case 'submissionPurpose':
      return <SubmissionPurposeField ctx={ctx} label={label} value={value} />;
    case 'payer':
      return <PayerField ctx={ctx} label={label} values={values} />;
    case 'incomeCertificateKind':
      return (
        <label>{label}
          <select name={name} required={required}>
            {Object.keys(INCOME_CERTIFICATE_KINDS).map((kind) => (
              <option key={kind} value={kind} selected={value === kind}>
                {t(`documents.incomeKind.${kind as keyof typeof INCOME_CERTIFICATE_KINDS}`)}
              </option>
            ))}
          </select>
        </label>
      );
  }
}

// What a tax-authority document still needs before it can be requested: the owner business,
// then its registered certificate (docs/documents.md § The owner business); null when nothing.
async function ownerMissing(ctx: PageContext, type: DocumentType): Promise<MessageKey | null> {
  if (isRegistry(type)) return null;
  const owner = await attempt(() => ctx.services.areas.owners.get({ scope: ctx.scope }));
  if (refused(owner)) {
    if (owner.code === 'OWNER_BUSINESS_NOT_REGISTERED') return 'documents.needsBusiness';
    throw owner;
  }
  return owner.certificate === null ? 'documents.needsCertificate' : null;
}

async function requestForm(ctx: PageContext, type: DocumentType, problem?: ApiError | MessageKey,
  values?: URLSearchParams): Promise<Outcome> {
  const { t } = ctx;
  const missing = await ownerMissing(ctx, type);
  const { allowed, required } = documentOptionsOf(type);
  const price = priceOf(ctx, type);
  return { kind: 'page', title: 'documents.requestTitle', status: problem ? 400 : 200, body: (
    <>
      {problem && <Refusal ctx={ctx} error={problem} />}
      <Section title={t(`documents.type.${type}`)} id="request-form">
        <p>{t(isRegistry(type) ? 'documents.registryLead' : 'documents.taxAuthorityLead')}</p>
        {missing !== null && (
          <Notice kind="info">
            {t(missing)} <a href="/dashboard/business">{t('documents.toBusiness')}</a>
          </Notice>
        )}
        <p><strong>{t('documents.priceIs', { points: formatPoints(price) })}</strong></p>
        <PostForm ctx={ctx} action="/documents" class="stack">
          <input type="hidden" name="type" value={type} />
          <ReferenceIdField values={values} />
          {allowed.map((name) => (
            <OptionField key={name} ctx={ctx} name={name}
              required={(required as readonly string[]).includes(name)} values={values} />
          ))}
          <LiveConfirmation ctx={ctx} points={price} />
          <button type="submit" class="primary">{t('documents.submit')}</button>
        </PostForm>
      </Section>
      <p><a href="/dashboard/documents">{t('documents.back')}</a></p>
    </>
  ) };
}

// The payer of a 대금수령 certificate from its two fields; null when both are empty.
function payerOf(form: URLSearchParams): Record<string, string> | null {
  const name = (form.get('payer.name') ?? '').trim();
  const number = (form.get('payer.businessRegistrationNumber') ?? '').trim();
  if (name === '' && number === '') return null;
  return { name, ...(number === '' ? {} : { businessRegistrationNumber: number }) };
}

// The API's body from the form: only the options of the type, each of its schema's shape; null
// when one is not.
function requestBodyOf(type: DocumentType, form: URLSearchParams): Record<string, unknown> | null {
  const body: Record<string, unknown> = { type };
  for (const name of documentOptionsOf(type).allowed) {
    if (name === 'payer') {
      const payer = payerOf(form);
      if (payer !== null) body.payer = payer;
      continue;
    }
    const raw = (form.get(name) ?? '').trim();
    if (raw === '') continue;
    if (name === 'showAddress' || name === 'showResidentNumber') {
      if (raw !== 'true' && raw !== 'false') return null;
      body[name] = raw === 'true';
    } else if (name === 'taxYear') {
      if (!/^\d{4}$/.test(raw)) return null;
      body[name] = Number(raw);
    } else {
      body[name] = raw;
    }
  }
  return Value.Check(DocumentRequestInput, body) ? body : null;
}

async function request(ctx: PageContext): Promise<Outcome> {
  const type = ctx.form.get('type') ?? '';
  if (!isType(type)) return listOutcome(ctx).then((outcome) => ({ ...outcome, status: 400 }) as
    Outcome);
  const referenceId = readReferenceId(ctx.form);
  const body = requestBodyOf(type, ctx.form);
  if (referenceId === null || body === null) {
    return requestForm(ctx, type, 'documents.error.invalid', ctx.form);
  }
  const stopped = await actingRefusal(ctx, 'documents.issue');
  if (stopped !== null) return requestForm(ctx, type, stopped, ctx.form);
  const accepted = await attempt(() => ctx.services.areas.documents.issue({
    caller: dashboardCaller(ctx), referenceId,
    body: body as Parameters<typeof ctx.services.areas.documents.issue>[0]['body'] }));
  if (refused(accepted)) {
    const outcome = await requestForm(ctx, type, accepted, ctx.form);
    return { ...outcome, status: accepted.status } as Outcome;
  }
  await ctx.audit('document.requested', accepted.issuanceKey, ctx.scope.environment);
  return { kind: 'redirect',
    to: `${documentPath(accepted.issuanceKey)}?notice=documents.requested` };
}

async function documentOf(ctx: PageContext): Promise<DocumentView | null> {
  const issuanceKey = ctx.params.issuanceKey ?? '';
  if (!KEY.test(issuanceKey)) return null;
  const found = await attempt(() => ctx.services.areas.documents.get({ scope: ctx.scope,
    issuanceKey }));
  return refused(found) ? null : found;
}

const notFound = (ctx: PageContext): Outcome => ({ kind: 'page', title: 'error.notFound.title',
  status: 404, body: <div class="card"><p>{ctx.t('error.notFound')}</p></div> });

function optionText(ctx: PageContext, name: string, value: unknown): string {
  if (value === true) return ctx.t('documents.yes');
  if (value === false) return ctx.t('documents.no');
  if (value === null || value === undefined) return '—';
  if (name === 'submissionPurpose' && Object.hasOwn(TAX_PAYMENT_PURPOSES, String(value))) {
    return ctx.t(`documents.submissionPurpose.${value as keyof typeof TAX_PAYMENT_PURPOSES}`);
  }
  if (typeof value === 'object') {
    // The payer: its name, and its number when it has one.
    const payer = value as { name?: unknown; businessRegistrationNumber?: unknown };
    return [payer.name, payer.businessRegistrationNumber]
      .filter((part) => typeof part === 'string').join(' · ');
  }
  return String(value);
}

function detailBody(ctx: PageContext, document: DocumentView) {
  const { t } = ctx;
  const time = (value: string | null) => (value === null ? '—' : formatDateTime(new Date(value)));
  const options = Object.entries(document.options).filter(([, value]) => value !== null);
  return (
    <>
      <RedirectNotice ctx={ctx} known={NOTICES} />
      <Section title={t(`documents.type.${document.type}`)} id="document">
        <p><StatusBadge ctx={ctx} status={document.status} /></p>
        {document.status !== 'ISSUED' && document.status !== 'FAILED' && (
          <p class="muted">{t('documents.pending')}</p>
        )}
        {document.failure && (
          <Notice kind="error">
            <code>{document.failure.code}</code>{' '}
            <span class="break">{document.failure.message}</span>
          </Notice>
        )}
        <dl class="facts">
          <dt>{t('documents.issuanceKey')}</dt><dd class="break">{document.issuanceKey}</dd>
          <dt>{t('documents.price')}</dt><dd>{formatPoints(document.points)}</dd>
          {document.corporationNumber !== null && <>
            <dt>{t('documents.option.corporationNumber')}</dt>
            <dd>{document.corporationNumber}</dd>
          </>}
          {options.map(([name, value]) => (
            <Fragment key={name}>
              <dt>{isOptionName(name) ? t(`documents.option.${name}`) : name}</dt>
              <dd class="break">{optionText(ctx, name, value)}</dd>
            </Fragment>
          ))}
          <dt>{t('documents.issueNumber')}</dt><dd>{document.issueNumber ?? '—'}</dd>
          <dt>{t('documents.acceptedAt')}</dt><dd>{time(document.acceptedAt)}</dd>
          <dt>{t('documents.issuedAt')}</dt><dd>{time(document.issuedAt)}</dd>
          {document.pdfSha256 !== null && <>
            <dt>SHA-256</dt><dd class="break"><code>{document.pdfSha256}</code></dd>
          </>}
        </dl>
        <p class="actions">
          {document.status === 'ISSUED' && (
            <a class="button primary" href={`${documentPath(document.issuanceKey)}/pdf`}
              download>{t('documents.download')}</a>
          )}
          <a href="/dashboard/documents">{t('documents.back')}</a>
        </p>
      </Section>
    </>
  );
}

export const documentsPage: DashboardPage = {
  nav: { label: 'nav.documents', path: '/documents', section: 'issuing',
    permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/documents', permission: 'account.read', handle: listOutcome },
    {
      method: 'GET', path: '/documents/new', permission: 'documents.issue',
      handle(ctx) {
        const type = ctx.query.get('type') ?? '';
        if (!isType(type)) return listOutcome(ctx);
        return requestForm(ctx, type);
      },
    },
    { method: 'POST', path: '/documents', permission: 'documents.issue', handle: request },
    {
      method: 'GET', path: '/documents/:issuanceKey', permission: 'account.read',
      async handle(ctx) {
        const document = await documentOf(ctx);
        if (document === null) return notFound(ctx);
        return { kind: 'page', title: 'documents.title', body: detailBody(ctx, document) };
      },
    },
    {
      method: 'GET', path: '/documents/:issuanceKey/pdf', permission: 'account.read',
      async handle(ctx) {
        const document = await documentOf(ctx);
        if (document === null) return notFound(ctx);
        const pdf = await attempt(() => ctx.services.areas.documents.pdf({ scope: ctx.scope,
          issuanceKey: document.issuanceKey }));
        if (refused(pdf)) {
          return { kind: 'page', title: 'documents.title', status: pdf.status,
            body: <>{<Refusal ctx={ctx} error={pdf} />}{detailBody(ctx, document)}</> };
        }
        return { kind: 'download', filename: `${document.issuanceKey}.pdf`,
          contentType: 'application/pdf', body: pdf };
      },
    },
  ],
};
