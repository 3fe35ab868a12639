import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { IssueBody, type Invoice } from '../../../areas/tax-invoices/index.ts';
import { seoulDate } from '../../../domain/business-days.ts';
import { lineTax } from '../../../domain/tax-amounts.ts';
import { ApiError } from '../../../platform/errors.ts';
import { readTableFile, TableFileError } from '../../../platform/table-files.ts';
import { compileRecordValidator } from '../../../platform/validation.ts';
import { CardTable, Notice, Section } from '../../components.tsx';
import type { DashboardPage, Outcome, PageContext } from '../../context.ts';
import { toCsv } from '../../csv.ts';
import { formatWon } from '../../format.ts';
import type { MessageKey } from '../../i18n/index.ts';
import { attempt, refused } from '../acting.tsx';
import { submitsWhatTheySave } from '../draft-forms.tsx';
import { ACCEPTED_FILES } from '../records/counterparties.tsx';
import { workbook, XLSX_TYPE } from '../spreadsheet.ts';
import { ApiErrorNotice, asApiError, bulkGate, dashboardCaller } from './shared.tsx';
import { suppliers } from './issue.tsx';
import { fileOf, UPLOAD_BYTES_MAX } from '../../uploads.ts';
import { FilePreviewTable } from '../../file-preview.tsx';

// Uploading tax invoices from a spreadsheet (docs/dashboard.md § Uploading tax invoices): a
// template (xlsx or CSV) with one invoice of one item per row, the file's rows turned into issue
// requests and checked row by row exactly as POST /v1/taxInvoices/issue checks a body (the
// area's schema, cell by cell, then the issuance's own rules through previewIssue, which keeps
// and charges nothing), the rows shown with every bad cell marked, then the valid rows issued
// together through the bulk issuance service (the same as POST /v1/taxInvoices:bulkIssue), or
// saved as drafts. Who may save drafts but not issue (a Developer) uploads too, and saves the
// rows as drafts only, submitted for approval where the account requires it, as what they save
// from the form is. The preview's rows travel back with the confirmation, signed for the session,
// so nothing is kept between the two steps and a row cannot be changed in between.

const UPLOAD_ROWS_MAX = 100;

// The columns of the file, each named by its key or its Korean label in the header row.
const UPLOAD_COLUMNS = [
  { key: 'date', label: '작성일자', example: '' },
  { key: 'purpose', label: '영수/청구', example: '청구' },
  { key: 'recipientNumber', label: '공급받는자 등록번호', example: '220-81-62517' },
  { key: 'recipientSubPlace', label: '종사업장번호', example: '' },
  { key: 'recipientName', label: '상호', example: '주식회사 받는곳' },
  { key: 'recipientRepresentative', label: '대표자', example: '이영희' },
  { key: 'recipientAddress', label: '주소', example: '부산광역시 해운대구 센텀중앙로 97' },
  { key: 'recipientBusinessType', label: '업태', example: '도소매' },
  { key: 'recipientBusinessItem', label: '종목', example: '전자제품' },
  { key: 'recipientEmail', label: '담당자 이메일', example: 'account@example.com' },
  { key: 'itemName', label: '품목', example: '클라우드 사용료' },
  { key: 'itemSpecification', label: '규격', example: '' },
  { key: 'quantity', label: '수량', example: '10' },
  { key: 'unitPrice', label: '단가', example: '5000' },
  { key: 'supplyCost', label: '공급가액', example: '50000' },
  { key: 'tax', label: '세액', example: '' },
  { key: 'description', label: '비고', example: '' },
] as const;
type Column = (typeof UPLOAD_COLUMNS)[number]['key'];
const REQUIRED: readonly Column[] = ['recipientNumber', 'recipientName',
  'recipientRepresentative', 'recipientEmail', 'itemName', 'supplyCost'];
const LABELS = new Map<string, string>(UPLOAD_COLUMNS.map((column) => [column.key, column.label]));

const squeeze = (text: string) => text.replace(/\s+/g, '').toLowerCase();
const HEADERS = new Map<string, Column>(UPLOAD_COLUMNS.flatMap((column) =>
  [[squeeze(column.key), column.key], [squeeze(column.label), column.key]]));

