import { Type, type Static } from '@fastify/type-provider-typebox';
import { ReferenceIdHeaderValue } from '../../platform/idempotency/reference-id-header.ts';
import { PRINTED_TEXT_PATTERN } from '../../domain/text.ts';

// The TypeBox schemas every capability of the area shares (docs/tax-invoices.md): the tax
// invoice document, its statuses and amendment reason codes, and the headers, path parameters,
// body and answer of every request that makes documents (issuance, amendments, reverse
// issuance). Each capability's own request and response schemas are in its schemas.ts.
//
// The document as clients send it and read it back, in this shape: `date`, `purpose`,
// `supplier` (with one `manager`), `supplied` (the recipient, with `managers`), `items` and
// `description`. The schema checks shapes and lengths; the rules between fields (checksums,
// totals, dates, deadlines) are in acceptance/validation.ts, which names the field in every
// message.

// Text a person types and a document prints (src/domain/text.ts: no control or bidirectional
// formatting characters, not only spaces).
// Characters outside the Basic Multilingual Plane are refused by acceptance/validation.ts with a
// message of their own, because the tax authority's forms cannot hold them.
export const PRINTABLE = PRINTED_TEXT_PATTERN;
const text = (minLength: number, maxLength: number, description: string, example: string) =>
  Type.String({ minLength, maxLength, pattern: PRINTABLE, description, examples: [example] });
const optionalText = (maxLength: number, description: string, example: string) =>
  Type.Optional(Type.Union([text(1, maxLength, description, example), Type.Null()]));

// Whole won. 13 digits per amount keeps the sum of the most items (ITEMS_MAX supply costs and
// as many taxes) a safe integer.
export const AMOUNT_ABS_MAX = 9_999_999_999_999;
// Line items per document: the standard XML numbers them 1 to 99 (SequenceNumeric), and
// accredited platforms accept up to 99. Hometax's web form shows 16, which is only a form's limit.
export const ITEMS_MAX = 99;
const MANAGERS_MAX = 2;

const Amount = (description: string) => Type.Integer({
  minimum: -AMOUNT_ABS_MAX, maximum: AMOUNT_ABS_MAX, description,
});

const DateString = (description: string, example: string) =>
  Type.String({ format: 'date', description, examples: [example] });

export const Manager = Type.Object(
  {
    email: Type.String({ format: 'email', minLength: 3, maxLength: 100,
      description: 'Where the tax invoice is sent.', examples: ['tax@example.co.kr'] }),
    name: optionalText(30, 'Contact person.', '김담당'),
    telephone: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9+() -]{1,20}$',
      description: 'Phone number: digits, spaces, +, -, ( and ).',
      examples: ['010-1234-5678'] }), Type.Null()])),
  },
  { title: 'TaxInvoiceManager', additionalProperties: false },
);

// A party's fields besides its number and managers: the recipient's are also a counterparty's
// (the counterparties area), so both check them with the same schema.
export const partyFields = {
  taxRegistrationId: Type.Optional(Type.Union([Type.String({
    pattern: '^(?!0000)[0-9]{4}$',
    description: 'Sub-place (종사업장) number: four digits, not 0000.', examples: ['0001'],
  }), Type.Null()])),
  organizationName: text(1, 100, 'Business name (상호).', '주식회사 이택스'),
  representativeName: text(1, 50, 'Representative name (대표자명).', '홍길동'),
  address: optionalText(200, 'Business address (주소).', '서울특별시 중구 세종대로 110'),
  businessType: optionalText(100, 'Business type (업태).', '서비스'),
  businessItem: optionalText(100, 'Business item (종목).', '소프트웨어 개발'),
};

export const Supplier = Type.Object(
  {
    identificationNumber: Type.String({ pattern: '^[0-9]{10}$',
      description: 'Business registration number, ten digits without hyphens. It must be the ' +
        'number of the issuer the `Supplier-Key` header names, unless the document has a ' +
        '`broker`: then the broker is that issuer and the supplier is the business it issues ' +
        'for.', examples: ['1234567891'] }),
    ...partyFields,
    manager: Manager,
  },
  { title: 'TaxInvoiceSupplier', additionalProperties: false },
);

