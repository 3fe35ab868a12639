import { Type, type Static } from '@fastify/type-provider-typebox';
import { openEnum } from '../../platform/open-enum.ts';
import { HasMore, pageQueryFields } from '../../platform/paging.ts';
import { ReferenceIdHeaderValue } from '../../platform/idempotency/reference-id-header.ts';
import { PRINTED_TEXT_PATTERN } from '../../domain/text.ts';

// Request and response schemas of the cash-receipt routes (docs/cash-receipts.md). The schemas
// check shapes and lengths; the rules between fields (identity number per usage, amounts, the
// trade date window) are in acceptance/validation.ts, which names the field in every message.

// Text a person types and a receipt prints (src/domain/text.ts).
const PRINTABLE = PRINTED_TEXT_PATTERN;
// Whole won; eleven digits keep every sum a safe integer.
const AMOUNT_MAX = 99_999_999_999;

const Amount = (description: string) => Type.Integer({ minimum: 0, maximum: AMOUNT_MAX,
  description });

export const CASH_RECEIPT_USAGES = ['INCOME_DEDUCTION', 'EXPENSE_PROOF'] as const;
export const TAXATIONS = ['TAXABLE', 'TAX_FREE'] as const;
export const TRADE_OPTIONS = ['GENERAL', 'BOOKS_PERFORMANCES', 'PUBLIC_TRANSPORT'] as const;
export const CANCEL_REASONS = ['TRANSACTION_CANCELED', 'ISSUED_IN_ERROR', 'OTHER'] as const;
export const CASH_RECEIPT_STATUSES = ['ACCEPTED', 'ISSUED', 'TRANSMITTED', 'FAILED'] as const;
export const CASH_RECEIPT_KINDS = ['ISSUANCE', 'CANCELLATION'] as const;

const SupplierKeyValue = Type.String({
  minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$',
  description: 'The `supplierKey` of the merchant: an issuer registered with this API key ' +
    '(no joint certificate needed).',
  examples: ['sup_Rk5nEXAMPLEm0pWq7c1y9A'],
});

export const IssueHeaders = Type.Object({
  'supplier-key': SupplierKeyValue,
  'service-client-reference-id': ReferenceIdHeaderValue,
});

export const CancelHeaders = Type.Object({
  'service-client-reference-id': ReferenceIdHeaderValue,
});

const Customer = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 50,
      pattern: PRINTABLE, examples: ['김고객'] }), Type.Null()],
    { description: 'The customer\'s name, printed on the receipt.' })),
    email: Type.Optional(Type.Union([Type.String({ format: 'email', minLength: 3,
      maxLength: 100, examples: ['customer@example.com'] }), Type.Null()],
    { description: 'Where the customer\'s copy is mailed.' })),
    phone: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9+() -]{1,20}$',
      examples: ['010-1234-5678'] }), Type.Null()],
    { description: 'The customer\'s phone number, kept with the receipt.' })),
  },
  { title: 'CashReceiptCustomer', additionalProperties: false,
    description: 'The customer, for their copy; optional.' },
);

const ISSUE_EXAMPLE = {
  tradeDate: '2026-11-24',
  usage: 'INCOME_DEDUCTION',
  identityNumber: '010-1234-5678',
  taxation: 'TAXABLE',
  supplyCost: 10_000,
  tax: 1_000,
  serviceFee: 0,
  totalAmount: 11_000,
  itemName: '아메리카노 외 2건',
  tradeOption: 'GENERAL',
  customer: { name: '김고객', email: 'customer@example.com' },
};