// Where a field of the issue body is in the file; null for what no cell holds (the supplier).
const COLUMN_OF_PATH: ReadonlyArray<[RegExp, Column | null]> = [
  [/^\/date/, 'date'], [/^\/purpose/, 'purpose'],
  [/^\/supplied\/identificationNumber/, 'recipientNumber'],
  [/^\/supplied\/taxRegistrationId/, 'recipientSubPlace'],
  [/^\/supplied\/organizationName/, 'recipientName'],
  [/^\/supplied\/representativeName/, 'recipientRepresentative'],
  [/^\/supplied\/address/, 'recipientAddress'],
  [/^\/supplied\/businessType/, 'recipientBusinessType'],
  [/^\/supplied\/businessItem/, 'recipientBusinessItem'],
  [/^\/supplied\/managers/, 'recipientEmail'],
  [/^\/items\/\d+\/date/, 'date'], [/^\/items\/\d+\/name/, 'itemName'],
  [/^\/items\/\d+\/specification/, 'itemSpecification'], [/^\/items\/\d+\/quantity/, 'quantity'],
  [/^\/items\/\d+\/unitPrice/, 'unitPrice'], [/^\/items\/\d+\/supplyCost/, 'supplyCost'],
  [/^\/items\/\d+\/tax/, 'tax'], [/^\/items/, 'supplyCost'],
  [/^\/description/, 'description'],
];

function columnOf(path: string): Column | null {
  return COLUMN_OF_PATH.find(([pattern]) => pattern.test(path))?.[1] ?? null;
}

// The field a service message names first (`body.items[0].tax must …`), as a JSON pointer.
function pathOfMessage(message: string): string | null {
  const match = /\bbody((?:\.[A-Za-z]+|\[\d+\])+)/.exec(message);
  if (match === null) return null;
  return match[1]!.replace(/\[(\d+)\]/g, '.$1').replaceAll('.', '/');
}

const checkBody = compileRecordValidator<Invoice>(IssueBody);

const totalOf = (body: Invoice) => body.items.reduce((sum, item) =>
  sum + item.supplyCost + (item.tax ?? 0), 0);

type Cells = Record<Column, string>;
type RowError = { column: Column | null; message: string };
type CheckedRow = { row: number; cells: Cells; errors: RowError[]; body: Invoice | null };

const amount = (text: string): number | string | null => {
  if (text === '') return null;
  const plain = text.replaceAll(',', '');
  return /^-?\d+(\.\d+)?$/.test(plain) ? Number(plain) : text;
};

const PURPOSES: Record<string, 'RECEIPT' | 'CLAIM'> = { 영수: 'RECEIPT', 청구: 'CLAIM',
  receipt: 'RECEIPT', claim: 'CLAIM' };

// The issue body a row describes, for a supplier; empty optional cells are left out.
function bodyOf(cells: Cells, supplier: Invoice['supplier'], today: string): unknown {
  const optional = (value: string) => (value === '' ? undefined : value);
  const date = cells.date === '' ? today : cells.date;
  const supplyCost = amount(cells.supplyCost);
  const tax = cells.tax === '' && typeof supplyCost === 'number'
    ? lineTax('TAXABLE', supplyCost) : amount(cells.tax);
  return {
    date,
    purpose: PURPOSES[squeeze(cells.purpose)] ?? (cells.purpose === '' ? 'CLAIM' : cells.purpose),
    supplier,
    supplied: {
      identificationNumber: cells.recipientNumber.replaceAll('-', ''),
      taxRegistrationId: optional(cells.recipientSubPlace),
      organizationName: cells.recipientName, representativeName: cells.recipientRepresentative,
      address: optional(cells.recipientAddress),
      businessType: optional(cells.recipientBusinessType),
      businessItem: optional(cells.recipientBusinessItem),
      managers: [{ email: cells.recipientEmail }],
    },
    items: [{ date, name: cells.itemName, specification: optional(cells.itemSpecification),
      quantity: amount(cells.quantity) ?? undefined,
      unitPrice: amount(cells.unitPrice) ?? undefined,
      supplyCost: supplyCost ?? undefined, tax }],
    description: optional(cells.description),
  };
}

