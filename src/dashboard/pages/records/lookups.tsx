import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import Value from 'typebox/value';
import { HolderLookupBody } from '../../../areas/bank/index.ts';
import { RegistrationStatusBulkBody } from '../../../areas/businesses/index.ts';
import { ACCOUNTS_PER_REQUEST_MAX, BANKS, findBank } from '../../../domain/bank-codes.ts';
import type { ApiError } from '../../../platform/errors.ts';
import type { Operation, PriceRow } from '../../../platform/operations.ts';
import { CardTable, Notice, PostForm, Section } from '../../components.tsx';
import type { DashboardAreas, DashboardPage, Outcome, PageContext } from '../../context.ts';
import { toCsv } from '../../csv.ts';
import { formatDateTime, formatPoints } from '../../format.ts';
import type { MessageKey } from '../../i18n/index.ts';
import { errorOutcome } from '../errors.tsx';
import { ApiProblem, asApiError, countCall } from './shared.tsx';
import { LiveConfirmation, liveConfirmed } from '../../confirmation.tsx';

// Lookups (docs/dashboard.md § Lookups): a business profile, the registration status of up to
// 100 numbers and the holders of up to 100 bank accounts, through the same charged services as
// GET /v1/businessProfiles/{number}, POST /v1/businessRegistrationStatuses:bulkInquire and
// POST /v1/bankAccountHolders:bulkInquire (the bulk forms checked with the API's own body
// schemas, counted by the same rate limits, charged by the same rules). A lookup runs in two
// steps: the first shows the price from the price table and the most it can take, the second
// runs it (in live only with the typed confirmation) and shows the results with a CSV download.
// A confirmation runs at most once; the results are never stored: the download carries them
// back, signed for the session.

type Kind = 'profile' | 'status' | 'holders';
type Profile = Awaited<ReturnType<DashboardAreas['businessProfiles']['retrieveProfile']>>;

const KINDS: Record<Kind, { operation: Operation; price: PriceRow; max: number;
  title: MessageKey }> = {
  profile: { operation: 'businesses.profiles.retrieve', price: 'businesses.profiles.retrieve',
    max: 1, title: 'lookups.profile' },
  status: { operation: 'businesses.registrationStatus.bulkInquire',
    price: 'businesses.registrationStatus.inquire', max: 100, title: 'lookups.status' },
  holders: { operation: 'bank.holders.bulkInquire', price: 'bank.holders.inquire',
    max: ACCOUNTS_PER_REQUEST_MAX, title: 'lookups.holders' },
};
const isKind = (value: string | undefined): value is Kind =>
  value === 'profile' || value === 'status' || value === 'holders';

// A confirmation runs once: its token is counted once in the rate limiter's store (Redis when
// set, so across processes) for longer than the page stays open.
const RUN_ONCE = { name: 'dashboard.lookupRun', policy: { limit: 1, windowSeconds: 3_600 } };
const NONCE = /^[A-Za-z0-9_-]{22}$/;
// Lines past the most a call takes are refused before anything is asked.
const TEXT_LENGTH_MAX = 20_000;

const ALL_BANKS = Object.values(BANKS).sort((a, b) => a.code.localeCompare(b.code));

// A bank named on a line: its Korean or English name (any case, spaces ignored), or its code.
function bankNamed(text: string) {
  const wanted = text.replace(/\s+/g, '').toLowerCase();
  return findBank(text.trim()) ?? ALL_BANKS.find((bank) =>
    bank.nameKorean.replace(/\s+/g, '').toLowerCase() === wanted ||
    bank.nameEnglish.replace(/\s+/g, '').toLowerCase() === wanted) ?? null;
}

const linesOf = (text: string) => text.split(/\r?\n/).map((line) => line.trim())
  .filter((line) => line !== '');

type Parsed =
  | { kind: 'profile'; number: string; count: 1 }
  | { kind: 'status'; body: { businessRegistrationNumbers: string[] }; count: number }
  | { kind: 'holders'; body: { accounts: Array<{ bankCode: string; accountNumber: string }> };
    count: number };
type Problem = { key: MessageKey; values?: Record<string, string | number> };

