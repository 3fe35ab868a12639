import { sequenceCursors, type PageCursors } from '../../../platform/cursor.ts';
import type { Db } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { Caller, Scope } from '../../../platform/scope.ts';
import { failureOfRow } from '../../../platform/stored-failure.ts';
import { maskedIdentityNumberOf } from '../identity-numbers.ts';
import type { CashReceiptView } from '../schemas.ts';
import * as store from '../store.ts';
import type { CashReceiptStatus } from '../tables.ts';

// Reading cash receipts (docs/cash-receipts.md): one receipt, lists, status by reference id and
// the PDF. Everything is scoped to the calling key's account and environment; a receipt of
// another scope is 404 NOT_FOUND.

type RetrievalDeps = {
  db: Db;
  renderPdf(row: store.CashReceiptRow): Promise<Buffer>;
  cursors: PageCursors;
};

export const NO_SUCH_RECEIPT = 'No cash receipt has this issuance key.';

const STATUS_MESSAGES: Record<CashReceiptStatus, string> = {
  ACCEPTED: 'Accepted; waiting for the tax authority\'s approval.',
  ISSUED: 'Approved by the tax authority; it will be transmitted.',
  TRANSMITTED: 'Approved and transmitted to the tax authority.',
  FAILED: 'The tax authority did not approve it; see failure on the cash receipt.',
};

function toCashReceipt(row: store.CashReceiptRow): CashReceiptView {
  const issuance = row.kind === 'ISSUANCE';
  return {
    issuanceKey: row.issuanceKey,
    kind: row.kind,
    status: row.status,
    approvalNumber: row.approvalNumber,
    failure: failureOfRow(row),
    clientReferenceId: row.clientReferenceId,
    issuerId: row.issuerId,
    merchant: { businessRegistrationNumber: row.merchantNumber,
      organizationName: row.merchantName, representativeName: row.merchantRepresentative },
    tradeDate: row.tradeDate,
    usage: row.usage,
    identityNumber: maskedIdentityNumberOf(row),
    taxation: row.taxation,
    tradeOption: row.tradeOption,
    supplyCost: row.supplyCost,
    tax: row.tax,
    serviceFee: row.serviceFee,
    totalAmount: row.totalAmount,
    itemName: row.itemName,
    customer: row.customer ?? null,
    canceledAmount: issuance ? row.canceledAmount : null,
    remainingAmount: issuance ? row.totalAmount - row.canceledAmount : null,
    cancelReason: (row.cancelReason as CashReceiptView['cancelReason']) ?? null,
    originalIssuanceKey: row.originalIssuanceKey,
    originalApprovalNumber: row.originalApprovalNumber,
    originalTradeDate: row.originalTradeDate,
    issuedAt: row.issuedAt?.toISOString() ?? null,
    transmittedAt: row.transmittedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// The receipt, or 404 NOT_FOUND: what every read, and a cancellation, first looks up.
export async function requireReceipt(db: Db, scope: Scope, issuanceKey: string) {
  const row = await store.findReceipt(db, scope, issuanceKey);
  if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_RECEIPT);
  return row;
}

export function createRetrievalService(deps: RetrievalDeps) {
  const { db } = deps;
  const listCursors = sequenceCursors(deps.cursors, 'cashReceipts.list');

  async function get(input: { scope: Scope; issuanceKey: string }) {
    return toCashReceipt(await requireReceipt(db, input.scope, input.issuanceKey));
  }

  async function list(input: { scope: Scope; filters: Omit<store.ListFilters, 'afterSequence'>;
    limit: number; cursor?: string | undefined }) {
    const afterSequence = listCursors.decode(input.scope, input.cursor);
    const rows = await store.listReceipts(db, input.scope, { ...input.filters, afterSequence },
      input.limit + 1);
    const { page, nextCursor } = listCursors.pageOf(input.scope, rows, input.limit);
    return { cashReceipts: page.map(toCashReceipt), nextCursor };
  }

  // After a network failure the client learns the outcome here instead of guessing; resending
  // the same request is safe too (it replays). A reference id the key never used may be one a
  // dashboard user of its account and environment made (the dashboard shows it on the receipt).
  async function statusByReference(input: { caller: Caller; referenceId: string }) {
    const row = await store.findByReferenceId(db, input.caller.apiKeyId, input.referenceId) ??
      await store.findDashboardByReferenceId(db, input.caller, input.referenceId);
    if (row === null) {
      throw new ApiError('NOT_FOUND', 'No cash receipt request was made with this ' +
        'clientReferenceId, by this API key or in the dashboard of its account and environment.');
    }
    return { issuanceKey: row.issuanceKey, kind: row.kind,
      clientReferenceId: row.clientReferenceId, status: row.status,
      approvalNumber: row.approvalNumber, message: STATUS_MESSAGES[row.status] };
  }

  async function pdf(input: { scope: Scope; issuanceKey: string }) {
    return deps.renderPdf(await requireReceipt(db, input.scope, input.issuanceKey));
  }

  return { get, list, statusByReference, pdf };
}

export type RetrievalService = ReturnType<typeof createRetrievalService>;
