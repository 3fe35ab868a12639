import { Type, type Static, type TObject } from 'typebox';

// Every webhook event type, with the schema of its `data` (docs/webhooks.md § Event types). An
// area that emits events adds its types here; recordEvent accepts only these types, with data
// of the matching shape, so a payload can never drift from its documentation.
//
// `subscribable` says whether endpoints subscribe to the type and recordEvent announces it. The
// one type that is not, WEBHOOK_TEST, reports nothing that happened: it is sent on request to
// one endpoint (POST /v1/webhookEndpoints/{endpointId}:test), so no endpoint may subscribe to
// it and no area may record it.

const Cause = Type.Object(
  {
    code: Type.String({ description: 'Why issuance failed, e.g. `NOT_FOUND_CERTIFICATE`.' }),
    message: Type.String({ description: 'Human-readable description.' }),
  },
  { additionalProperties: false },
);

// The issuers area's certificate registration history record.
const CertificateRegistration = Type.Object(
  {
    identifier: Type.String({ description: 'Identifier of the registration history record.' }),
    issuerId: Type.String({ description: 'The issuer the certificate was registered for.' }),
    occurredAt: Type.String({ format: 'date-time', description: 'When it happened (UTC).' }),
    code: Type.String({ description: 'Outcome code of the registration.' }),
    message: Type.String({ description: 'Human-readable description.' }),
  },
  { additionalProperties: false },
);

// A reverse issuance request's payload: its key, which every later request event repeats.
const ReverseIssuanceRequest = Type.Object(
  {
    issuanceKey: Type.String({ description: 'The issuance key of the reverse issuance request.' }),
  },
  { additionalProperties: false },
);

// The tax-invoices area's mail of an issued invoice: which document, which mail, to whom.
const invoiceMailFields = {
  issuanceKey: Type.String({ description: 'The issuance key of the tax invoice mailed.' }),
  mailId: Type.String({ description: 'The mail, `mail_…`: one per issuance or resend.' }),
  to: Type.String({ description: 'The address the invoice was sent to.' }),
  cc: Type.Array(Type.String(), { description: 'The addresses copied, possibly none.' }),
};

// A bulk issuance that is complete: every accepted document reached a final state
// (docs/bulk-issuance.md).
const bulkCompleted = (what: string) => Type.Object(
  {
    bulkId: Type.String({ description: 'The bulk, `blk_…`.' }),
    clientReferenceId: Type.String({ description: 'The bulk request\'s ' +
      '`Service-Client-Reference-Id`.' }),
    itemCount: Type.Integer({ description: `${what}s sent.` }),
    acceptedCount: Type.Integer({ description: `${what}s accepted.` }),
    refusedCount: Type.Integer({ description: `${what}s refused.` }),
    counts: Type.Record(Type.String(), Type.Integer(), { description: `How many accepted ` +
      `${what.toLowerCase()}s are in each state, every state named.` }),
  },
  { additionalProperties: false },
);
// The drafts area's events (docs/drafts.md § Events): which draft, who acted, and what it
// became or why it came back.
const draftFields = (actor: string) => ({
  draftId: Type.String({ description: 'The draft, `drf_…`.' }),
  actor: Type.String({ description: actor }),
});
const DraftSubmitted = Type.Object(draftFields('The API key id, or `dashboard:<user id>`, ' +
  'that submitted it.'), { additionalProperties: false });
const DraftApproved = Type.Object({ ...draftFields('The `dashboard:<user id>` of the approver.'),
  issuanceKey: Type.String({ description: 'The document it became.' }) },
{ additionalProperties: false });
const DraftReturned = Type.Object({ ...draftFields('The `dashboard:<user id>` of the approver.'),
  reason: Type.String({ description: 'Why it was sent back.' }) },
{ additionalProperties: false });

type CatalogueEntry = { area: string; subscribable: boolean; description: string; data: TObject };

