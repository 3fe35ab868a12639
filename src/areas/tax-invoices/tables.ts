import { sql } from 'drizzle-orm';
import {
  bigserial, boolean, check, date, index, integer, jsonb, pgTable, text,
} from 'drizzle-orm/pg-core';
import { timestampTz, transmittedDocumentTimes, won } from '../../platform/db/columns.ts';
import type { Invoice, TaxInvoiceStatus, TaxType } from './schemas.ts';

// Tables of the tax-invoices area (docs/tax-invoices.md). Every row carries the account and
// environment of the key that made it, and every read filters by both, so a test invoice does
// not exist for a live key and one account never sees another's.

const environmentKnown = (name: string, column: unknown) =>
  check(name, sql`${column} in ('test', 'live')`);

// One tax invoice document, or a reverse issuance request that may become one. The issuance key
// is its id. An amendment is a document of its own that names the original.
export const taxInvoices = pgTable(
  'tax_invoices',
  {
    issuanceKey: text('issuance_key').primaryKey(),
    accountId: text('account_id').notNull(),
    environment: text('environment').notNull(),
    // The key that made the request; reference ids and their status lookup are per key.
    apiKeyId: text('api_key_id').notNull(),
    clientReferenceId: text('client_reference_id'),
    // The supplier: for a reverse issuance request, the issuer that must approve it.
    issuerId: text('issuer_id').notNull(),
    // The issuer's Supplier-Key, with which jobs ask the issuers area for its signer.
    supplierKey: text('supplier_key').notNull(),
    // STANDARD (정발행) or REVERSE (역발행).
    issuanceType: text('issuance_type').notNull(),
    status: text('status').$type<TaxInvoiceStatus>().notNull(),
    invoice: jsonb('invoice').$type<Invoice>().notNull(),
    writeDate: date('write_date', { mode: 'string' }).notNull(),
    // The issue deadline of the write date (10th of the next month, next business day).
    issueDeadline: date('issue_deadline', { mode: 'string' }).notNull(),
    // Issued after the issue deadline but by the VAT return deadline of its tax period
    // (지연발급, acceptance/late-issuance.ts): decided when accepted, or when a reverse issuance
    // request is approved.
    lateIssuance: boolean('late_issuance').notNull(),
    counterpartNumber: text('counterpart_number').notNull(),
    // TAXABLE (세금계산서), ZERO_RATED (영세율: every item's tax is 0) or TAX_FREE (계산서:
    // every item's tax is null).
    taxType: text('tax_type').$type<TaxType>().notNull(),
    supplyCostTotal: won('supply_cost_total').notNull(),
    taxTotal: won('tax_total').notNull(),
    totalAmount: won('total_amount').notNull(),
    // Points charged for the document when the request was accepted; refunded when it ends
    // without issuance. Debited in the transaction that recorded the request, as the ledger
    // entry `chargeEntryId` (one per request: the two documents of an entry correction share
    // it); documents accepted before that was so were captured from a reservation
    // (`reservationId`), whose refund is paid only once it is captured.
    chargedPoints: integer('charged_points').notNull(),
    chargeEntryId: text('charge_entry_id'),
    reservationId: text('reservation_id'),
    // Amendments: the reason code and the original document.
    amendmentReason: integer('amendment_reason'),
    originalIssuanceKey: text('original_issuance_key'),
    originalNtsTransactionId: text('original_nts_transaction_id'),
    // Documents made together by one request (the two of an entry correction, for example).
    requestGroup: text('request_group'),
    // The signature over the canonical document (processing/signing.ts), once issued.
    signedDigest: text('signed_digest'),
    signature: text('signature'),
    // The certificate that signed it (DER, base64), for documents signed before it was kept with
    // their XML (xml/tables.ts); null for the others.
    signingCertificate: text('signing_certificate'),
    ntsTransactionId: text('nts_transaction_id'),
    failureCode: text('failure_code'),
    failureMessage: text('failure_message'),
    ...transmittedDocumentTimes(),
  },
  (table) => [
    index('tax_invoices_scope_sequence_idx')
      .on(table.accountId, table.environment, table.sequence),
    index('tax_invoices_scope_write_date_idx')
      .on(table.accountId, table.environment, table.writeDate, table.sequence),
    index('tax_invoices_reference_idx')
      .on(table.apiKeyId, table.clientReferenceId)
      .where(sql`${table.clientReferenceId} is not null`),
    // What the account's dashboard users made, by reference id: any key of the account finds them
    // by the status lookup (docs/dashboard.md § Cash receipts, documents, books and bank
    // transactions).
    index('tax_invoices_dashboard_reference_idx')
      .on(table.accountId, table.environment, table.clientReferenceId)
      .where(sql`${table.apiKeyId} like 'dashboard:%'`),
    index('tax_invoices_original_idx').on(table.originalIssuanceKey),
    // Failed (and refused) invoices only, for the newest failures of a scope (the dashboard's
    // home page). Its condition is the failure code a failed document always has, not the
    // status: an index that depends on the status would take a new entry, as every other index
    // would, at each status change, where the change can otherwise rewrite the row in place.
    index('tax_invoices_failed_idx').on(table.accountId, table.environment, table.sequence)
      .where(sql`${table.failureCode} is not null`),
    environmentKnown('tax_invoices_environment_known', table.environment),
    check('tax_invoices_issuance_type_known',
      sql`${table.issuanceType} in ('STANDARD', 'REVERSE')`),
    check('tax_invoices_status_known', sql`${table.status} in ('REQUESTED', 'APPROVED',
      'REFUSED', 'REQUEST_CANCELED', 'PENDING', 'ISSUED', 'TRANSMITTING', 'TRANSMITTED',
      'CANCELED', 'FAILED')`),
    check('tax_invoices_tax_type_known',
      sql`${table.taxType} in ('TAXABLE', 'ZERO_RATED', 'TAX_FREE')`),
    check('tax_invoices_amendment_reason', sql`${table.amendmentReason} between 1 and 6`),
    check('tax_invoices_amendment_names_original', sql`(${table.amendmentReason} is null) =
      (${table.originalIssuanceKey} is null)`),
    check('tax_invoices_total', sql`${table.totalAmount} =
      ${table.supplyCostTotal} + ${table.taxTotal}`),
    check('tax_invoices_charged_points', sql`${table.chargedPoints} >= 0`),
    check('tax_invoices_transmitted_has_approval_number', sql`${table.status} <> 'TRANSMITTED'
      or ${table.ntsTransactionId} ~ '^[0-9]{16}[0-9a-z]{8}$'`),
  ],
);

// Every state change of a document, append-only: what happened, when, and why.
export const taxInvoiceStatusChanges = pgTable(
  'tax_invoice_status_changes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    issuanceKey: text('issuance_key').notNull().references(() => taxInvoices.issuanceKey),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    // Who made the change: API, JOB, APPROVAL_PAGE, EMAIL or DASHBOARD.
    actor: text('actor').notNull(),
    message: text('message'),
    occurredAt: timestampTz('occurred_at').notNull().defaultNow(),
  },
  (table) => [
    index('tax_invoice_status_changes_invoice_idx').on(table.issuanceKey, table.id),
  ],
);
