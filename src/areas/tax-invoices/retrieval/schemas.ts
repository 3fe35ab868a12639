import { Type, type Static } from '@fastify/type-provider-typebox';
import { HasMore, pageQueryFields } from '../../../platform/paging.ts';
import { APPROVAL_NUMBER_PATTERN_SOURCE } from '../../../domain/approval-number.ts';
import { Invoice, TAX_INVOICE_STATUSES } from '../schemas.ts';

// Request and response schemas of the retrieval routes (docs/tax-invoices.md): a request's
// status by reference id, the document as every route answers it, the list, the issue deadline.

// The reference id as a header carries it; a query can also carry NUL, which no header (and so no
// stored reference id) can contain, so it is refused here rather than reaching the database.
export const StatusQuery = Type.Object(
  { clientReferenceId: Type.String({ minLength: 1, maxLength: 255,
    pattern: '^(?!\\s*$)[^\\u0000]+$',
    description: 'The `Service-Client-Reference-Id` the request was sent with.',
    examples: ['order-2026-11-0042'] }) },
  { additionalProperties: false },
);

const Status = Type.Enum(TAX_INVOICE_STATUSES, {
  description: 'Where the document is (docs/tax-invoices.md § States).',
});

export const ReferenceStatus = Type.Object(
  {
    issuanceKey: Type.String({ description: 'The (first) document the request made.' }),
    issuanceKeys: Type.Array(Type.String(), { description: 'Every document the request ' +
      'made, in order: one, or two for an entry correction or a local letter of credit.' }),
    clientReferenceId: Type.String(),
    status: Status,
    message: Type.String({ description: 'What the status means for the client.' }),
  },
  { title: 'TaxInvoiceReferenceStatus', description: 'The processing status of the request.',
    additionalProperties: false,
    examples: [{ issuanceKey: 'txi_8D529FAD3EBAE050B79CE943CC',
      issuanceKeys: ['txi_8D529FAD3EBAE050B79CE943CC'], clientReferenceId: 'order-2026-11-0042',
      status: 'TRANSMITTED', message: 'Issued and transmitted to the tax authority.' }] },
);

const NullableString = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description });
const NullableTimestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const TaxInvoice = Type.Object(
  {
    issuanceKey: Type.String(),
    status: Status,
    ntsTransactionId: Type.Union([Type.String({ pattern: APPROVAL_NUMBER_PATTERN_SOURCE }),
      Type.Null()], { description: 'The approval number (국세청 승인번호): 24 characters, the ' +
      'issue date, the issuing system\'s code and a serial of digits or lower-case letters; null ' +
      'until transmitted.', examples: ['2026112041000000000012ab'] }),
    issuedAt: NullableTimestamp('When the supplier\'s signature issued it; null before.'),
    invoice: Invoice,
    issuanceType: Type.Union([Type.Literal('STANDARD'), Type.Literal('REVERSE')], {
      description: 'STANDARD (정발행) or REVERSE (역발행, requested by the recipient).' }),
    issuerId: Type.String({ description: 'The supplier\'s issuer.' }),
    clientReferenceId: NullableString('The Service-Client-Reference-Id of the request.'),
    taxType: Type.Union([Type.Literal('TAXABLE'), Type.Literal('ZERO_RATED'),
      Type.Literal('TAX_FREE')], {
      description: 'TAXABLE (세금계산서, 10% VAT), ZERO_RATED (영세율 세금계산서, every ' +
        'item\'s tax 0) or TAX_FREE (계산서, every item\'s tax null).' }),
    totals: Type.Object({
      supplyCost: Type.Integer(), tax: Type.Integer(), total: Type.Integer(),
    }, { additionalProperties: false, description: 'Sums of the items, in won.' }),
    amendment: Type.Union([Type.Object({
      reason: Type.String({ description: 'Amendment reason (docs/tax-invoice-amendments.md).' }),
      reasonCode: Type.Integer({ minimum: 1, maximum: 6, description: 'The tax authority code.' }),
      originalIssuanceKey: Type.String(),
      originalNtsTransactionId: Type.String({ pattern: APPROVAL_NUMBER_PATTERN_SOURCE,
        description: 'The original\'s approval number.' }),
    }, { additionalProperties: false }), Type.Null()], {
      description: 'For an amended document, what it amends; null otherwise.' }),
    failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() },
      { additionalProperties: false }), Type.Null()], {
      description: 'Why a FAILED document failed, or why the supplier REFUSED a reverse ' +
        'issuance request; null otherwise.' }),
    issueDeadline: Type.String({ format: 'date', description: 'Last day to issue for the ' +
      'write date: the 10th of the next month, or the next business day.' }),
    lateIssuance: Type.Boolean({ description: 'True when issued after `issueDeadline` but by ' +
      'the final VAT return deadline of the tax period (지연발급): a valid tax invoice on ' +
      'which the supplier owes a penalty (`lateIssuancePenalty`).' }),
    lateIssuancePenalty: Type.Union([Type.Object({
      supplierRate: Type.Number({ description: 'Supplier\'s penalty (지연발급가산세) as a ' +
        'fraction of the supply value, e.g. 0.01.' }),
      recipientRate: Type.Number({ description: 'Recipient\'s penalty (지연수취가산세) as a ' +
        'fraction of the supply value; the input-tax credit is kept.' }),
    }, { additionalProperties: false }), Type.Null()], {
      description: 'The penalty rates of a late issuance; null when `lateIssuance` is false. ' +
        'Shown for information; etax charges none of it.' }),
    transmittedAt: NullableTimestamp('When the approval number arrived.'),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'TaxInvoice', description: 'A tax invoice document and where it is.',
    additionalProperties: false },
);
export type TaxInvoiceView = Static<typeof TaxInvoice>;

