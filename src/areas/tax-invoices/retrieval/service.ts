import {
  DEADLINE_WRITE_DATE_MAX,
  issueDeadline,
  vatReturnDeadline,
} from '../../../domain/business-days.ts';
import type { Db } from '../../../platform/db/connect.ts';
import { sequenceCursors, type PageCursors } from '../../../platform/cursor.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { Caller, Scope } from '../../../platform/scope.ts';
import { failureOfRow } from '../../../platform/stored-failure.ts';
import { lateIssuancePenaltyOf } from '../acceptance/late-issuance.ts';
import type { HolidayCalendar } from '../holidays/calendar.ts';
import { pdfInputOfRow } from '../pdf/of-row.ts';
import {
  amendmentReasonOfCode,
  type TaxInvoiceStatus,
} from '../schemas.ts';
import * as store from '../store.ts';
import type { TaxInvoiceView } from './schemas.ts';

// Reading tax invoices (docs/tax-invoices.md): a request's status by its reference id, a
// document, the API's list, the PDF, the issue deadline of a write date, and what the dashboard
// reads (lists newest first, a document's history, recent recipients and failures). Everything
// is scoped to the calling key's account and environment; a document of another scope is 404
// NOT_FOUND, never 403.

type RetrievalDeps = {
  db: Db;
  holidays: Pick<HolidayCalendar, 'added'>;
  cursors: PageCursors;
};

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
    failure: failureOfRow(row),
    issueDeadline: row.issueDeadline,
    lateIssuance: row.lateIssuance,
    lateIssuancePenalty: row.lateIssuance ? lateIssuancePenaltyOf(row.taxType) : null,
    transmittedAt: row.transmittedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
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

// What people looking for documents read (the dashboard): lists newest first, a document's
// history, the recipients of the latest documents.
function createBrowsing(db: Db, cursors: PageCursors) {
  // The newest-first list's cursors open only there, not in the API's oldest-first list.
  const browseCursors = sequenceCursors(cursors, 'taxInvoices.browse');

  // Newest first, for people looking for documents (the dashboard's list and its exports); the
  // cursor is the last sequence of a page, as the API list's.
  async function browse(input: BrowseInput) {
    const beforeSequence = browseCursors.decode(input.scope, input.cursor);
    const rows = await store.browseInvoices(db, input.scope, { ...input.filters, beforeSequence },
      input.limit + 1);
    const { page, nextCursor } = browseCursors.pageOf(input.scope, rows, input.limit);
    return { taxInvoices: page.map(toTaxInvoice), nextCursor };
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

export function createRetrievalService(deps: RetrievalDeps) {
  const { db } = deps;
  const listCursors = sequenceCursors(deps.cursors, 'taxInvoices.list');
  async function requireInvoice(scope: Scope, issuanceKey: string) {
    const row = await store.findInvoice(db, scope, issuanceKey);
    if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_INVOICE);
    return row;
  }

  async function get(input: { scope: Scope; issuanceKey: string }) {
    return toTaxInvoice(await requireInvoice(input.scope, input.issuanceKey));
  }

  async function list(input: ListInput) {
    const afterSequence = listCursors.decode(input.scope, input.cursor);
    const rows = await store.listInvoices(db, input.scope, { ...input.filters, afterSequence },
      input.limit + 1);
    const { page, nextCursor } = listCursors.pageOf(input.scope, rows, input.limit);
    return { taxInvoices: page.map(toTaxInvoice), nextCursor };
  }

  async function pdf(input: { scope: Scope; issuanceKey: string }) {
    const row = await requireInvoice(input.scope, input.issuanceKey);
    // pdfkit and the fonts load with the first PDF, not at every start (docs/operations.md
    // § Start-up): a server that never renders one never pays for them.
    const { renderTaxInvoicePdf } = await import('../pdf/render.ts');
    return renderTaxInvoicePdf(pdfInputOfRow(row));
  }

  async function issueDueDate({ date }: { date: string }) {
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

  return {
    statusByReference: (input: Parameters<typeof statusByReference>[1]) =>
      statusByReference(db, input),
    get, list, ...createBrowsing(db, deps.cursors), pdf, issueDueDate, recentFailures,
  };
}

export type RetrievalService = ReturnType<typeof createRetrievalService>;
