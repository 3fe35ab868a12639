import {
  DEADLINE_WRITE_DATE_MAX,
  issueDeadline,
  seoulDate,
  vatReturnDeadline,
} from '../../../domain/business-days.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import {
  BIGINT_COLUMN_MAX,
  cursorInteger,
  type CursorList,
  type PageCursors,
} from '../../../platform/cursor.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { Caller, Scope } from '../../../platform/scope.ts';
import type { HolidayCalendar } from '../holidays/calendar.ts';
import { endWithoutIssuance, type LifecycleDeps } from '../lifecycle.ts';
import type { PdfInput } from '../pdf/input.ts';
import {
  amendmentReasonOfCode,
  type AmendmentReason,
  type Invoice,
  type StandardIssueBody,
  type Supplied,
  type TaxInvoiceStatus,
} from '../schemas.ts';
import * as store from '../store.ts';
import { draftPreview, validatedDocument, type Accept } from './acceptance.ts';
import type { TaxInvoiceView } from './schemas.ts';
import { lateIssuancePenaltyOf } from './late-issuance.ts';
import type { IssueValidation } from './schemas.ts';
import type { Static } from '@fastify/type-provider-typebox';
import { validateInvoice } from './validation.ts';

// Tax invoices (docs/tax-invoices.md): issuance, its status by reference id, retrieval, lists,
// PDF and cancellation before transmission. Everything is scoped to the calling key's account
// and environment; a document of another scope is 404 NOT_FOUND, never 403.

// The recipient fields of a counterparty of the book (the counterparties area), for an issuance
// whose `supplied` names one; throws ApiError when the scope has no such counterparty or it may
// not receive invoices (it is closed).
export type RecipientOf = (scope: Scope, counterpartyId: string) =>
  Promise<Omit<Supplied, 'managers'> & { managers: Supplied['managers'] | [] }>;

type IssuanceDeps = LifecycleDeps & {
  // Absent when no counterparty book is wired (then a counterpartyId is refused).
  recipientOf?: RecipientOf;
  db: Db;
  accept: Accept;
  // Points per document (the price table's taxInvoices.issue).
  unitPoints: number;
  holidays: Pick<HolidayCalendar, 'added'>;
  now: () => Date;
  cursors: PageCursors;
};

const ISSUE_ROUTE = '/v1/taxInvoices/issue';

const NO_SUCH_INVOICE = 'No tax invoice has this issuance key.';


// What each status means to a client polling by reference id.
const STATUS_MESSAGES: Record<TaxInvoiceStatus, string> = {
  REQUESTED: 'The reverse issuance request waits for the supplier\'s approval.',
  APPROVED: 'The supplier approved the request; the invoice is being issued.',
  REFUSED: 'The supplier refused the reverse issuance request.',
  REQUEST_CANCELED: 'The reverse issuance request was canceled.',
  PENDING: 'Accepted; the invoice is being signed and issued.',
  ISSUED: 'Issued; it will be transmitted to the tax authority.',
  TRANSMITTING: 'Being transmitted to the tax authority.',
  TRANSMITTED: 'Issued and transmitted to the tax authority.',
  CANCELED: 'Canceled by the supplier before transmission.',
  FAILED: 'Issuance failed; see failure on the tax invoice.',
};