// Reads the file's rows; TableFileError when it is no table or lacks a required column.
async function rowsOf(file: Buffer): Promise<Array<{ row: number; cells: Cells }>> {
  const table = await readTableFile(file, { rowsMax: UPLOAD_ROWS_MAX, columnsMax: 50 });
  const indexes = new Map<Column, number>();
  table.headers.forEach((header, index) => {
    const key = HEADERS.get(squeeze(header));
    if (key !== undefined && !indexes.has(key)) indexes.set(key, index);
  });
  const missing = REQUIRED.filter((key) => !indexes.has(key));
  if (missing.length > 0) {
    throw new TableFileError(`The header row lacks ${missing.map((key) =>
      `${LABELS.get(key)} (${key})`).join(', ')}.`);
  }
  return table.rows.map(({ row, cells }) => ({ row, cells: Object.fromEntries(
    UPLOAD_COLUMNS.map(({ key }) => [key, (indexes.has(key) ? cells[indexes.get(key)!] : '')
      ?.replaceAll('\u0000', '\uFFFD') ?? ''])) as Cells }));
}

// Every row checked: the schema's errors cell by cell, then (for a row the schema takes) the
// issuance's own rules, which name the field of their first refusal.
async function checkRows(ctx: PageContext, supplierKey: string, supplier: Invoice['supplier'],
  rows: Array<{ row: number; cells: Cells }>): Promise<CheckedRow[]> {
  const today = seoulDate(ctx.now());
  const caller = dashboardCaller(ctx);
  const checked: CheckedRow[] = [];
  for (const { row, cells } of rows) {
    const result = checkBody(bodyOf(cells, supplier, today));
    if (!result.ok) {
      checked.push({ row, cells, body: null, errors: result.errors.map((error) =>
        ({ column: columnOf(error.path), message: error.message })) });
      continue;
    }
    try {
      await ctx.services.areas.taxInvoices.previewIssue({ caller, supplierKey,
        referenceId: undefined, body: result.value });
      checked.push({ row, cells, body: result.value, errors: [] });
    } catch (error) {
      const refused = asApiError(error);
      const path = pathOfMessage(refused.message);
      checked.push({ row, cells, body: null, errors: [{
        column: path === null ? null : columnOf(path), message: refused.message }] });
    }
  }
  return checked;
}

// ---- The confirmation's payload, signed for the session ----------------------------------------

type Payload = { supplierKey: string; nonce: string; rows: Array<{ row: number; body: Invoice }> };

const signature = (ctx: PageContext, payload: string) => createHmac('sha256', ctx.session.token)
  .update(`invoice-upload\u0000${payload}`).digest('base64url');