export const EVENT_CATALOGUE = {
  TAX_INVOICE_ISSUANCE_SUCCESS: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'A tax invoice was transmitted to the tax authority, which gave it its ' +
      'approval number (status TRANSMITTED).',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the tax invoice.' }),
        taxInvoiceUrl: Type.String({ description: 'URL of the issued tax invoice viewer.' }),
      },
      { additionalProperties: false },
    ),
  },
  TAX_INVOICE_ISSUANCE_FAILURE: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'A tax invoice issuance request failed.',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the failed request.' }),
        cause: Cause,
      },
      { additionalProperties: false },
    ),
  },
  TAX_INVOICE_BULK_COMPLETED: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'Every tax invoice a bulk accepted reached a final state (TRANSMITTED, ' +
      'FAILED or CANCELED). Sent once per bulk.',
    data: bulkCompleted('Tax invoice'),
  },
  TAX_INVOICE_REVERSE_ISSUANCE_REQUESTED: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'A reverse issuance request was made and awaits the supplier\'s decision.',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the request.' }),
        issueDeadline: Type.String({ format: 'date',
          description: 'The last day the supplier can approve it (Seoul date).' }),
      },
      { additionalProperties: false },
    ),
  },
  TAX_INVOICE_REVERSE_ISSUANCE_APPROVED: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'The supplier approved a reverse issuance request; issuance follows, and ' +
      'ends in TAX_INVOICE_ISSUANCE_SUCCESS or _FAILURE.',
    data: ReverseIssuanceRequest,
  },
  TAX_INVOICE_REVERSE_ISSUANCE_REFUSED: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'The supplier refused a reverse issuance request; its points were refunded.',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the request.' }),
        reason: Type.Union([Type.String(), Type.Null()],
          { description: 'The reason the supplier gave, or null.' }),
      },
      { additionalProperties: false },
    ),
  },
  TAX_INVOICE_REVERSE_ISSUANCE_CANCELED: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'The requester canceled a reverse issuance request; its points were refunded.',
    data: ReverseIssuanceRequest,
  },
  TAX_INVOICE_AMENDMENT_ISSUED: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'An amendment of a tax invoice was accepted: its documents are on their way ' +
      'to the tax authority, and each ends in TAX_INVOICE_ISSUANCE_SUCCESS or _FAILURE.',
    data: Type.Object(
      {
        originalIssuanceKey: Type.String({ description: 'The issuance key of the amended ' +
          'tax invoice.' }),
        reason: Type.String({ description: 'The amendment reason, e.g. `TERMINATION`.' }),
        issuanceKeys: Type.Array(Type.String(), { description: 'The issuance keys of the ' +
          'amendment\'s documents, in order (two for ENTRY_CORRECTION and ' +
          'LOCAL_LETTER_OF_CREDIT, one otherwise).' }),
      },
      { additionalProperties: false },
    ),
  },
  TAX_INVOICE_EMAIL_SENT: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'The mail that delivers a transmitted tax invoice (or its resend) was ' +
      'accepted by the SMTP server.',
    data: Type.Object(
      {
        ...invoiceMailFields,
        sentAt: Type.String({ format: 'date-time', description: 'When the SMTP server ' +
          'accepted it (UTC).' }),
      },
      { additionalProperties: false },
    ),
  },
  TAX_INVOICE_EMAIL_FAILED: {
    area: 'tax-invoices',
    subscribable: true,
    description: 'The mail that delivers a tax invoice (or its resend) bounced: the SMTP ' +
      'server refused it, or could not be reached, on every attempt.',
    data: Type.Object(
      {
        ...invoiceMailFields,
        reason: Type.String({ description: 'The last failure: an error code and the SMTP ' +
          'reply code, e.g. `EENVELOPE, SMTP 550`.' }),
      },
      { additionalProperties: false },
    ),
  },
  CERTIFICATE_REGISTRATION_SUCCESS: {
    area: 'issuers',
    subscribable: true,
    description: 'A joint certificate was registered for an issuer.',
    data: CertificateRegistration,
  },
  CERTIFICATE_REGISTRATION_FAILURE: {
    area: 'issuers',
    subscribable: true,
    description: 'A joint certificate registration for an issuer failed.',
    data: CertificateRegistration,
  },
  CASH_RECEIPT_ISSUED: {
    area: 'cash-receipts',
    subscribable: true,
    description: 'The tax authority approved a cash receipt (an issuance, not a cancellation).',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the cash receipt.' }),
        clientReferenceId: Type.String({ description: 'The request\'s ' +
          '`Service-Client-Reference-Id`.' }),
        approvalNumber: Type.String({ description: 'The 9-digit approval number.' }),
        tradeDate: Type.String({ format: 'date', description: 'The trade date (Seoul).' }),
        totalAmount: Type.Integer({ description: 'The receipt\'s total, in won.' }),
      },
      { additionalProperties: false },
    ),
  },
  CASH_RECEIPT_CANCELED: {
    area: 'cash-receipts',
    subscribable: true,
    description: 'The tax authority approved a cancellation receipt: the original is canceled ' +
      'in full or in part.',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the cancellation.' }),
        clientReferenceId: Type.String({ description: 'The cancellation\'s ' +
          '`Service-Client-Reference-Id`.' }),
        originalIssuanceKey: Type.String({ description: 'The canceled cash receipt.' }),
        approvalNumber: Type.String({ description: 'The cancellation\'s 9-digit approval ' +
          'number.' }),
        canceledAmount: Type.Integer({ description: 'What this cancellation canceled, in won.' }),
        remainingAmount: Type.Integer({ description: 'What remains of the original after ' +
          'every accepted cancellation, in won; 0 when it is canceled in full.' }),
      },
      { additionalProperties: false },
    ),
  },
  CASH_RECEIPT_FAILED: {
    area: 'cash-receipts',
    subscribable: true,
    description: 'The tax authority did not approve a cash receipt or a cancellation; its ' +
      'points were refunded.',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the failed receipt.' }),
        clientReferenceId: Type.String({ description: 'The request\'s ' +
          '`Service-Client-Reference-Id`.' }),
        kind: Type.Union([Type.Literal('ISSUANCE'), Type.Literal('CANCELLATION')],
          { description: 'Whether an issuance or a cancellation failed.' }),
        cause: Cause,
      },
      { additionalProperties: false },
    ),
  },
  CASH_RECEIPT_BULK_COMPLETED: {
    area: 'cash-receipts',
    subscribable: true,
    description: 'Every cash receipt a bulk accepted was decided by the tax authority ' +
      '(ISSUED, TRANSMITTED or FAILED). Sent once per bulk.',
    data: bulkCompleted('Cash receipt'),
  },
  CASH_RECEIPT_TRANSMITTED: {
    area: 'cash-receipts',
    subscribable: true,
    description: 'An approved cash receipt or cancellation was transmitted to the tax ' +
      'authority (the next day in production).',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the receipt.' }),
        approvalNumber: Type.String({ description: 'Its 9-digit approval number.' }),
      },
      { additionalProperties: false },
    ),
  },
  DOCUMENT_ISSUANCE_SUCCESS: {
    area: 'documents',
    subscribable: true,
    description: 'A requested document was issued; its PDF can be downloaded.',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the document request.' }),
        type: Type.String({ description: 'The document type, e.g. ' +
          '`BUSINESS_REGISTRATION_CERTIFICATE`.' }),
        documentUrl: Type.String({ description: 'URL of the original PDF.' }),
      },
      { additionalProperties: false },
    ),
  },
  DOCUMENT_ISSUANCE_FAILURE: {
    area: 'documents',
    subscribable: true,
    description: 'A document request failed; its reserved points were released.',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the document request.' }),
        type: Type.String({ description: 'The document type.' }),
        cause: Cause,
      },
      { additionalProperties: false },
    ),
  },
  BANK_ACCOUNT_SYNCED: {
    area: 'bank-transactions',
    subscribable: true,
    description: 'A sync of a bank account read its transactions from the bank.',
    data: Type.Object(
      {
        bankAccountId: Type.String({ description: 'The bank account, `bac_…`.' }),
        syncId: Type.String({ description: 'The sync, `bsy_…`.' }),
        counts: Type.Object({
          listed: Type.Integer({ description: 'Lines the bank listed.' }),
          created: Type.Integer({ description: 'New transactions.' }),
          updated: Type.Integer({ description: 'Transactions the bank corrected.' }),
          unchanged: Type.Integer({ description: 'Transactions already stored as they are.' }),
        }, { additionalProperties: false }),
      },
      { additionalProperties: false },
    ),
  },
  BANK_ACCOUNT_SYNC_FAILED: {
    area: 'bank-transactions',
    subscribable: true,
    description: 'A sync of a bank account failed; nothing it read was kept.',
    data: Type.Object(
      {
        bankAccountId: Type.String({ description: 'The bank account, `bac_…`.' }),
        syncId: Type.String({ description: 'The sync, `bsy_…`.' }),
        cause: Type.Object({
          code: Type.String({ description: 'Why it failed, e.g. `INVALID_CREDENTIALS`.' }),
          message: Type.String({ description: 'Human-readable description.' }),
        }, { additionalProperties: false }),
      },
      { additionalProperties: false },
    ),
  },
  BANK_TRANSACTION_CREATED: {
    area: 'bank-transactions',
    subscribable: true,
    description: 'A sync found new transactions of a bank account: up to 100 per event, in ' +
      'booking order; a sync that found more sends several.',
    data: Type.Object(
      {
        bankAccountId: Type.String({ description: 'The bank account, `bac_…`.' }),
        syncId: Type.String({ description: 'The sync that found them.' }),
        transactionIds: Type.Array(Type.String(), { minItems: 1, maxItems: 100,
          description: 'The new transactions, `btx_…`.' }),
      },
      { additionalProperties: false },
    ),
  },
  TAX_INVOICE_DRAFT_SUBMITTED: {
    area: 'drafts',
    subscribable: true,
    description: 'A tax invoice draft was submitted for approval: the account requires it, and ' +
      'whoever asked to issue it may not issue without it (status SUBMITTED).',
    data: DraftSubmitted,
  },
  TAX_INVOICE_DRAFT_APPROVED: {
    area: 'drafts',
    subscribable: true,
    description: 'An approver approved a tax invoice draft, which was issued with it (status ' +
      'ISSUED, `issuanceKey` set).',
    data: DraftApproved,
  },
  TAX_INVOICE_DRAFT_RETURNED: {
    area: 'drafts',
    subscribable: true,
    description: 'An approver sent a tax invoice draft back with a reason; it can be edited ' +
      'again (status DRAFT).',
    data: DraftReturned,
  },
  CASH_RECEIPT_DRAFT_SUBMITTED: {
    area: 'drafts',
    subscribable: true,
    description: 'A cash receipt draft was submitted for approval: the account requires it, and ' +
      'whoever asked to issue it may not issue without it (status SUBMITTED).',
    data: DraftSubmitted,
  },
  CASH_RECEIPT_DRAFT_APPROVED: {
    area: 'drafts',
    subscribable: true,
    description: 'An approver approved a cash receipt draft, which was issued with it (status ' +
      'ISSUED, `issuanceKey` set).',
    data: DraftApproved,
  },
  CASH_RECEIPT_DRAFT_RETURNED: {
    area: 'drafts',
    subscribable: true,
    description: 'An approver sent a cash receipt draft back with a reason; it can be edited ' +
      'again (status DRAFT).',
    data: DraftReturned,
  },
  WEBHOOK_TEST: {
    area: 'webhooks',
    subscribable: false,
    description: 'A test event, sent on request to one endpoint to check its receiver. Nothing ' +
      'happened in the account.',
    data: Type.Object(
      {
        endpointId: Type.String({ description: 'The endpoint the test was sent to.' }),
        message: Type.String({ description: 'A note for people that this is only a test.' }),
      },
      { additionalProperties: false },
    ),
  },
} as const satisfies Record<string, CatalogueEntry>;

export type EventType = keyof typeof EVENT_CATALOGUE;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

export type EventData<T extends EventType> = Static<(typeof EVENT_CATALOGUE)[T]['data']>;

// The types endpoints subscribe to: every type but the test event's.
export type SubscribableEventType = {
  [T in EventType]: (typeof EVENT_CATALOGUE)[T]['subscribable'] extends true ? T : never;
}[EventType];
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter(
  (type): type is SubscribableEventType => EVENT_CATALOGUE[type].subscribable);

// One event of a subscribable type, with data that matches its type: what recordEvent takes.
export type EventInput = {
  [T in SubscribableEventType]: { type: T; data: EventData<T> };
}[SubscribableEventType];