// What the form asks for, checked as the API checks its body; a problem otherwise.
function parse(kind: Kind, form: URLSearchParams): Parsed | Problem {
  const text = form.get('input') ?? '';
  if (text.length > TEXT_LENGTH_MAX) return { key: 'lookups.error.invalid' };
  const lines = linesOf(text);
  if (lines.length === 0) return { key: 'lookups.error.empty' };
  if (lines.length > KINDS[kind].max) {
    return { key: 'lookups.error.tooMany', values: { max: KINDS[kind].max, count: lines.length } };
  }
  if (kind === 'profile') return { kind, number: lines[0]!, count: 1 };
  if (kind === 'status') {
    const body = { businessRegistrationNumbers: lines };
    return Value.Check(RegistrationStatusBulkBody, body) ? { kind, body, count: lines.length }
      : { key: 'lookups.error.invalid' };
  }
  const fallback = findBank(form.get('bankCode') ?? '');
  const accounts: Array<{ bankCode: string; accountNumber: string }> = [];
  for (const [index, line] of lines.entries()) {
    const parts = line.split(/[,\t]/);
    const named = parts.length > 1 ? parts.slice(0, -1).join(',').trim() : null;
    const bank = named === null ? fallback : bankNamed(named);
    if (bank === null) {
      return named === null ? { key: 'lookups.error.noBank', values: { line: index + 1 } }
        : { key: 'lookups.error.bank', values: { line: index + 1, bank: named } };
    }
    accounts.push({ bankCode: bank.code, accountNumber: parts.at(-1)!.trim() });
  }
  const body = { accounts };
  return Value.Check(HolderLookupBody, body) ? { kind, body, count: accounts.length }
    : { key: 'lookups.error.invalid' };
}

const isProblem = (value: Parsed | Problem): value is Problem => 'key' in value;

const priceOf = (ctx: PageContext, kind: Kind) =>
  (ctx.services.platform.prices as Record<string, number>)[KINDS[kind].price] ?? 0;

const available = async (ctx: PageContext) =>
  (await ctx.services.platform.points.getBalance(ctx.scope)).available;

