import Value from 'typebox/value';
import {
  CounterpartyChanges,
  CounterpartyInput,
  IMPORT_COLUMNS,
  IMPORT_EXAMPLE_ROW,
  type CounterpartiesService,
  type CounterpartyImportView,
  type CounterpartyView,
} from '../../../areas/counterparties/index.ts';
import { formatBusinessRegistrationNumber } from
  '../../../domain/business-registration-number.ts';
import { CardTable, Notice, PostForm, RedirectNotice, Section } from '../../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../../context.ts';
import { toCsv } from '../../csv.ts';
import { formatDateTime } from '../../format.ts';
import type { MessageKey } from '../../i18n/index.ts';
import { workbook, XLSX_TYPE } from '../spreadsheet.ts';
import { errorOutcome } from '../errors.tsx';
import { LiveConfirmation, liveConfirmed } from '../../confirmation.tsx';
import { ApiProblem, asApiError, rateLimitedPage } from './shared.tsx';
import { fileOf, UPLOAD_BYTES_MAX } from '../../uploads.ts';
import { FilePreviewTable } from '../../file-preview.tsx';
import { filterQuery, NextPage } from '../../list-page.tsx';

// Counterparties (docs/dashboard.md § Counterparties): the counterparty book of the session's
// environment through the counterparties area's service (the same as /v1/counterparties): the
// list with its search, a counterparty's page with its edit form, its status check (charged as
// a registration status lookup) and its deletion, and the import of a CSV or xlsx file: the
// file's rows are shown with their errors by cell, then the valid ones are added once.

type Service = CounterpartiesService;

const PAGE_SIZE = 50;
const ID = /^[A-Za-z0-9_-]{1,100}$/;
export const ACCEPTED_FILES = '.csv,.xlsx,text/csv,' +
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const TEXT_FIELDS = ['organizationName', 'representativeName', 'address', 'businessType',
  'businessItem', 'memo'] as const;

// The form's fields as the API's body: an empty optional field is absent (create) or null
// (edit: cleared).
function bodyOf(form: URLSearchParams, empty: 'absent' | 'null') {
  const body: Record<string, unknown> = {};
  const text = (name: string) => (form.get(name) ?? '').trim();
  const optional = (name: string, value: string) => {
    if (value !== '') body[name] = value;
    else if (empty === 'null') body[name] = null;
  };
  if (empty === 'absent' || text('businessRegistrationNumber') !== '') {
    body.businessRegistrationNumber = text('businessRegistrationNumber');
  }
  optional('taxRegistrationId', text('taxRegistrationId'));
  for (const name of TEXT_FIELDS) {
    if (name === 'organizationName' || name === 'representativeName') {
      body[name] = text(name);
    } else optional(name, text(name));
  }
  const managers = [1, 2].flatMap((index) => {
    const email = text(`managerEmail${index}`);
    const name = text(`managerName${index}`);
    const telephone = text(`managerTelephone${index}`);
    if (email === '' && name === '' && telephone === '') return [];
    return [{ email, ...(name === '' ? {} : { name }),
      ...(telephone === '' ? {} : { telephone }) }];
  });
  body.managers = managers;
  body.autoRefreshStatus = form.get('autoRefreshStatus') === 'on';
  return body;
}

function SubPlace({ counterparty }: { counterparty: CounterpartyView }) {
  return counterparty.taxRegistrationId === null ? null
    : <> ({counterparty.taxRegistrationId})</>;
}

function StatusBadge({ ctx, counterparty }: { ctx: PageContext;
  counterparty: CounterpartyView }) {
  const { t } = ctx;
  const { status } = counterparty.registration;
  if (status === null) return <span class="muted">{t('counterparties.unchecked')}</span>;
  return (
    <span class={`state ${status === 'CLOSED' ? 'bad' : status === 'ACTIVE' ? 'ok' : ''}`}>
      {t(`counterparties.status.${status}`)}
    </span>
  );
}