export const Supplied = Type.Object(
  {
    identificationNumber: Type.String({ pattern: '^([0-9]{10}|[0-9]{13})$',
      description: 'The recipient: a ten-digit business registration number (checksum ' +
        'checked), or a thirteen-digit resident or foreigner registration number for a ' +
        'recipient without one.', examples: ['2208162517'] }),
    ...partyFields,
    managers: Type.Array(Manager, { minItems: 1, maxItems: MANAGERS_MAX,
      description: 'The first receives the invoice; the second, if any, a copy.' }),
  },
  { title: 'TaxInvoiceSupplied', additionalProperties: false },
);

// The trustee (수탁자) of a trustee or agent issuance (위수탁): a consignment seller or an agent
// that issues and signs in the name of the supplier (위탁자), who stays the `supplier`
// (부가가치세법 시행령 §69①; docs/tax-invoices.md § Trustee issuance (위수탁)). On the XML as BrokerParty.
export const Broker = Type.Object(
  {
    identificationNumber: Type.String({ pattern: '^[0-9]{10}$',
      description: 'The trustee\'s business registration number, ten digits without hyphens. ' +
        'It must be the number of the issuer the `Supplier-Key` header names: the trustee ' +
        'signs the document with its certificate.', examples: ['1234567891'] }),
    ...partyFields,
    manager: Type.Optional(Type.Union([Manager, Type.Null()])),
  },
  { title: 'TaxInvoiceBroker', additionalProperties: false,
    description: 'The trustee (수탁자) that issues in the supplier\'s name: a consignment ' +
      'seller or an agent. With it the document is a trustee tax invoice (위수탁, type ' +
      '0103, 0105 or 0303); `supplier` is then the business the goods or services are ' +
      'supplied for (위탁자).' },
);

export const Item = Type.Object(
  {
    date: DateString('Supply date (공급일자), in the month of the write date.', '2026-11-20'),
    name: text(1, 100, 'Item name (품목).', '클라우드 사용료'),
    specification: optionalText(60, 'Specification (규격).', '월 구독'),
    quantity: Type.Optional(Type.Union([Type.Number({ minimum: -999_999_999, maximum:
      999_999_999, multipleOf: 0.01, description: 'Quantity; up to two decimals. With ' +
        'unitPrice, quantity × unitPrice must be supplyCost within 1 won.' }),
    Type.Null()])),
    unitPrice: Type.Optional(Type.Union([Amount('Unit price in won.'), Type.Null()])),
    supplyCost: Amount('Supply cost (공급가액) in won.'),
    tax: Type.Union([Amount('VAT (세액) in won.'), Type.Null()], {
      description: 'VAT in won; null on every item of a tax-exempt invoice (계산서), 0 on ' +
        'every item of a zero-rated tax invoice (영세율), and 10% of supplyCost (within 1 won) ' +
        'on every item of a taxable one.',
    }),
    description: optionalText(100, 'Item remark (비고).', '11월분'),
  },
  { title: 'TaxInvoiceItem', additionalProperties: false },
);

// How the total is (to be) paid (결제방법별 금액), each part optional; the parts add up to at
// most the total (acceptance/validation.ts). On the XML as SpecifiedPaymentMeans.
const PaymentPart = (description: string) => Type.Optional(Type.Union([Type.Integer({
  minimum: 0, maximum: AMOUNT_ABS_MAX, description }), Type.Null()]));

export const Payment = Type.Object(
  {
    cash: PaymentPart('Cash (현금), in won.'),
    check: PaymentPart('Check (수표), in won.'),
    note: PaymentPart('Promissory note (어음), in won.'),
    credit: PaymentPart('On credit, receivable (외상미수금), in won.'),
  },
  { title: 'TaxInvoicePayment', additionalProperties: false,
    description: 'The payment breakdown: how much of the total is paid by each means. ' +
      'Optional; the parts add up to at most the total.' },
);

