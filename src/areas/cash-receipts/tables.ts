import { sql } from 'drizzle-orm';
import {
  check, date, index, integer, jsonb, pgTable, text, uniqueIndex,
} from 'drizzle-orm/pg-core';
import { transmittedDocumentTimes, won } from '../../platform/db/columns.ts';
import { stepQueueTable } from '../../platform/step-queue.ts';

// Tables of the cash-receipts area (docs/cash-receipts.md). Every row carries the account and
// environment of the key that made it, and every read filters by both, so a test receipt does
// not exist for a live key and one account never sees another's.

export type CashReceiptKind = 'ISSUANCE' | 'CANCELLATION';
export type CashReceiptStatus = 'ACCEPTED' | 'ISSUED' | 'TRANSMITTED' | 'FAILED';
export type CashReceiptCustomer = { name?: string | null; email?: string | null;
  phone?: string | null };

// One cash receipt: an issuance, or a cancellation receipt that names the issuance it cancels
// (in full or in part). The issuance key is its id.
export const cashReceipts = pgTable(
  'cash_receipts',
  {
    issuanceKey: text('issuance_key').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    // The key that made the request, and the request's reference id (required, unique per key).
    apiKeyId: text('api_key_id').notNull(),
    clientReferenceId: text('client_reference_id').notNull(),
    kind: text('kind').$type<CashReceiptKind>().notNull(),
    status: text('status').$type<CashReceiptStatus>().notNull(),
    // The merchant (an issuer of the key), as it was when the request was accepted.
    issuerId: text('issuer_id').notNull(),
    merchantNumber: text('merchant_number').notNull(),
    merchantName: text('merchant_name').notNull(),
    merchantRepresentative: text('merchant_representative').notNull(),
    tradeDate: date('trade_date', { mode: 'string' }).notNull(),
    usage: text('usage').$type<'INCOME_DEDUCTION' | 'EXPENSE_PROOF'>().notNull(),
    // The identity number, digits only (identity-numbers.ts): the authority needs it whole, so
    // it is sealed with the issuance key as context; responses, the PDF and the mail show the
    // masked form. `identity_number` holds it in clear only in rows written before sealing,
    // until migrateData seals them at start.
    sealedIdentityNumber: text('sealed_identity_number'),
    maskedIdentityNumber: text('masked_identity_number'),
    plaintextIdentityNumber: text('identity_number'),
    taxation: text('taxation').$type<'TAXABLE' | 'TAX_FREE'>().notNull(),
    tradeOption: text('trade_option')
      .$type<'GENERAL' | 'BOOKS_PERFORMANCES' | 'PUBLIC_TRANSPORT'>().notNull(),
    supplyCost: won('supply_cost').notNull(),
    tax: won('tax').notNull(),
    serviceFee: won('service_fee').notNull(),
    totalAmount: won('total_amount').notNull(),
    itemName: text('item_name').notNull(),
    customer: jsonb('customer').$type<CashReceiptCustomer>(),
    // Issuances: what accepted cancellations take from it, per amount. A cancellation adds its
    // amounts in the transaction that accepts it (with the row locked) and gives them back if
    // the authority does not approve it, so their sum never exceeds the original.
    canceledSupplyCost: won('canceled_supply_cost').notNull().default(0),
    canceledTax: won('canceled_tax').notNull().default(0),
    canceledServiceFee: won('canceled_service_fee').notNull().default(0),
    canceledAmount: won('canceled_amount').notNull().default(0),
    // Cancellations: the reason and the original.
    cancelReason: text('cancel_reason'),
    originalIssuanceKey: text('original_issuance_key'),
    originalApprovalNumber: text('original_approval_number'),
    originalTradeDate: date('original_trade_date', { mode: 'string' }),
    approvalNumber: text('approval_number'),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    // Points charged when the request was accepted, refunded when the authority does not
    // approve it: debited in the transaction that recorded the receipt, as the ledger entry
    // `chargeEntryId`; receipts accepted before that was so were captured from a reservation
    // (`reservationId`).
    chargedPoints: integer('charged_points').notNull(),
    chargeEntryId: text('charge_entry_id'),
    reservationId: text('reservation_id'),
    ...transmittedDocumentTimes(),
  },
  (table) => [
    index('cash_receipts_scope_sequence_idx')
      .on(table.accountId, table.environment, table.sequence),
    index('cash_receipts_scope_trade_date_idx')
      .on(table.accountId, table.environment, table.tradeDate, table.sequence),
    uniqueIndex('cash_receipts_reference_idx').on(table.apiKeyId, table.clientReferenceId),
    // What the account's dashboard users made, by reference id: any key of the account finds them
    // by the status lookup (docs/dashboard.md § Cash receipts, documents, books and bank
    // transactions).
    index('cash_receipts_dashboard_reference_idx')
      .on(table.accountId, table.environment, table.clientReferenceId)
      .where(sql`${table.apiKeyId} like 'dashboard:%'`),
    index('cash_receipts_original_idx').on(table.originalIssuanceKey)
      .where(sql`${table.originalIssuanceKey} is not null`),
    check('cash_receipts_environment_known', sql`${table.environment} in ('test', 'live')`),
    check('cash_receipts_kind_known', sql`${table.kind} in ('ISSUANCE', 'CANCELLATION')`),
    check('cash_receipts_status_known',
      sql`${table.status} in ('ACCEPTED', 'ISSUED', 'TRANSMITTED', 'FAILED')`),
    check('cash_receipts_reference_length',
      sql`char_length(${table.clientReferenceId}) between 1 and 255`),
    check('cash_receipts_total', sql`${table.totalAmount} =
      ${table.supplyCost} + ${table.tax} + ${table.serviceFee}`),
    check('cash_receipts_amounts_not_negative', sql`${table.supplyCost} >= 0 and ${table.tax} >= 0
      and ${table.serviceFee} >= 0 and ${table.totalAmount} > 0`),
    check('cash_receipts_canceled_within_total', sql`${table.canceledAmount} >= 0 and
      ${table.canceledAmount} <= ${table.totalAmount} and
      ${table.canceledSupplyCost} between 0 and ${table.supplyCost} and
      ${table.canceledTax} between 0 and ${table.tax} and
      ${table.canceledServiceFee} between 0 and ${table.serviceFee}`),
    check('cash_receipts_cancellation_names_original', sql`(${table.kind} = 'CANCELLATION') =
      (${table.originalIssuanceKey} is not null)`),
    check('cash_receipts_issued_has_approval_number', sql`${table.status} in ('ACCEPTED',
      'FAILED') or ${table.approvalNumber} ~ '^[0-9]{9}$'`),
    check('cash_receipts_charged_points', sql`${table.chargedPoints} >= 0`),
    check('cash_receipts_identity_number_kept', sql`(${table.sealedIdentityNumber} is not null
      and ${table.maskedIdentityNumber} is not null)
      or ${table.plaintextIdentityNumber} is not null`),
  ],
);

export type CashReceiptStep = 'APPROVAL' | 'TRANSMISSION';

// The workers' queue (docs/cash-receipts.md § Processing): one row per receipt with a step still
// to run (approval while ACCEPTED, transmission while ISSUED), when it is due, its attempt and
// its lease. It is a table of its own so that the receipt's own changes (status, approval
// number, times) touch none of the receipt's indexes and PostgreSQL rewrites the row in place (a
// heap-only update), and the queue's changes, leases included, are those of a narrow row with
// one index (platform/step-queue.ts).
export const cashReceiptSteps = stepQueueTable<CashReceiptStep>('cash_receipt_steps',
  ['APPROVAL', 'TRANSMISSION']);