export const ListQuery = Type.Object(
  {
    writeDateFrom: Type.Optional(Type.String({ format: 'date',
      description: 'Only documents written on or after this date.' })),
    writeDateTo: Type.Optional(Type.String({ format: 'date',
      description: 'Only documents written on or before this date.' })),
    status: Type.Optional(Type.Array(Status, { minItems: 1, maxItems: 10,
      description: 'Only documents in these states; repeat the parameter for several.' })),
    counterpartNumber: Type.Optional(Type.String({ pattern: '^([0-9]{10}|[0-9]{13})$',
      description: 'Only documents to this recipient (`supplied.identificationNumber`).' })),
    issuerId: Type.Optional(Type.String({ minLength: 1, maxLength: 100,
      pattern: '^[A-Za-z0-9_-]+$', description: 'Only documents of this supplier.' })),
    ...pageQueryFields('documents'),
  },
  { additionalProperties: false },
);

export const TaxInvoicePage = Type.Object(
  {
    taxInvoices: Type.Array(TaxInvoice, { description: 'Documents in the order they were made.' }),
    nextCursor: NullableString('Pass as `cursor` for the next page; null on the last page.'),
    hasMore: HasMore,
  },
  { title: 'TaxInvoicePage', description: 'A page of tax invoice documents.',
    additionalProperties: false },
);

export const DueDateQuery = Type.Object(
  { date: Type.String({ format: 'date', description: 'A write date.',
    examples: ['2026-11-20'] }) },
  { additionalProperties: false },
);

export const DueDate = Type.Object(
  { issueDueDate: Type.String({ format: 'date', description: 'The last day an invoice with ' +
    'that write date may be issued without penalty.' }),
    lateIssuanceLimit: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'The last day it may still be issued late (지연발급, with a penalty): the ' +
        'final VAT return deadline of its tax period, moved to the next business day. Null ' +
        'when that day would fall past the year 9999.' }) },
  { title: 'TaxInvoiceIssueDueDate', description: 'The issue deadline of the write date, and ' +
    'its late-issuance limit.',
    additionalProperties: false,
    examples: [{ issueDueDate: '2026-12-10', lateIssuanceLimit: '2027-01-25' }] },
);