export const IssueBody = Type.Object(
  {
    tradeDate: Type.String({ format: 'date', description: 'The day of the cash payment, Korea ' +
      'time: today or yesterday; up to 5 days back for a self-issued receipt.',
    examples: ['2026-11-24'] }),
    usage: Type.Enum(CASH_RECEIPT_USAGES, { description: 'INCOME_DEDUCTION (소득공제, for a ' +
      'consumer) or EXPENSE_PROOF (지출증빙, for a business).' }),
    identityNumber: Type.String({ minLength: 1, maxLength: 30, pattern: '^[0-9-]+$',
      description: 'Digits, hyphens allowed. INCOME_DEDUCTION: a mobile number (10–11 digits, ' +
        '01…), a cash-receipt card (13–19), a resident number (13) or the self-issue number ' +
        '0100001234. EXPENSE_PROOF: a business registration number (10, checksum), a mobile ' +
        'number, a card or a resident number.', examples: ['010-1234-5678'] }),
    taxation: Type.Enum(TAXATIONS, { description: 'TAXABLE (과세) or TAX_FREE (면세; tax 0).' }),
    supplyCost: Amount('Supply cost (공급가액), won.'),
    tax: Amount('VAT (부가세), won.'),
    serviceFee: Amount('Service fee (봉사료), won.'),
    totalAmount: Amount('supplyCost + tax + serviceFee, and more than 0.'),
    itemName: Type.String({ minLength: 1, maxLength: 100, pattern: PRINTABLE,
      description: 'What was sold.', examples: ['아메리카노 외 2건'] }),
    tradeOption: Type.Optional(Type.Enum(TRADE_OPTIONS, { default: 'GENERAL',
      description: 'GENERAL (일반), BOOKS_PERFORMANCES (도서공연) or PUBLIC_TRANSPORT (대중교통).' })),
    customer: Type.Optional(Type.Union([Customer, Type.Null()])),
  },
  { title: 'CashReceiptIssueRequest', additionalProperties: false,
    description: 'A cash receipt to issue.', examples: [ISSUE_EXAMPLE] },
);
export type IssueInput = Static<typeof IssueBody>;

export const CancelBody = Type.Object(
  {
    reason: Type.Enum(CANCEL_REASONS, { description: 'TRANSACTION_CANCELED (거래취소), ' +
      'ISSUED_IN_ERROR (오류발급취소) or OTHER (기타).' }),
    supplyCost: Type.Optional(Amount('Supply cost canceled.')),
    tax: Type.Optional(Amount('VAT canceled.')),
    serviceFee: Type.Optional(Amount('Service fee canceled.')),
    totalAmount: Type.Optional(Amount('Total canceled: the sum of the three.')),
  },
  { title: 'CashReceiptCancelRequest', additionalProperties: false,
    description: 'Without amounts, cancels what remains of the receipt; with all four, ' +
      'cancels that part (partial cancellation).',
    examples: [{ reason: 'TRANSACTION_CANCELED' },
      { reason: 'TRANSACTION_CANCELED', supplyCost: 5_000, tax: 500, serviceFee: 0,
        totalAmount: 5_500 }] },
);
export type CancelInput = Static<typeof CancelBody>;

export const IssuanceKeyParams = Type.Object(
  {
    issuanceKey: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$',
      description: 'The `issuanceKey` returned when the request was accepted, whole.' }),
  },
  { additionalProperties: false },
);

export const CashReceiptAccepted = Type.Object(
  { issuanceKey: Type.String({ description: 'Identifies the receipt from now on.' }) },
  { title: 'CashReceiptAccepted', description: 'The request, accepted: its receipt. A ' +
    'repeated request with the same reference id and content answers the same key.',
  additionalProperties: false, examples: [{ issuanceKey: 'csr_p3v6QJ0EXAMPLEbq9xCkVw' }] },
);

const NullableString = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description });
const NullableTimestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
const NullableInteger = (description: string) =>
  Type.Union([Type.Integer(), Type.Null()], { description });

const Status = Type.Enum(CASH_RECEIPT_STATUSES, { description: 'ACCEPTED → ISSUED (approved) ' +
  '→ TRANSMITTED, or FAILED (docs/cash-receipts.md § States).' });
const Kind = Type.Enum(CASH_RECEIPT_KINDS, { description: 'ISSUANCE, or CANCELLATION (a ' +
  'cancellation receipt naming the original).' });

