import { Type, type Static, type TObject } from 'typebox';

// Every webhook event type, with the schema of its `data` (docs/webhooks.md § Event types). An
// area that emits events adds its types here; recordEvent accepts only these types, with data
// of the matching shape, so a payload can never drift from its documentation.

const Cause = Type.Object(
  {
    code: Type.String({ description: 'Why issuance failed, e.g. `NOT_FOUND_CERTIFICATE`.' }),
    message: Type.String({ description: 'Human-readable description.' }),
  },
  { additionalProperties: false },
);

// The issuers area's certificate registration history record (spec §2.3).
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

type CatalogueEntry = { area: string; description: string; data: TObject };

export const EVENT_CATALOGUE = {
  TAX_INVOICE_ISSUANCE_SUCCESS: {
    area: 'tax-invoices',
    description: 'A tax invoice was issued.',
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
    description: 'A tax invoice issuance request failed.',
    data: Type.Object(
      {
        issuanceKey: Type.String({ description: 'The issuance key of the failed request.' }),
        cause: Cause,
      },
      { additionalProperties: false },
    ),
  },
  TAX_INVOICE_REVERSE_ISSUANCE_REQUESTED: {
    area: 'tax-invoices',
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
    description: 'The supplier approved a reverse issuance request; issuance follows, and ' +
      'ends in TAX_INVOICE_ISSUANCE_SUCCESS or _FAILURE.',
    data: ReverseIssuanceRequest,
  },
  TAX_INVOICE_REVERSE_ISSUANCE_REFUSED: {
    area: 'tax-invoices',
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
    description: 'The requester canceled a reverse issuance request; its points were refunded.',
    data: ReverseIssuanceRequest,
  },
  TAX_INVOICE_AMENDMENT_ISSUED: {
    area: 'tax-invoices',
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
  CERTIFICATE_REGISTRATION_SUCCESS: {
    area: 'issuers',
    description: 'A joint certificate was registered for an issuer.',
    data: CertificateRegistration,
  },
  CERTIFICATE_REGISTRATION_FAILURE: {
    area: 'issuers',
    description: 'A joint certificate registration for an issuer failed.',
    data: CertificateRegistration,
  },
} as const satisfies Record<string, CatalogueEntry>;

export type EventType = keyof typeof EVENT_CATALOGUE;
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as EventType[];

export type EventData<T extends EventType> = Static<(typeof EVENT_CATALOGUE)[T]['data']>;

// One event of any type, with data that matches its type.
export type EventInput = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];