export const Invoice = Type.Object(
  {
    date: DateString('Write date (작성일자); today or earlier, and no later than the issue ' +
      'deadline allows.', '2026-11-20'),
    purpose: Type.Union([Type.Literal('RECEIPT'), Type.Literal('CLAIM')], {
      description: 'RECEIPT (영수) when payment was received; CLAIM (청구) to request it.',
    }),
    supplier: Supplier,
    supplied: Supplied,
    items: Type.Array(Item, { minItems: 1, maxItems: ITEMS_MAX }),
    description: optionalText(200, 'Remark (비고) of the invoice.', '11월 이용료'),
    emailSupplierCopy: Type.Optional(Type.Boolean({ description: 'Also send the supplier\'s ' +
      'manager a copy (Cc) of the mail that delivers the invoice to the recipient. Default ' +
      'false.' })),
    payment: Type.Optional(Type.Union([Payment, Type.Null()])),
    broker: Type.Optional(Type.Union([Broker, Type.Null()])),
  },
  { title: 'TaxInvoiceDocument', additionalProperties: false },
);

export type Manager = Static<typeof Manager>;
export type Supplier = Static<typeof Supplier>;
export type Supplied = Static<typeof Supplied>;
export type Broker = Static<typeof Broker>;
export type Item = Static<typeof Item>;
export type Invoice = Static<typeof Invoice>;
export type Payment = Static<typeof Payment>;

// What a document taxes, decided by its items (acceptance/validation.ts): TAXABLE (세금계산서 at
// the 10% rate), ZERO_RATED (영세율 세금계산서: a tax invoice whose every tax is 0, such as an
// export or a supply under a local letter of credit) or TAX_FREE (계산서: every tax null).
export type TaxType = 'TAXABLE' | 'ZERO_RATED' | 'TAX_FREE';

// Where an invoice is in its life (docs/tax-invoices.md § States).
//   Issuance:         PENDING → ISSUED → TRANSMITTING → TRANSMITTED
//                     PENDING | ISSUED → CANCELED (by the supplier, before transmission)
//                     PENDING | ISSUED | TRANSMITTING → FAILED
//   Reverse issuance: REQUESTED → APPROVED → ISSUED → … as above
//                     REQUESTED → REFUSED | REQUEST_CANCELED
export const TAX_INVOICE_STATUSES = [
  'REQUESTED', 'APPROVED', 'REFUSED', 'REQUEST_CANCELED',
  'PENDING', 'ISSUED', 'TRANSMITTING', 'TRANSMITTED', 'CANCELED', 'FAILED',
] as const;
export type TaxInvoiceStatus = (typeof TAX_INVOICE_STATUSES)[number];

// The amendment reasons, by their tax authority code.
export const AMENDMENT_REASONS = {
  ENTRY_CORRECTION: 1,
  SUPPLY_COST_CHANGE: 2,
  RETURNED_GOODS: 3,
  TERMINATION: 4,
  LOCAL_LETTER_OF_CREDIT: 5,
  DOUBLE_ISSUANCE: 6,
} as const;
export type AmendmentReason = keyof typeof AMENDMENT_REASONS;

const REASON_BY_CODE = new Map<number, AmendmentReason>(Object.entries(AMENDMENT_REASONS)
  .map(([reason, code]) => [code, reason as AmendmentReason]));

// The reason of a stored amendment reason code; undefined for a code no reason has.
export function amendmentReasonOfCode(code: number): AmendmentReason | undefined {
  return REASON_BY_CODE.get(code);
}

// ---- Requests that make documents --------------------------------------------------------------

export const SupplierKeyValue = Type.String({
  minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$',
  description: 'The `supplierKey` of the issuer that supplies (the seller), from issuer ' +
    'registration. Valid only with keys of the same account and environment. The recipient ' +
    'goes in the `supplied` body field, never here.',
  examples: ['sup_Rk5nEXAMPLEm0pWq7c1y9A'],
});