// The two managers' fields.
function ManagerFields({ ctx, counterparty, values }: { ctx: PageContext;
  counterparty?: CounterpartyView; values?: URLSearchParams }) {
  const { t } = ctx;
  const value = (name: string, fallback: string | null | undefined) =>
    values?.get(name) ?? fallback ?? '';
  const manager = (index: number) => counterparty?.managers[index - 1] as
    { email: string; name: string | null; telephone: string | null } | undefined;
  return (
    <>
      {[1, 2].map((index) => (
        <fieldset key={index} class="manager">
          <legend>
            {t(index === 1 ? 'counterparties.manager' : 'counterparties.secondManager')}
          </legend>
          <label>{t('counterparties.managerEmail')}
            <input type="email" name={`managerEmail${index}`} maxLength={100}
              value={value(`managerEmail${index}`, manager(index)?.email)} />
          </label>
          <label>{t('counterparties.managerName')}
            <input type="text" name={`managerName${index}`} maxLength={30}
              value={value(`managerName${index}`, manager(index)?.name)} />
          </label>
          <label>{t('counterparties.managerTelephone')}
            <input type="tel" name={`managerTelephone${index}`} maxLength={20}
              value={value(`managerTelephone${index}`, manager(index)?.telephone)} />
          </label>
        </fieldset>
      ))}
    </>
  );
}

function Fields({ ctx, counterparty, values }: { ctx: PageContext;
  counterparty?: CounterpartyView; values?: URLSearchParams }) {
  const { t } = ctx;
  const value = (name: string, fallback: string | null | undefined) =>
    values?.get(name) ?? fallback ?? '';
  const refresh = values === undefined ? counterparty?.autoRefreshStatus === true
    : values.get('autoRefreshStatus') === 'on';
  return (
    <>
      <label>{t('counterparties.number')} <span class="hint">{t('counterparties.numberHint')}</span>
        <input type="text" name="businessRegistrationNumber" required maxLength={12}
          inputMode="numeric" value={value('businessRegistrationNumber',
            counterparty?.businessRegistrationNumber)} />
      </label>
      <label>{t('counterparties.subPlace')}{' '}
        <span class="hint">{t('counterparties.subPlaceHint')}</span>
        <input type="text" name="taxRegistrationId" maxLength={4} inputMode="numeric"
          value={value('taxRegistrationId', counterparty?.taxRegistrationId)} />
      </label>
      <label>{t('counterparties.name')}
        <input type="text" name="organizationName" required maxLength={100}
          value={value('organizationName', counterparty?.organizationName)} />
      </label>
      <label>{t('counterparties.representative')}
        <input type="text" name="representativeName" required maxLength={50}
          value={value('representativeName', counterparty?.representativeName)} />
      </label>
      <label>{t('counterparties.address')} <span class="hint">{t('counterparties.optional')}</span>
        <input type="text" name="address" maxLength={200}
          value={value('address', counterparty?.address)} />
      </label>
      <label>{t('counterparties.businessType')}{' '}
        <span class="hint">{t('counterparties.optional')}</span>
        <input type="text" name="businessType" maxLength={100}
          value={value('businessType', counterparty?.businessType)} />
      </label>
      <label>{t('counterparties.businessItem')}{' '}
        <span class="hint">{t('counterparties.optional')}</span>
        <input type="text" name="businessItem" maxLength={100}
          value={value('businessItem', counterparty?.businessItem)} />
      </label>
      <ManagerFields ctx={ctx} counterparty={counterparty} values={values} />
      <label>{t('counterparties.memo')} <span class="hint">{t('counterparties.optional')}</span>
        <input type="text" name="memo" maxLength={1000} value={value('memo', counterparty?.memo)} />
      </label>
      <label class="check">
        <input type="checkbox" name="autoRefreshStatus" checked={refresh} />
        {' '}{t('counterparties.autoRefresh')}
      </label>
      <LiveConfirmation ctx={ctx} />
    </>
  );
}

type Problem = { key?: MessageKey; error?: ReturnType<typeof asApiError>;
  values?: URLSearchParams };