function openPayload(ctx: PageContext): Payload | null {
  const payload = ctx.form.get('payload') ?? '';
  const given = Buffer.from(ctx.form.get('signature') ?? '');
  const expected = Buffer.from(signature(ctx, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return JSON.parse(payload) as Payload;
}

// ---- Pages -------------------------------------------------------------------------------------

function UploadForm({ ctx, choices }: { ctx: PageContext;
  choices: Awaited<ReturnType<typeof suppliers>> }) {
  const { t } = ctx;
  if (choices.length === 0) return <Notice kind="info">{t('invoiceUpload.noSupplier')}</Notice>;
  return (
    <form method="post" action="/dashboard/invoice-upload/preview" enctype="multipart/form-data"
      class="stack" data-once="">
      <input type="hidden" name="_csrf" value={ctx.csrf} />
      <label>{t('invoiceUpload.supplier')}
        <select name="supplierKey" required>
          {choices.map((issuer) => (
            <option key={issuer.supplierKey} value={issuer.supplierKey}>
              {issuer.organizationName} ({issuer.identificationNumber})
            </option>
          ))}
        </select>
      </label>
      <label>{t('invoiceUpload.supplierEmail')}
        <input type="email" name="supplierEmail" required maxLength={100}
          value={choices[0]?.contactEmail ?? ''} />
      </label>
      <label>{t('invoiceUpload.file')}
        <input type="file" name="file" required
          accept={ACCEPTED_FILES} />
      </label>
      <button type="submit" class="primary">{t('invoiceUpload.check')}</button>
    </form>
  );
}

async function startPage(ctx: PageContext, problem?: { key?: MessageKey; error?: ApiError },
  status?: number): Promise<Outcome> {
  const { t } = ctx;
  const choices = await suppliers(ctx);
  return { kind: 'page', title: 'invoiceUpload.title', status, body: (
    <>
      {problem?.key !== undefined && <Notice kind="error">{t(problem.key)}</Notice>}
      {problem?.error !== undefined && <ApiErrorNotice ctx={ctx} error={problem.error} />}
      <p>{t(ctx.may('documents.issue') ? 'invoiceUpload.lead' : 'invoiceUpload.leadDrafts',
        { rows: UPLOAD_ROWS_MAX })}</p>
      <Section title={t('invoiceUpload.template')} id="template">
        <p>{t('invoiceUpload.templateLead')}</p>
        <p class="actions">
          <a href="/dashboard/invoice-upload/template.xlsx" download>
            {t('invoiceUpload.templateXlsx')}</a>
          <a href="/dashboard/invoice-upload/template.csv" download>
            {t('invoiceUpload.templateCsv')}</a>
        </p>
      </Section>
      <Section title={t('invoiceUpload.upload')} id="upload">
        <UploadForm ctx={ctx} choices={choices} />
      </Section>
    </>
  ) };
}

function PreviewTable({ ctx, rows }: { ctx: PageContext; rows: CheckedRow[] }) {
  const { t } = ctx;
  return (
    <FilePreviewTable caption={t('invoiceUpload.previewCaption')}
      rowLabel={t('invoiceUpload.row')} resultLabel={t('invoiceUpload.result')}
      columns={UPLOAD_COLUMNS}
      rows={rows.map((row) => ({ row: row.row, errors: row.errors, cells: row.cells,
        ok: row.body === null ? '' : formatWon(totalOf(row.body)) }))} />
  );
}

// The preview and its confirmation: issue the valid rows as one bulk (for who may issue), or
// save them as drafts, submitted at once when what this person saves is (`submits`).
function previewPage(ctx: PageContext, supplierKey: string, rows: CheckedRow[],
  submits: boolean): Outcome {
  const { t } = ctx;
  const issues = ctx.may('documents.issue');
  const valid = rows.flatMap((row) => (row.body === null ? [] : [{ row: row.row,
    body: row.body }]));
  const payload = JSON.stringify({ supplierKey, nonce: randomBytes(16).toString('base64url'),
    rows: valid } satisfies Payload);
  return { kind: 'page', title: 'invoiceUpload.title', body: (
    <>
      <p><a href="/dashboard/invoice-upload">{t('invoiceUpload.again')}</a></p>
      <Section title={t('invoiceUpload.previewTitle')} id="preview">
        <p>{t('invoiceUpload.previewLead', { valid: valid.length,
          invalid: rows.length - valid.length })}</p>
        {valid.length < rows.length && <Notice kind="error">{t(issues
          ? 'invoiceUpload.previewErrors' : 'invoiceUpload.previewErrorsDrafts',
          { count: rows.length - valid.length })}</Notice>}
        <PreviewTable ctx={ctx} rows={rows} />
        {valid.length > 0 ? (
          <form method="post" action={`/dashboard/invoice-upload/${issues ? 'issue' : 'drafts'}`}
            enctype="multipart/form-data" class="actions" data-once="">
            <input type="hidden" name="_csrf" value={ctx.csrf} />
            <input type="hidden" name="payload" value={payload} />
            <input type="hidden" name="signature" value={signature(ctx, payload)} />
            {issues && (
              <button type="submit" class="primary">
                {t('invoiceUpload.issue', { count: valid.length })}</button>)}
            <button type="submit" class={issues ? 'secondary' : 'primary'}
              formAction="/dashboard/invoice-upload/drafts">
              {t(submits ? 'invoiceUpload.importDraftsSubmit' : 'invoiceUpload.importDrafts',
                { count: valid.length })}</button>
          </form>
        ) : <p>{t('invoiceUpload.nothing')}</p>}
      </Section>
    </>
  ) };
}

async function previewOutcome(ctx: PageContext): Promise<Outcome> {
  const file = fileOf(ctx.files, 'file');
  if (file === undefined || file.buffer.length === 0) {
    return startPage(ctx, { key: 'invoiceUpload.error.noFile' }, 400);
  }
  if (file.truncated || file.buffer.length > UPLOAD_BYTES_MAX) {
    return startPage(ctx, { key: 'invoiceUpload.error.tooLarge' }, 413);
  }
  const supplierKey = ctx.form.get('supplierKey') ?? '';
  const supplier = (await suppliers(ctx)).find((issuer) => issuer.supplierKey === supplierKey);
  if (supplier === undefined) return startPage(ctx, { key: 'invoiceUpload.error.supplier' }, 400);
  let rows: Array<{ row: number; cells: Cells }>;
  try {
    rows = await rowsOf(file.buffer);
  } catch (error) {
    if (!(error instanceof TableFileError)) throw error;
    return startPage(ctx, { error: new ApiError('INVALID_FILE', error.message) }, 400);
  }
  const checked = await checkRows(ctx, supplierKey, {
    identificationNumber: supplier.identificationNumber,
    taxRegistrationId: supplier.taxRegistrationId,
    organizationName: supplier.organizationName,
    representativeName: supplier.representativeName,
    manager: { email: (ctx.form.get('supplierEmail') ?? '').trim() },
  }, rows);
  return previewPage(ctx, supplierKey, checked, await submitsWhatTheySave(ctx));
}

async function template(kind: 'csv' | 'xlsx'): Promise<Outcome> {
  const headers = UPLOAD_COLUMNS.map((column) => column.label);
  const example = Object.fromEntries(UPLOAD_COLUMNS.map((column) =>
    [column.label, column.example]));
  if (kind === 'csv') {
    return { kind: 'download', filename: 'tax-invoices-template.csv',
      contentType: 'text/csv; charset=utf-8', body: toCsv(headers, [example]) };
  }
  return { kind: 'download', filename: 'tax-invoices-template.xlsx', contentType: XLSX_TYPE,
    body: await workbook([{ name: '세금계산서', columns: headers.map((header) =>
      ({ header, key: header, width: 18 })), rows: [example] }]) };
}

// Issues the confirmed rows as one bulk; its reference id is the preview's, so the same
// confirmation sent twice acts once.
async function issueOutcome(ctx: PageContext): Promise<Outcome> {
  const payload = openPayload(ctx);
  if (payload === null) return startPage(ctx, { key: 'invoiceUpload.error.expired' }, 400);
  const referenceId = uploadReferenceId(payload);
  const gate = await bulkGate(ctx, { operation: 'taxInvoices.bulkIssue',
    itemOperation: 'taxInvoices.issue', count: payload.rows.length,
    madeBefore: () => ctx.services.areas.taxInvoiceBulks.isReferenceTaken(dashboardCaller(ctx),
      referenceId) });
  if ('error' in gate) return startPage(ctx, { error: gate.error }, gate.error.status);
  return issueRows(ctx, payload, { referenceId, giveBack: gate.giveBack });
}

// The bulk's reference id, made from the preview's nonce.
function uploadReferenceId(payload: Payload): string {
  return `dash-upload-${payload.nonce}`;
}

type Accepted = Awaited<ReturnType<
  PageContext['services']['areas']['taxInvoiceBulks']['bulkIssue']>>;

function resultPage(ctx: PageContext, payload: Payload, bulk: Accepted): Outcome {
  const { t } = ctx;
  return { kind: 'page', title: 'invoiceUpload.title', body: (
    <>
      <Notice kind={bulk.refusedCount === 0 ? 'success' : 'error'}>
        {t('invoiceUpload.issued', { accepted: bulk.acceptedCount, refused: bulk.refusedCount })}
      </Notice>
      <p class="actions">
        <a href="/dashboard/tax-invoices">{t('invoiceUpload.toList')}</a>
        <a href="/dashboard/invoice-upload">{t('invoiceUpload.again')}</a>
      </p>
      <Section title={t('invoiceUpload.resultTitle')} id="result">
        <CardTable head={<>
          <th>{t('invoiceUpload.row')}</th><th>{t('invoiceUpload.result')}</th>
        </>}>
          {bulk.items.map((item, index) => (
            <tr key={index} data-row={payload.rows[index]?.row}>
              <td data-label={t('invoiceUpload.row')}>{payload.rows[index]?.row}</td>
              <td data-label={t('invoiceUpload.result')} class="break">
                {item.issuanceKey !== null
                  ? <a href={`/dashboard/tax-invoices/${item.issuanceKey}`}>
                    {item.issuanceKey}</a>
                  : <span class="state bad">{item.error?.code}</span>}
                {item.error !== null && <> <span lang="en">{item.error.message}</span></>}
              </td>
            </tr>
          ))}
        </CardTable>
      </Section>
    </>
  ) };
}

// One bulk of the confirmed rows, each row's document with a reference id of its own made from
// the preview's nonce: the same confirmation sent again (a double click, a reload) answers the
// bulk it made, and never issues a row twice.
async function issueRows(ctx: PageContext, payload: Payload,
  made: { referenceId: string; giveBack: (() => Promise<void>) | null }): Promise<Outcome> {
  const { referenceId, giveBack } = made;
  try {
    const bulk = await ctx.services.areas.taxInvoiceBulks.bulkIssue({
      caller: dashboardCaller(ctx), referenceId,
      items: payload.rows.map((row) => ({ clientReferenceId: `${referenceId}-${row.row}`,
        supplierKey: payload.supplierKey, document: row.body })),
      onTaken: async () => giveBack?.() });
    await ctx.audit('taxInvoice.uploaded', bulk.bulkId, ctx.scope.environment);
    return resultPage(ctx, payload, bulk);
  } catch (error) {
    return startPage(ctx, { error: asApiError(error) }, asApiError(error).status);
  }
}

// Saves the confirmed rows as drafts instead (docs/drafts.md), one per row, through the drafts
// service; the import's reference id is made from the preview's nonce, so the same
// confirmation sent again answers the drafts it saved and saves none twice. What this person
// saves is submitted for approval where the rule says so (draft-forms.tsx), each draft by the
// drafts service's own submit, as the form submits one; a draft submitted already stays so.
async function importDraftsOutcome(ctx: PageContext): Promise<Outcome> {
  const payload = openPayload(ctx);
  if (payload === null) return startPage(ctx, { key: 'invoiceUpload.error.expired' }, 400);
  const drafts = ctx.services.areas.taxInvoiceDrafts;
  const caller = dashboardCaller(ctx);
  try {
    const { draftIds } = await drafts.importMany({ caller,
      supplierKey: payload.supplierKey, bodies: payload.rows.map((row) => row.body),
      referenceId: `dash-upload-drafts-${payload.nonce}` });
    if (!(await submitsWhatTheySave(ctx))) {
      return { kind: 'redirect', to: '/dashboard/drafts?notice=drafts.imported' };
    }
    let unsubmitted = 0;
    for (const draftId of draftIds) {
      if (refused(await attempt(() => drafts.submit({ caller, draftId })))) unsubmitted += 1;
    }
    return { kind: 'redirect', to: `/dashboard/drafts?notice=${unsubmitted === 0
      ? 'drafts.importedSubmitted' : 'drafts.importedNotAllSubmitted'}` };
  } catch (error) {
    return startPage(ctx, { error: asApiError(error) }, asApiError(error).status);
  }
}

export const invoiceUploadPage: DashboardPage = {
  nav: { label: 'nav.invoiceUpload', path: '/invoice-upload', section: 'issuing',
    permission: 'drafts.submit' },
  routes: [
    { method: 'GET', path: '/invoice-upload', permission: 'drafts.submit',
      handle: (ctx) => startPage(ctx) },
    { method: 'GET', path: '/invoice-upload/template.xlsx', permission: 'account.read',
      handle: () => template('xlsx') },
    { method: 'GET', path: '/invoice-upload/template.csv', permission: 'account.read',
      handle: () => template('csv') },
    { method: 'POST', path: '/invoice-upload/preview', permission: 'drafts.submit',
      handle: previewOutcome },
    { method: 'POST', path: '/invoice-upload/issue', permission: 'documents.issue',
      handle: issueOutcome },
    { method: 'POST', path: '/invoice-upload/drafts', permission: 'drafts.submit',
      handle: importDraftsOutcome },
  ],
};