export const CashReceipt = Type.Object(
  {
    issuanceKey: Type.String(),
    kind: Kind,
    status: Status,
    approvalNumber: NullableString('The 9-digit approval number; null until issued.'),
    failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() },
      { additionalProperties: false }), Type.Null()],
    { description: 'Why a FAILED receipt failed; null otherwise.' }),
    clientReferenceId: Type.String({ description: 'The request\'s Service-Client-Reference-Id.' }),
    issuerId: Type.String({ description: 'The merchant\'s issuer.' }),
    merchant: Type.Object({
      businessRegistrationNumber: Type.String(), organizationName: Type.String(),
      representativeName: Type.String() }, { additionalProperties: false,
      description: 'The merchant as it was when the request was accepted.' }),
    tradeDate: Type.String({ format: 'date' }),
    usage: Type.Enum(CASH_RECEIPT_USAGES),
    identityNumber: Type.String({ description: 'Masked: only the first three and last four ' +
      'digits are shown.', examples: ['010****5678'] }),
    taxation: Type.Enum(TAXATIONS),
    tradeOption: Type.Enum(TRADE_OPTIONS),
    supplyCost: Type.Integer(),
    tax: Type.Integer(),
    serviceFee: Type.Integer(),
    totalAmount: Type.Integer(),
    itemName: Type.String(),
    customer: Type.Union([Customer, Type.Null()]),
    canceledAmount: NullableInteger('Issuances: the total of accepted cancellations (those ' +
      'not failed); null for a cancellation.'),
    remainingAmount: NullableInteger('Issuances: totalAmount − canceledAmount; null for a ' +
      'cancellation.'),
    cancelReason: Type.Union([Type.Enum(CANCEL_REASONS), Type.Null()],
      { description: 'Cancellations: the reason; null for an issuance.' }),
    originalIssuanceKey: NullableString('Cancellations: the canceled receipt.'),
    originalApprovalNumber: NullableString('Cancellations: the original\'s approval number.'),
    originalTradeDate: Type.Union([Type.String({ format: 'date' }), Type.Null()],
      { description: 'Cancellations: the original\'s trade date.' }),
    issuedAt: NullableTimestamp('When the tax authority approved it.'),
    transmittedAt: NullableTimestamp('When it was transmitted to the tax authority.'),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'CashReceipt', description: 'A cash receipt or cancellation receipt and where it is.',
    additionalProperties: false },
);
export type CashReceiptView = Static<typeof CashReceipt>;

export const StatusQuery = Type.Object(
  { clientReferenceId: Type.String({ minLength: 1, maxLength: 255,
    pattern: '^(?!\\s*$)[^\\u0000]+$',
    description: 'The `Service-Client-Reference-Id` the issuance or cancellation was sent with.',
    examples: ['pos-2026-11-24-0042'] }) },
  { additionalProperties: false },
);

export const ReferenceStatus = Type.Object(
  {
    issuanceKey: Type.String({ description: 'The receipt the request made.' }),
    kind: Kind,
    clientReferenceId: Type.String(),
    status: Status,
    approvalNumber: NullableString('The 9-digit approval number; null until issued.'),
    message: Type.String({ description: 'What the status means for the client.' }),
  },
  { title: 'CashReceiptReferenceStatus', description: 'The processing status of the request.',
    additionalProperties: false,
    examples: [{ issuanceKey: 'csr_p3v6QJ0EXAMPLEbq9xCkVw', kind: 'ISSUANCE',
      clientReferenceId: 'pos-2026-11-24-0042', status: 'ISSUED', approvalNumber: '123456789',
      message: 'Approved by the tax authority; it will be transmitted.' }] },
);

export const ListQuery = Type.Object(
  {
    tradeDateFrom: Type.Optional(Type.String({ format: 'date',
      description: 'Only receipts traded on or after this date.' })),
    tradeDateTo: Type.Optional(Type.String({ format: 'date',
      description: 'Only receipts traded on or before this date.' })),
    status: Type.Optional(Status),
    kind: Type.Optional(Kind),
    ...pageQueryFields('receipts'),
  },
  { additionalProperties: false },
);