function LookupForm({ ctx, kind, values }: { ctx: PageContext; kind: Kind;
  values?: URLSearchParams }) {
  const { t } = ctx;
  const price = formatPoints(priceOf(ctx, kind));
  const { max } = KINDS[kind];
  const input = values?.get('input') ?? '';
  const lead: Record<Kind, string> = {
    profile: t('lookups.profileLead', { price }),
    status: t('lookups.statusLead', { price, max }),
    holders: t('lookups.holdersLead', { price, max }),
  };
  return (
    <Section title={t(KINDS[kind].title)} id={kind}>
      <p>{lead[kind]}</p>
      {ctx.may('lookups.run') ? (
        <PostForm ctx={ctx} action={`/lookups/${kind}/preview`} class="stack">
          {kind === 'profile' ? (
            <label>{t('lookups.number')}
              <input type="text" name="input" required maxLength={32} inputMode="numeric"
                value={input} />
            </label>
          ) : <>
            {kind === 'holders' && (
              <label>{t('lookups.bank')}
                <select name="bankCode">
                  <option value="">{t('lookups.chooseBank')}</option>
                  {ALL_BANKS.map((bank) => (
                    <option key={bank.code} value={bank.code}
                      selected={values?.get('bankCode') === bank.code}>
                      {ctx.locale === 'ko' ? bank.nameKorean : bank.nameEnglish}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <label>{t(kind === 'status' ? 'lookups.numbers' : 'lookups.accounts')}
              <textarea name="input" rows={6} required maxLength={TEXT_LENGTH_MAX}
                spellcheck={false}>{input}</textarea>
            </label>
          </>}
          <button type="submit" class="primary">{t('lookups.preview')}</button>
        </PostForm>
      ) : <p class="muted">{t('lookups.readOnly')}</p>}
    </Section>
  );
}

async function formsPage(ctx: PageContext, problem?: { kind: Kind; problem: Problem | ApiError;
  values: URLSearchParams }, status?: number): Promise<Outcome> {
  const { t } = ctx;
  const shown = problem?.problem;
  return { kind: 'page', title: 'lookups.title', status, body: (
    <>
      {shown !== undefined && ('key' in shown
        ? <Notice kind="error">{t(shown.key, shown.values)}</Notice>
        : <ApiProblem ctx={ctx} error={shown} />)}
      <p>{t('lookups.lead', { environment: t(`env.${ctx.scope.environment}`),
        available: formatPoints(await available(ctx)) })}</p>
      {(['profile', 'status', 'holders'] as const).map((kind) => (
        <LookupForm key={kind} ctx={ctx} kind={kind}
          values={problem?.kind === kind ? problem.values : undefined} />
      ))}
    </>
  ) };
}

async function previewPage(ctx: PageContext, kind: Kind, parsed: Parsed): Promise<Outcome> {
  const { t } = ctx;
  const price = priceOf(ctx, kind);
  return { kind: 'page', title: 'lookups.title', body: (
    <Section title={`${t('lookups.previewTitle')}: ${t(KINDS[kind].title)}`} id="preview">
      <p>{t('lookups.previewItems', { count: parsed.count })}</p>
      <p class="figure">{t('lookups.previewPrice', { price: formatPoints(price),
        max: formatPoints(price * parsed.count) })}</p>
      <p>{t('lookups.previewAvailable', { available: formatPoints(await available(ctx)) })}</p>
      <PostForm ctx={ctx} action={`/lookups/${kind}/run`} class="stack" once>
        <input type="hidden" name="input" value={ctx.form.get('input') ?? ''} />
        {kind === 'holders' &&
          <input type="hidden" name="bankCode" value={ctx.form.get('bankCode') ?? ''} />}
        <input type="hidden" name="nonce" value={randomBytes(16).toString('base64url')} />
        <LiveConfirmation ctx={ctx} />
        <p class="actions">
          <button type="submit" class="primary">{t('lookups.run')}</button>
          <a href="/dashboard/lookups">{t('lookups.cancel')}</a>
        </p>
      </PostForm>
    </Section>
  ) };
}

// The results of a lookup as rows of text: what the page shows and the CSV holds.
type Table = { columns: string[]; labels: MessageKey[]; rows: Array<Array<string | null>> };

function profileTable(profile: Profile): Table {
  return {
    columns: ['businessRegistrationNumber', 'organizationName', 'representativeName',
      'businessKind', 'corporateRegistrationNumber', 'roadAddress', 'businessType',
      'businessItem', 'openedOn', 'registrationStatus', 'taxationType'],
    labels: ['lookups.col.number', 'lookups.field.organizationName',
      'lookups.field.representativeName', 'lookups.field.businessKind',
      'lookups.field.corporateRegistrationNumber', 'lookups.field.address',
      'lookups.field.industry', 'lookups.field.industry', 'lookups.field.openedOn',
      'lookups.field.registration', 'lookups.field.taxation'],
    rows: [[profile.businessRegistrationNumber, profile.organizationName,
      profile.representativeName, profile.businessKind, profile.corporateRegistrationNumber,
      profile.address?.roadAddress ?? null, profile.industry.businessType,
      profile.industry.businessItem, profile.openedOn, profile.registration?.status ?? null,
      profile.taxation?.type ?? null]],
  };
}

async function run(ctx: PageContext, parsed: Parsed): Promise<Table> {
  const { areas } = ctx.services;
  const caller = ctx.scope;
  if (parsed.kind === 'profile') {
    return profileTable(await areas.businessProfiles.retrieveProfile({ caller,
      businessRegistrationNumber: parsed.number }));
  }
  if (parsed.kind === 'status') {
    const { results } = await areas.registrationStatus.inquireStatuses({ caller,
      businessRegistrationNumbers: parsed.body.businessRegistrationNumbers });
    return {
      columns: ['businessRegistrationNumber', 'status', 'closedOn', 'taxType', 'checkedAt'],
      labels: ['lookups.col.number', 'lookups.col.status', 'lookups.col.closedOn',
        'lookups.col.taxType', 'lookups.col.checkedAt'],
      rows: results.map((item) => [item.businessRegistrationNumber, item.status, item.closedOn,
        item.taxType, item.checkedAt]),
    };
  }
  const { results } = await areas.bankHolders.inquireHolders({ caller,
    accounts: parsed.body.accounts });
  return {
    columns: ['bankCode', 'bankName', 'accountNumber', 'holderName', 'errorCode'],
    labels: ['lookups.col.bank', 'lookups.col.bank', 'lookups.col.account',
      'lookups.col.holder', 'lookups.col.error'],
    rows: results.map((item) => [item.bankCode, findBank(item.bankCode)?.nameKorean ?? null,
      item.accountNumber, item.holderName, item.error?.code ?? null]),
  };
}

const AUDIT = { profile: 'lookup.businessProfile', status: 'lookup.registrationStatus',
  holders: 'lookup.bankHolders' } as const;

// The download carries the results back signed with a key only this session has (its cookie
// value), so a download is the results this session was shown, and no one else's.
const signature = (ctx: PageContext, payload: string) =>
  createHmac('sha256', ctx.session.token).update(`lookup-csv\u0000${payload}`).digest('base64url');

function signatureMatches(ctx: PageContext, payload: string, given: string) {
  const expected = Buffer.from(signature(ctx, payload));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

const CHECKED_AT_COLUMN = 'checkedAt';

async function resultsPage(ctx: PageContext, kind: Kind, table: Table): Promise<Outcome> {
  const { t } = ctx;
  const payload = JSON.stringify({ kind, columns: table.columns, rows: table.rows });
  return { kind: 'page', title: 'lookups.title', body: (
    <Section title={`${t('lookups.results')}: ${t(KINDS[kind].title)}`} id="results">
      <p>{t('lookups.resultsAvailable', { available: formatPoints(await available(ctx)) })}</p>
      <CardTable head={table.columns.map((column, index) => (
        <th key={column}>{t(table.labels[index]!)}</th>
      ))}>
        {table.rows.map((row, rowIndex) => (
          <tr key={rowIndex}>
            {row.map((value, index) => (
              <td key={index} data-label={t(table.labels[index]!)} class="break">
                {value !== null && table.columns[index] === CHECKED_AT_COLUMN
                  ? formatDateTime(new Date(value)) : value ?? '—'}
              </td>
            ))}
          </tr>
        ))}
      </CardTable>
      <PostForm ctx={ctx} action="/lookups/csv" class="actions">
        <input type="hidden" name="results" value={payload} />
        <input type="hidden" name="signature" value={signature(ctx, payload)} />
        <button type="submit" class="primary">{t('lookups.download')}</button>
        <a href="/dashboard/lookups">{t('lookups.again')}</a>
      </PostForm>
    </Section>
  ) };
}

export const lookupsPage: DashboardPage = {
  nav: { label: 'nav.lookups', path: '/lookups', section: 'records',
    permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/lookups', permission: 'account.read',
      handle: (ctx) => formsPage(ctx) },
    {
      method: 'POST', path: '/lookups/:kind/preview', permission: 'lookups.run',
      async handle(ctx) {
        const kind = ctx.params.kind;
        if (!isKind(kind)) return errorOutcome(ctx.t, 'notFound', 404);
        const parsed = parse(kind, ctx.form);
        if (isProblem(parsed)) {
          return formsPage(ctx, { kind, problem: parsed, values: ctx.form }, 400);
        }
        return previewPage(ctx, kind, parsed);
      },
    },
    {
      method: 'POST', path: '/lookups/:kind/run', permission: 'lookups.run',
      async handle(ctx) {
        const kind = ctx.params.kind;
        if (!isKind(kind)) return errorOutcome(ctx.t, 'notFound', 404);
        const problem = (key: MessageKey, status: number) =>
          formsPage(ctx, { kind, problem: { key }, values: ctx.form }, status);
        const parsed = parse(kind, ctx.form);
        if (isProblem(parsed)) {
          return formsPage(ctx, { kind, problem: parsed, values: ctx.form }, 400);
        }
        if (!liveConfirmed(ctx)) return problem('confirm.liveMissing', 400);
        const nonce = ctx.form.get('nonce') ?? '';
        const { rateLimiter } = ctx.services;
        if (!NONCE.test(nonce) || await rateLimiter.attempt(RUN_ONCE.name, RUN_ONCE.policy,
          `${ctx.session.user.userId}:${nonce}`) !== null) {
          return problem('lookups.error.used', 409);
        }
        const retryAfter = await countCall(ctx, KINDS[kind].operation);
        if (retryAfter !== null) {
          ctx.reply.header('retry-after', String(retryAfter));
          return formsPage(ctx, { kind, problem: { key: 'records.rateLimited',
            values: { seconds: retryAfter } }, values: ctx.form }, 429);
        }
        let table: Table;
        try {
          table = await run(ctx, parsed);
        } catch (error) {
          const refusal = asApiError(error);
          return formsPage(ctx, { kind, problem: refusal, values: ctx.form }, refusal.status);
        }
        await ctx.audit(AUDIT[kind], String(parsed.count), ctx.scope.environment);
        return resultsPage(ctx, kind, table);
      },
    },
    {
      method: 'POST', path: '/lookups/csv', permission: 'account.read',
      async handle(ctx) {
        const payload = ctx.form.get('results') ?? '';
        if (!signatureMatches(ctx, payload, ctx.form.get('signature') ?? '')) {
          return formsPage(ctx, { kind: 'profile', problem: { key: 'lookups.error.download' },
            values: new URLSearchParams() }, 400);
        }
        const { kind, columns, rows } = JSON.parse(payload) as { kind: Kind; columns: string[];
          rows: Array<Array<string | null>> };
        const records = rows.map((row) => Object.fromEntries(columns.map((column, index) =>
          [column, row[index]])));
        return { kind: 'download', contentType: 'text/csv; charset=utf-8',
          filename: `etax-${kind}-${ctx.scope.environment}.csv`, body: toCsv(columns, records) };
      },
    },
  ],
};