function ProblemNotice({ ctx, problem }: { ctx: PageContext; problem?: Problem }) {
  if (problem === undefined) return null;
  if (problem.error !== undefined) return <ApiProblem ctx={ctx} error={problem.error} />;
  return problem.key === undefined ? null : <Notice kind="error">{ctx.t(problem.key)}</Notice>;
}

function ListTable({ ctx, results }: { ctx: PageContext; results: CounterpartyView[] }) {
  const { t } = ctx;
  return (
    <CardTable head={<>
      <th>{t('counterparties.name')}</th><th>{t('counterparties.number')}</th>
      <th>{t('counterparties.representative')}</th><th>{t('counterparties.manager')}</th>
      <th>{t('counterparties.status')}</th>
    </>}>
      {results.map((counterparty) => (
        <tr key={counterparty.id}
          class={counterparty.registration.closed ? 'flagged' : undefined}>
          <td data-label={t('counterparties.name')} class="break">
            <a href={`/dashboard/counterparties/${counterparty.id}`}>
              {counterparty.organizationName}
            </a>
          </td>
          <td data-label={t('counterparties.number')} class="nowrap">
            {formatBusinessRegistrationNumber(counterparty.businessRegistrationNumber)}
            <SubPlace counterparty={counterparty} />
          </td>
          <td data-label={t('counterparties.representative')} class="break">
            {counterparty.representativeName}
          </td>
          <td data-label={t('counterparties.manager')} class="break">
            {(counterparty.managers[0] as { email: string } | undefined)?.email ?? '—'}
          </td>
          <td data-label={t('counterparties.status')}>
            <StatusBadge ctx={ctx} counterparty={counterparty} />
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

const searchOf = (ctx: PageContext) => ({
  name: (ctx.query.get('name') ?? '').trim().slice(0, 100),
  number: (ctx.query.get('number') ?? '').replace(/[^0-9]/g, '').slice(0, 10),
  closed: ctx.query.get('closed') === 'true',
});

// The import's form: the templates and the file.
function ImportSection({ ctx }: { ctx: PageContext }) {
  const { t } = ctx;
  return (
    <Section title={t('counterparties.import')} id="import">
      <p>{t('counterparties.importLead')}</p>
      <p class="actions">
        <a href="/dashboard/counterparties/template.xlsx" download>
          {t('counterparties.templateXlsx')}</a>
        <a href="/dashboard/counterparties/template.csv" download>
          {t('counterparties.templateCsv')}</a>
      </p>
      <form method="post" action="/dashboard/counterparties/import"
        enctype="multipart/form-data" class="stack" data-once="">
        <input type="hidden" name="_csrf" value={ctx.csrf} />
        <label>{t('counterparties.file')}
          <input type="file" name="file" required
            accept={ACCEPTED_FILES} />
        </label>
        <button type="submit" class="primary">{t('counterparties.preview')}</button>
      </form>
    </Section>
  );
}

async function listBody(ctx: PageContext, problem?: Problem) {
  const { t } = ctx;
  const search = searchOf(ctx);
  const query = { scope: ctx.scope, limit: PAGE_SIZE, name: search.name || undefined,
    businessRegistrationNumber: search.number || undefined,
    closed: search.closed ? true : undefined };
  let listed: Awaited<ReturnType<Service['list']>>;
  try {
    listed = await ctx.services.areas.counterparties.list({ ...query,
      cursor: ctx.query.get('cursor') ?? undefined });
  } catch (error) {
    // A cursor this list did not make starts the list from the beginning.
    if (asApiError(error).code !== 'INVALID_REQUEST') throw error;
    listed = await ctx.services.areas.counterparties.list(query);
  }
  const manage = ctx.may('counterparties.manage');
  const next = listed.nextCursor === null ? null : `/dashboard/counterparties?${filterQuery({
    name: search.name, number: search.number, closed: search.closed ? 'true' : null,
    cursor: listed.nextCursor })}`;
  return (
    <>
      <RedirectNotice ctx={ctx} known={['counterparties.deleted', 'counterparties.imported']} />
      <ProblemNotice ctx={ctx} problem={problem} />
      <p>{t('counterparties.lead', { environment: t(`env.${ctx.scope.environment}`) })}</p>
      <Section title={t('counterparties.list')} id="list">
        <form method="get" action="/dashboard/counterparties" class="filters" role="search">
          <label>{t('counterparties.searchName')}
            <input type="search" name="name" maxLength={100} value={search.name} />
          </label>
          <label>{t('counterparties.searchNumber')}
            <input type="search" name="number" maxLength={12} inputMode="numeric"
              value={search.number} />
          </label>
          <label class="check">
            <input type="checkbox" name="closed" value="true" checked={search.closed} />
            {' '}{t('counterparties.onlyClosed')}
          </label>
          <button type="submit">{t('counterparties.search')}</button>
        </form>
        {listed.counterparties.length === 0 ? <p>{t('counterparties.none')}</p>
          : <ListTable ctx={ctx} results={listed.counterparties} />}
        <NextPage href={next} label={t('counterparties.next')} />
      </Section>
      {manage ? <>
        <ImportSection ctx={ctx} />
        <Section title={t('counterparties.add')} id="add">
          <PostForm ctx={ctx} action="/counterparties" class="stack" once>
            <Fields ctx={ctx} values={problem?.values} />
            <button type="submit" class="primary">{t('counterparties.create')}</button>
          </PostForm>
        </Section>
      </> : <p class="muted">{t('counterparties.readOnly')}</p>}
    </>
  );
}

const listPage = async (ctx: PageContext, problem?: Problem, status?: number): Promise<Outcome> =>
  ({ kind: 'page', title: 'counterparties.title', status, body: await listBody(ctx, problem) });

async function ownCounterparty(ctx: PageContext): Promise<CounterpartyView | null> {
  const counterpartyId = ctx.params.counterpartyId ?? '';
  if (!ID.test(counterpartyId)) return null;
  try {
    return await ctx.services.areas.counterparties.get({ scope: ctx.scope, counterpartyId });
  } catch (error) {
    if (asApiError(error).code === 'NOT_FOUND') return null;
    throw error;
  }
}

function detailBody(ctx: PageContext, counterparty: CounterpartyView, problem?: Problem) {
  const { t } = ctx;
  const manage = ctx.may('counterparties.manage');
  const { registration } = counterparty;
  return (
    <>
      <RedirectNotice ctx={ctx} known={['counterparties.created', 'counterparties.saved',
        'counterparties.checked']} />
      <ProblemNotice ctx={ctx} problem={problem} />
      {registration.closed && (
        <Notice kind="error">{t('counterparties.closedWarning', {
          date: registration.closedOn ?? '—' })}</Notice>
      )}
      <p><a href="/dashboard/counterparties">{t('counterparties.list')}</a></p>
      <Section title={counterparty.organizationName} id="counterparty">
        <dl class="facts">
          <dt>{t('counterparties.number')}</dt>
          <dd>{formatBusinessRegistrationNumber(counterparty.businessRegistrationNumber)}
            <SubPlace counterparty={counterparty} /></dd>
          <dt>{t('counterparties.representative')}</dt>
          <dd class="break">{counterparty.representativeName}</dd>
          <dt>{t('counterparties.address')}</dt><dd class="break">{counterparty.address ?? '—'}</dd>
          <dt>{t('counterparties.businessType')}</dt>
          <dd class="break">
            {counterparty.businessType ?? '—'} / {counterparty.businessItem ?? '—'}
          </dd>
          <dt>{t('counterparties.manager')}</dt>
          <dd class="break">{counterparty.managers.map((manager) =>
            (manager as { email: string }).email).join(', ') || '—'}</dd>
          <dt>{t('counterparties.memo')}</dt><dd class="break">{counterparty.memo ?? '—'}</dd>
          <dt>{t('counterparties.status')}</dt>
          <dd><StatusBadge ctx={ctx} counterparty={counterparty} />
            {registration.checkedAt !== null && <> <span class="muted">
              {t('counterparties.checkedAt',
                { at: formatDateTime(new Date(registration.checkedAt)) })}</span></>}</dd>
        </dl>
        {manage && (
          <PostForm ctx={ctx} action={`/counterparties/${counterparty.id}/refresh`} class="actions">
            <LiveConfirmation ctx={ctx} />
            <button type="submit">{t('counterparties.refresh')}</button>
            <span class="hint">{t('counterparties.refreshHint')}</span>
          </PostForm>
        )}
      </Section>
      {manage && <>
        <Section title={t('counterparties.edit')} id="edit">
          <PostForm ctx={ctx} action={`/counterparties/${counterparty.id}`} class="stack">
            <Fields ctx={ctx} counterparty={counterparty} values={problem?.values} />
            <button type="submit" class="primary">{t('counterparties.save')}</button>
          </PostForm>
        </Section>
        <Section title={t('counterparties.delete')} id="delete">
          <PostForm ctx={ctx} action={`/counterparties/${counterparty.id}/delete`} class="actions"
            confirm={t('counterparties.deleteConfirm')}>
            <LiveConfirmation ctx={ctx} />
            <button type="submit" class="danger">{t('counterparties.delete')}</button>
          </PostForm>
        </Section>
      </>}
    </>
  );
}

const detailPage = (ctx: PageContext, counterparty: CounterpartyView, problem?: Problem,
  status?: number): Outcome => ({ kind: 'page', title: 'counterparties.title', status,
  body: detailBody(ctx, counterparty, problem) });

// The import's rows, each bad cell marked and described beside the row.
function PreviewTable({ ctx, view }: { ctx: PageContext; view: CounterpartyImportView }) {
  const { t } = ctx;
  return (
    <FilePreviewTable caption={t('counterparties.previewCaption')}
      rowLabel={t('counterparties.row')} resultLabel={t('counterparties.rowErrors')}
      columns={IMPORT_COLUMNS}
      rows={view.rows.map((row) => ({ row: row.row, errors: row.errors,
        cells: row.values as Record<string, string | undefined>,
        ok: t('counterparties.rowOk') }))} />
  );
}

function previewBody(ctx: PageContext, view: CounterpartyImportView) {
  const { t } = ctx;
  return (
    <>
      <p><a href="/dashboard/counterparties">{t('counterparties.list')}</a></p>
      <Section title={t('counterparties.previewTitle')} id="preview">
        <p>{t('counterparties.previewLead',
          { valid: view.validRows, invalid: view.invalidRows })}</p>
        {view.invalidRows > 0 && <Notice kind="error">{t('counterparties.previewErrors',
          { count: view.invalidRows })}</Notice>}
        <PreviewTable ctx={ctx} view={view} />
        {view.validRows > 0 ? (
          <PostForm ctx={ctx} action={`/counterparties/imports/${view.id}/commit`} class="actions"
            once>
            <LiveConfirmation ctx={ctx} />
            <button type="submit" class="primary">
              {t('counterparties.commit', { count: view.validRows })}</button>
          </PostForm>
        ) : <p>{t('counterparties.nothingToAdd')}</p>}
      </Section>
    </>
  );
}

const rateLimited = (ctx: PageContext, operation: 'counterparties.create' |
  'counterparties.update' | 'counterparties.delete' | 'counterparties.refreshStatus' |
  'counterparties.imports.create' | 'counterparties.imports.commit') =>
  rateLimitedPage(ctx, operation, 'counterparties.title');

// An action on one counterparty that takes no fields: the counterparty of the session's scope
// (else 404), the typed confirmation of a live action, then the operation's rate limit before
// the work.
async function counterpartyAction(ctx: PageContext,
  operation: 'counterparties.refreshStatus' | 'counterparties.delete',
  work: (counterparty: CounterpartyView) => Promise<Outcome>): Promise<Outcome> {
  const counterparty = await ownCounterparty(ctx);
  if (counterparty === null) return errorOutcome(ctx.t, 'notFound', 404);
  if (!liveConfirmed(ctx)) {
    return detailPage(ctx, counterparty, { key: 'confirm.liveMissing' }, 400);
  }
  const limited = await rateLimited(ctx, operation);
  return limited ?? work(counterparty);
}

const refusal = (error: unknown) => {
  const problem = asApiError(error);
  return { problem: { error: problem }, status: problem.status };
};

async function template(kind: 'csv' | 'xlsx'): Promise<Outcome> {
  const headers = IMPORT_COLUMNS.map((column) => column.label);
  const example = IMPORT_COLUMNS.map((column) => IMPORT_EXAMPLE_ROW[column.key]);
  if (kind === 'csv') {
    return { kind: 'download', filename: 'counterparties-template.csv',
      contentType: 'text/csv; charset=utf-8',
      body: toCsv(headers, [Object.fromEntries(headers.map((header, index) =>
        [header, example[index]]))]) };
  }
  return { kind: 'download', filename: 'counterparties-template.xlsx', contentType: XLSX_TYPE,
    body: await workbook([{ name: '거래처', columns: headers.map((header, index) =>
      ({ header, key: `c${index}`, width: 18 })),
    rows: [Object.fromEntries(example.map((value, index) => [`c${index}`, value]))] }]) };
}

export const counterpartiesPage: DashboardPage = {
  nav: { label: 'nav.counterparties', path: '/counterparties', section: 'records',
    permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/counterparties', permission: 'account.read',
      handle: (ctx) => listPage(ctx) },
    { method: 'GET', path: '/counterparties/template.xlsx', permission: 'account.read',
      handle: () => template('xlsx') },
    { method: 'GET', path: '/counterparties/template.csv', permission: 'account.read',
      handle: () => template('csv') },
    {
      method: 'POST', path: '/counterparties', permission: 'counterparties.manage',
      async handle(ctx) {
        const body = bodyOf(ctx.form, 'absent');
        if (!Value.Check(CounterpartyInput, body)) {
          return listPage(ctx, { key: 'counterparties.error.invalid', values: ctx.form }, 400);
        }
        if (!liveConfirmed(ctx)) {
          return listPage(ctx, { key: 'confirm.liveMissing', values: ctx.form }, 400);
        }
        const limited = await rateLimited(ctx, 'counterparties.create');
        if (limited !== null) return limited;
        try {
          const created = await ctx.services.areas.counterparties.create({ scope: ctx.scope,
            counterparty: body });
          await ctx.audit('counterparty.created', created.id, ctx.scope.environment);
          return { kind: 'redirect',
            to: `/dashboard/counterparties/${created.id}?notice=counterparties.created` };
        } catch (error) {
          const { problem, status } = refusal(error);
          return listPage(ctx, { ...problem, values: ctx.form }, status);
        }
      },
    },
    {
      method: 'POST', path: '/counterparties/import', permission: 'counterparties.manage',
      async handle(ctx) {
        const file = fileOf(ctx.files, 'file');
        if (file === undefined || file.buffer.length === 0) {
          return listPage(ctx, { key: 'counterparties.error.noFile' }, 400);
        }
        if (file.truncated || file.buffer.length > UPLOAD_BYTES_MAX) {
          return listPage(ctx, { key: 'counterparties.error.tooLarge' }, 413);
        }
        const limited = await rateLimited(ctx, 'counterparties.imports.create');
        if (limited !== null) return limited;
        try {
          const view = await ctx.services.areas.counterparties.previewImport({ scope: ctx.scope,
            file: file.buffer, fileName: file.fileName });
          return { kind: 'page', title: 'counterparties.title', body: previewBody(ctx, view) };
        } catch (error) {
          const { problem, status } = refusal(error);
          return listPage(ctx, problem, status);
        }
      },
    },
    {
      method: 'POST', path: '/counterparties/imports/:importId/commit',
      permission: 'counterparties.manage',
      async handle(ctx) {
        const importId = ctx.params.importId ?? '';
        if (!ID.test(importId)) return errorOutcome(ctx.t, 'notFound', 404);
        if (!liveConfirmed(ctx)) {
          return listPage(ctx, { key: 'confirm.liveMissing' }, 400);
        }
        const limited = await rateLimited(ctx, 'counterparties.imports.commit');
        if (limited !== null) return limited;
        try {
          const view = await ctx.services.areas.counterparties.commitImport({ scope: ctx.scope,
            importId });
          await ctx.audit('counterparty.imported', view.id, ctx.scope.environment);
          return { kind: 'redirect',
            to: '/dashboard/counterparties?notice=counterparties.imported' };
        } catch (error) {
          if (asApiError(error).code === 'NOT_FOUND') return errorOutcome(ctx.t, 'notFound', 404);
          const { problem, status } = refusal(error);
          return listPage(ctx, problem, status);
        }
      },
    },
    {
      method: 'GET', path: '/counterparties/:counterpartyId', permission: 'account.read',
      async handle(ctx) {
        const counterparty = await ownCounterparty(ctx);
        return counterparty === null ? errorOutcome(ctx.t, 'notFound', 404)
          : detailPage(ctx, counterparty);
      },
    },
    {
      method: 'POST', path: '/counterparties/:counterpartyId', permission: 'counterparties.manage',
      async handle(ctx) {
        const counterparty = await ownCounterparty(ctx);
        if (counterparty === null) return errorOutcome(ctx.t, 'notFound', 404);
        const changes = bodyOf(ctx.form, 'null');
        if (!Value.Check(CounterpartyChanges, changes)) {
          return detailPage(ctx, counterparty, { key: 'counterparties.error.invalid',
            values: ctx.form }, 400);
        }
        if (!liveConfirmed(ctx)) {
          return detailPage(ctx, counterparty, { key: 'confirm.liveMissing',
            values: ctx.form }, 400);
        }
        const limited = await rateLimited(ctx, 'counterparties.update');
        if (limited !== null) return limited;
        try {
          await ctx.services.areas.counterparties.update({ scope: ctx.scope,
            counterpartyId: counterparty.id, changes });
        } catch (error) {
          if (asApiError(error).code === 'NOT_FOUND') return errorOutcome(ctx.t, 'notFound', 404);
          const { problem, status } = refusal(error);
          return detailPage(ctx, counterparty, { ...problem, values: ctx.form }, status);
        }
        await ctx.audit('counterparty.updated', counterparty.id, ctx.scope.environment);
        return { kind: 'redirect',
          to: `/dashboard/counterparties/${counterparty.id}?notice=counterparties.saved` };
      },
    },
    {
      method: 'POST', path: '/counterparties/:counterpartyId/refresh',
      permission: 'counterparties.manage',
      handle: (ctx) => counterpartyAction(ctx, 'counterparties.refreshStatus',
        async (counterparty) => {
          try {
            await ctx.services.areas.counterparties.refreshStatus({ scope: ctx.scope,
              counterpartyId: counterparty.id });
          } catch (error) {
            const { problem, status } = refusal(error);
            return detailPage(ctx, counterparty, problem, status);
          }
          await ctx.audit('counterparty.statusChecked', counterparty.id, ctx.scope.environment);
          return { kind: 'redirect',
            to: `/dashboard/counterparties/${counterparty.id}?notice=counterparties.checked` };
        }),
    },
    {
      method: 'POST', path: '/counterparties/:counterpartyId/delete',
      permission: 'counterparties.manage',
      handle: (ctx) => counterpartyAction(ctx, 'counterparties.delete', async (counterparty) => {
        try {
          await ctx.services.areas.counterparties.remove({ scope: ctx.scope,
            counterpartyId: counterparty.id });
        } catch (error) {
          if (asApiError(error).code === 'NOT_FOUND') return errorOutcome(ctx.t, 'notFound', 404);
          throw error;
        }
        await ctx.audit('counterparty.deleted', counterparty.id, ctx.scope.environment);
        return { kind: 'redirect', to: '/dashboard/counterparties?notice=counterparties.deleted' };
      }),
    },
  ],
};