// Issue, amendment and reverse issuance requests: Supplier-Key and an optional reference id.
export const IssueHeaders = Type.Object({
  'supplier-key': SupplierKeyValue,
  'service-client-reference-id': Type.Optional(ReferenceIdHeaderValue),
});

export const IssuanceKeyParams = Type.Object(
  {
    issuanceKey: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$',
      description: 'The `issuanceKey` returned when the request was accepted, whole.' }),
  },
  { additionalProperties: false },
);

// The sandbox issuer 123-45-67891 and recipient 220-81-62517 of docs/sandbox.md.
const INVOICE_EXAMPLE = {
  date: '2026-11-20',
  purpose: 'CLAIM',
  supplier: {
    identificationNumber: '1234567891', taxRegistrationId: null,
    organizationName: '주식회사 이택스', representativeName: '홍길동',
    address: '서울특별시 중구 세종대로 110', businessType: '서비스', businessItem: '소프트웨어 개발',
    manager: { email: 'tax@example.co.kr', name: '김담당', telephone: '02-1234-5678' },
  },
  supplied: {
    identificationNumber: '2208162517', taxRegistrationId: null,
    organizationName: '주식회사 받는곳', representativeName: '이영희',
    address: '부산광역시 해운대구 센텀중앙로 97', businessType: '도소매', businessItem: '전자제품',
    managers: [{ email: 'account@example.com', name: '박수신', telephone: '010-1234-5678' }],
  },
  items: [
    { date: '2026-11-20', name: '클라우드 사용료', specification: '월 구독', quantity: 10,
      unitPrice: 5_000, supplyCost: 50_000, tax: 5_000, description: null },
    { date: '2026-11-20', name: '기술 지원', specification: null, quantity: 50,
      unitPrice: 3_000, supplyCost: 150_000, tax: 15_000, description: '11월분' },
  ],
  description: '11월 이용료',
};

// The body of an issuance and of a reverse issuance request, and the answer to both.
export const IssueBody = Type.Object(Invoice.properties, {
  title: 'TaxInvoiceIssueBody', additionalProperties: false, examples: [INVOICE_EXAMPLE],
});

// The recipient named by a counterparty of the book (docs/counterparties.md) instead of by its
// fields: the issuance copies the counterparty's fields into `supplied` when it accepts the
// request. `managers`, when given, replaces the counterparty's.
const SuppliedByCounterparty = Type.Object(
  {
    counterpartyId: Type.String({ minLength: 1, maxLength: 100, pattern: '^cpt_[A-Za-z0-9_-]+$',
      description: 'A counterparty of the key\'s account and environment.',
      examples: ['cpt_Rk5nEXAMPLEm0pWq7c1y9A'] }),
    managers: Type.Optional(Type.Array(Manager, { minItems: 1, maxItems: MANAGERS_MAX,
      description: 'Replaces the counterparty\'s managers for this invoice.' })),
  },
  { title: 'TaxInvoiceSuppliedByCounterparty', additionalProperties: false },
);

// The body of an issuance: the recipient by its fields or by a counterparty of the book.
export const StandardIssueBody = Type.Object({ ...Invoice.properties,
  supplied: Type.Union([Supplied, SuppliedByCounterparty], { description: 'The recipient: ' +
    'its fields, or `{ counterpartyId }` to take them from the counterparty book ' +
    '(docs/counterparties.md).' }) }, {
  title: 'TaxInvoiceStandardIssueBody', additionalProperties: false,
  examples: [INVOICE_EXAMPLE] });
export type StandardIssueBody = Static<typeof StandardIssueBody>;

export const IssuanceAccepted = Type.Object(
  { issuanceKey: Type.String({ description: 'Identifies the document from now on.' }) },
  { title: 'IssuanceAccepted', description: 'The request, accepted: its document.',
    additionalProperties: false,
    examples: [{ issuanceKey: 'txi_8D529FAD3EBAE050B79CE943CC' }] },
);