export const CashReceiptPage = Type.Object(
  {
    cashReceipts: Type.Array(CashReceipt, { description: 'Receipts in the order they were made.' }),
    nextCursor: NullableString('Pass as `cursor` for the next page; null on the last page.'),
    hasMore: HasMore,
  },
  { title: 'CashReceiptPage', description: 'A page of cash receipts.',
    additionalProperties: false },
);

const P = CashReceipt.properties;

// What POST /v1/cashReceipts:validate answers.
export const IssueValidation = Type.Object(
  {
    valid: Type.Literal(true, { description: 'Always true: a request issuance would refuse ' +
      'is answered with the error issuance would give instead.' }),
    replayOf: NullableString('When this key already used `Service-Client-Reference-Id` for ' +
      'the same request: the receipt issuance would answer again, issuing and charging ' +
      'nothing. Null otherwise.'),
    receipt: Type.Union([Type.Object({
      merchant: P.merchant, tradeDate: P.tradeDate,
      usage: openEnum(CASH_RECEIPT_USAGES, 'What the receipt is for.'),
      identityNumber: P.identityNumber,
      taxation: openEnum(TAXATIONS, 'Taxable or tax free.'),
      tradeOption: openEnum(TRADE_OPTIONS, 'The kind of trade.'),
      supplyCost: P.supplyCost, tax: P.tax, serviceFee: P.serviceFee,
      totalAmount: P.totalAmount, itemName: P.itemName, customer: P.customer,
    }, { additionalProperties: false }), Type.Null()], { description: 'The receipt issuance ' +
      'would record, with the amounts as etax computes them; null for a replay.' }),
    price: Type.Object({
      operation: Type.Literal('cashReceipts.issue', { description: 'The price row.' }),
      points: Type.Integer({ minimum: 0, description: 'What issuing it would charge now ' +
        '(0 for a replay); the balance covers it.' }),
    }, { additionalProperties: false }),
  },
  { title: 'CashReceiptIssueValidation', description: 'What issuing this request would do. ' +
    'Nothing was charged, recorded or claimed.', additionalProperties: false },
);

const CancelAmount = (description: string) => Type.Integer({ minimum: 0, description });

// What POST /v1/cashReceipts/{issuanceKey}/cancellations:validate answers.
export const CancelValidation = Type.Object(
  {
    valid: Type.Literal(true, { description: 'Always true: a request the cancellation would ' +
      'refuse is answered with the error it would give instead.' }),
    replayOf: NullableString('When this key already used `Service-Client-Reference-Id` for ' +
      'the same cancellation: the cancellation receipt it would answer again, issuing and ' +
      'charging nothing. Null otherwise.'),
    cancellation: Type.Union([Type.Object({
      originalIssuanceKey: Type.String({ description: 'The receipt canceled.' }),
      reason: openEnum(CANCEL_REASONS, 'Why it is canceled.'),
      supplyCost: CancelAmount('Supply cost the cancellation receipt would cancel.'),
      tax: CancelAmount('VAT it would cancel.'),
      serviceFee: CancelAmount('Service fee it would cancel.'),
      totalAmount: CancelAmount('Total it would cancel.'),
      remainingAfter: Type.Object({
        supplyCost: CancelAmount('Supply cost left.'), tax: CancelAmount('VAT left.'),
        serviceFee: CancelAmount('Service fee left.'), totalAmount: CancelAmount('Total left.'),
      }, { additionalProperties: false, description: 'What would remain of the receipt ' +
        'afterwards, as things stand now.' }),
    }, { additionalProperties: false }), Type.Null()], { description: 'The cancellation ' +
      'receipt that would be issued; null for a replay.' }),
    price: Type.Object({
      operation: Type.Literal('cashReceipts.cancel', { description: 'The price row.' }),
      points: Type.Integer({ minimum: 0, description: 'What cancelling would charge now ' +
        '(0 for a replay); the balance covers it.' }),
    }, { additionalProperties: false }),
  },
  { title: 'CashReceiptCancelValidation', description: 'What cancelling this receipt would ' +
    'do. Nothing was charged, recorded or claimed.', additionalProperties: false },
);