function toTaxInvoice(row: store.TaxInvoiceRow): TaxInvoiceView {
  const reason = row.amendmentReason === null ? undefined
    : amendmentReasonOfCode(row.amendmentReason);
  return {
    issuanceKey: row.issuanceKey,
    status: row.status,
    ntsTransactionId: row.ntsTransactionId,
    issuedAt: row.issuedAt?.toISOString() ?? null,
    invoice: row.invoice,
    issuanceType: row.issuanceType as TaxInvoiceView['issuanceType'],
    issuerId: row.issuerId,
    clientReferenceId: row.clientReferenceId,
    taxType: row.taxType,
    totals: { supplyCost: row.supplyCostTotal, tax: row.taxTotal, total: row.totalAmount },
    amendment: reason === undefined ? null : {
      reason,
      reasonCode: row.amendmentReason!,
      originalIssuanceKey: row.originalIssuanceKey!,
      originalNtsTransactionId: row.originalNtsTransactionId!,
    },
    failure: row.failureCode === null ? null
      : { code: row.failureCode, message: row.failureMessage ?? '' },
    issueDeadline: row.issueDeadline,
    lateIssuance: row.lateIssuance,
    lateIssuancePenalty: row.lateIssuance ? lateIssuancePenaltyOf(row.taxType) : null,
    transmittedAt: row.transmittedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function pdfInput(row: store.TaxInvoiceRow): PdfInput {
  const view = toTaxInvoice(row);
  return {
    issuanceKey: row.issuanceKey,
    environment: row.environment as PdfInput['environment'],
    status: row.status,
    ntsTransactionId: row.ntsTransactionId,
    issuedAt: row.issuedAt,
    taxType: row.taxType,
    totals: view.totals,
    amendment: view.amendment === null ? null : {
      reason: view.amendment.reason as AmendmentReason,
      originalNtsTransactionId: view.amendment.originalNtsTransactionId,
    },
    invoice: row.invoice,
    lateIssuance: row.lateIssuance,
  };
}

const listOf = (scope: Scope): CursorList => ({ list: 'taxInvoices.list', scope });

function decodeListCursor(cursors: PageCursors, scope: Scope, cursor: string | undefined,
  list: (scope: Scope) => CursorList = listOf): number | undefined {
  if (cursor === undefined) return undefined;
  const [sequence] = cursors.decode<[number]>(list(scope), cursor,
    [cursorInteger(0, BIGINT_COLUMN_MAX)]);
  return sequence;
}

// After a network failure the client learns the outcome here instead of resending.
// A reference id this key never used names no request: 404 NOT_FOUND, as for cash receipts and
// for an unknown issuance key (docs/tax-invoices.md); 400 is for a malformed one.
// The caller's own request by its reference id; else one a dashboard user of the caller's
// account and environment made with it (the reference id the dashboard shows on the document),
// so the account's systems find what its people issued in the dashboard.
async function statusByReference(db: Db, input: { caller: Caller; referenceId: string }) {
  const own = await store.findByReferenceId(db, input.caller.apiKeyId, input.referenceId);
  const rows = own.length > 0 ? own
    : await store.findDashboardByReferenceId(db, input.caller, input.referenceId);
  const first = rows[0];
  if (first === undefined) {
    throw new ApiError('NOT_FOUND', 'No tax invoice request was made with this ' +
      'clientReferenceId, by this API key or in the dashboard of its account and environment.');
  }
  return {
    issuanceKey: first.issuanceKey,
    issuanceKeys: rows.map((row) => row.issuanceKey),
    clientReferenceId: input.referenceId,
    status: first.status,
    message: STATUS_MESSAGES[first.status],
  };
}

type BrowseInput = {
  scope: Scope;
  filters: Omit<store.BrowseFilters, 'beforeSequence'>;
  limit: number;
  cursor?: string | undefined;
};

// How many of the latest documents the recipients offered again are taken from.
const RECENT_RECIPIENT_DOCUMENTS = 500;

type ListInput = {
  scope: Scope;
  filters: Omit<store.ListFilters, 'afterSequence'>;
  limit: number;
  cursor?: string | undefined;
};

type IssueInput = { caller: Caller; supplierKey: string; referenceId: string | undefined;
  body: Invoice;
  // A request that issues something kept (a draft, src/areas/drafts/): the route its reference
  // id's fingerprint names, and its own work in the transaction that records the document
  // (acceptance.ts: guard before, onRecorded after), which commits with it or not at all.
  route?: string;
  guard?(tx: Tx): Promise<void>;
  onRecorded?(tx: Tx, issuanceKeys: string[]): Promise<void>;
};

// The document of an issue request whose recipient may be named by a counterparty: its fields
// copied in from the book. The request's fingerprint stays that of the body as sent.
async function resolveRecipient(deps: IssuanceDeps, caller: Caller, body: StandardIssueBody):
Promise<Invoice> {
  const { supplied } = body;
  if (!('counterpartyId' in supplied)) return { ...body, supplied };
  if (deps.recipientOf === undefined) {
    throw new ApiError('INVALID_REQUEST', 'body.supplied.counterpartyId is not accepted here.');
  }
  const recipient = await deps.recipientOf(
    { accountId: caller.accountId, environment: caller.environment }, supplied.counterpartyId);
  const managers = supplied.managers ?? recipient.managers;
  if (managers.length === 0) {
    throw new ApiError('INVALID_REQUEST', 'body.supplied.managers is required: the ' +
      'counterparty has no manager to send the invoice to.');
  }
  return { ...body, supplied: { ...recipient, managers: managers as Supplied['managers'] } };
}

// The acceptance request of an issuance: the document validated as the issue route requires.
async function issueRequest(deps: IssuanceDeps, input: IssueInput):
Promise<Parameters<Accept>[0]> {
  const today = seoulDate(deps.now());
  const holidays = await deps.holidays.added();
  return {
    caller: input.caller, supplierKey: input.supplierKey, referenceId: input.referenceId,
    route: input.route ?? ISSUE_ROUTE, body: input.body, issuanceType: 'STANDARD',
    ...(input.guard === undefined ? {} : { guard: input.guard }),
    ...(input.onRecorded === undefined ? {} : { onRecorded: (tx: Tx,
      rows: store.NewTaxInvoiceRow[]) => input.onRecorded!(tx,
      rows.map((row) => row.issuanceKey!)) }),
    consignor: () => (input.body.broker == null ? null
      : input.body.supplier.identificationNumber),
    draft: (issuer, supplierPeriods) => [{ amendment: null, validated: validateInvoice(
      input.body, { today, amounts: 'forward', deadline: 'enforced', holidays, supplierPeriods,
      supplier: { identificationNumber: issuer.identificationNumber,
        taxRegistrationId: issuer.taxRegistrationId } }) }],
  };
}

// What issue would answer, without its effect: the same request, checked by the same steps
// (acceptance.ts, validate), and nothing charged, claimed or recorded.
async function validateIssue(deps: IssuanceDeps, input: IssueInput):
Promise<Static<typeof IssueValidation>> {
  const { issuer, drafts, points } = await deps.accept.validate(
    await issueRequest(deps, input), deps.unitPoints);
  return {
    valid: true,
    supplier: { issuerId: issuer.id, identificationNumber: issuer.identificationNumber },
    documents: drafts.map(validatedDocument),
    price: { operation: 'taxInvoices.issue', points },
  };
}

// The newest-first list's cursors open only there, not in the API's oldest-first list.
const browseListOf = (scope: Scope): CursorList => ({ list: 'taxInvoices.browse', scope });

// What people looking for documents read (the dashboard): lists newest first, a document's
// history, the recipients of the latest documents.
function createBrowsing(db: Db, cursors: PageCursors) {
  // Newest first, for people looking for documents (the dashboard's list and its exports); the
  // cursor is the last sequence of a page, as the API list's.
  async function browse(input: BrowseInput) {
    const beforeSequence = decodeListCursor(cursors, input.scope, input.cursor, browseListOf);
    const rows = await store.browseInvoices(db, input.scope, { ...input.filters, beforeSequence },
      input.limit + 1);
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    return {
      taxInvoices: page.map(toTaxInvoice),
      nextCursor: rows.length > input.limit && last
        ? cursors.encode(browseListOf(input.scope), [last.sequence]) : null,
    };
  }

  // Every status change of a document, oldest first: who made it, when and why.
  async function history(input: { scope: Scope; issuanceKey: string }) {
    const row = await store.findInvoice(db, input.scope, input.issuanceKey);
    if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_INVOICE);
    const changes = await store.findStatusChanges(db, row.issuanceKey);
    return changes.map((change) => ({ from: change.fromStatus as TaxInvoiceStatus | null,
      to: change.toStatus as TaxInvoiceStatus, actor: change.actor, message: change.message,
      occurredAt: change.occurredAt.toISOString() }));
  }

  // The recipients of the scope's latest invoices, each once, newest first.
  async function recentRecipients(input: { scope: Scope; limit: number }) {
    return store.recentRecipients(db, input.scope, RECENT_RECIPIENT_DOCUMENTS, input.limit);
  }

  return { browse, history, recentRecipients };
}

export function createIssuanceService(deps: IssuanceDeps) {
  const { db } = deps;
  async function requireInvoice(scope: Scope, issuanceKey: string) {
    const row = await store.findInvoice(db, scope, issuanceKey);
    if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_INVOICE);
    return row;
  }

  // The issue route's request: the recipient by its fields or by a counterparty.
  async function issue(input: Omit<IssueInput, 'body'> & { body: StandardIssueBody }) {
    const body = await resolveRecipient(deps, input.caller, input.body);
    const request = await issueRequest(deps, { ...input, body });
    const accepted = await deps.accept({ ...request, body: input.body }, deps.unitPoints);
    return { issuanceKey: accepted.issuanceKeys[0]! };
  }

  // The document an issuance would make, checked as issue checks it; nothing is kept or
  // charged.
  const previewIssue = async (input: IssueInput) =>
    (await deps.accept.preview(await issueRequest(deps, input))).map(draftPreview);

  async function get(input: { scope: Scope; issuanceKey: string }) {
    return toTaxInvoice(await requireInvoice(input.scope, input.issuanceKey));
  }

  async function list(input: ListInput) {
    const afterSequence = decodeListCursor(deps.cursors, input.scope, input.cursor);
    const rows = await store.listInvoices(db, input.scope, { ...input.filters, afterSequence },
      input.limit + 1);
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    return {
      taxInvoices: page.map(toTaxInvoice),
      nextCursor: rows.length > input.limit && last
        ? deps.cursors.encode(listOf(input.scope), [last.sequence]) : null,
    };
  }

  async function pdf(input: { scope: Scope; issuanceKey: string }) {
    const row = await requireInvoice(input.scope, input.issuanceKey);
    // pdfkit and the fonts load with the first PDF, not at every start (docs/operations.md
    // § Start-up): a server that never renders one never pays for them.
    const { renderTaxInvoicePdf } = await import('../pdf/render.ts');
    return renderTaxInvoicePdf(pdfInput(row));
  }

  // Withdraws an issued document before it is transmitted; afterwards only an
  // amendment can change it. Its points are refunded.
  async function cancel(input: { scope: Scope; issuanceKey: string; actor?: store.Actor }) {
    const row = await requireInvoice(input.scope, input.issuanceKey);
    const canceled = await db.transaction((tx) => endWithoutIssuance(deps, tx, {
      issuanceKey: row.issuanceKey, from: ['PENDING', 'ISSUED'], to: 'CANCELED',
      actor: input.actor ?? 'API',
      message: 'Canceled by the supplier before transmission.' }));
    if (canceled === null) {
      const current = await requireInvoice(input.scope, input.issuanceKey);
      throw new ApiError('TAX_INVOICE_NOT_CANCELABLE', `The tax invoice is ${current.status}; ` +
        'only a PENDING or ISSUED invoice can be canceled. A transmitted invoice is changed ' +
        'by an amendment.');
    }
    return { issuanceKey: canceled.issuanceKey, status: canceled.status };
  }

  async function issueDueDate(date: string) {
    if (date > DEADLINE_WRITE_DATE_MAX) {
      throw new ApiError('INVALID_REQUEST', 'query.date has no issue deadline: that of a ' +
        `write date after ${DEADLINE_WRITE_DATE_MAX} falls past the year 9999.`);
    }
    const added = await deps.holidays.added();
    return { issueDueDate: issueDeadline(date, added),
      lateIssuanceLimit: vatReturnDeadline(date, added) };
  }

  // The scope's latest failed invoices, newest first.
  async function recentFailures(input: { scope: Scope; limit: number }) {
    return (await store.listRecentFailures(db, input.scope, input.limit)).map(toTaxInvoice);
  }

  return { issue, previewIssue,
    validateIssue: async (input: Omit<IssueInput, 'body'> & { body: StandardIssueBody }) =>
      validateIssue(deps, { ...input, body: await resolveRecipient(deps, input.caller,
        input.body) }),
    statusByReference: (input: Parameters<typeof statusByReference>[1]) =>
    statusByReference(db, input), get, list, ...createBrowsing(db, deps.cursors), pdf, cancel,
    issueDueDate, recentFailures };
}

export type IssuanceService = ReturnType<typeof createIssuanceService>;
