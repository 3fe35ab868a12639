import { Type, type Static } from '@fastify/type-provider-typebox';
import { openEnum } from '../../platform/open-enum.ts';
import { HasMore, pageQueryFields } from '../../platform/paging.ts';
import { referenceIdHeaders } from '../../platform/idempotency/reference-id-header.ts';
import { PRINTED_TEXT_PATTERN } from '../../domain/text.ts';
import {
  INCOME_CERTIFICATE_KINDS,
  TAX_PAYMENT_PURPOSES,
  type IncomeCertificateKind,
  type TaxPaymentPurpose,
} from '../../upstream/civil-documents/index.ts';

// Request and response schemas of the documents routes (docs/documents.md).

const PRINTABLE = PRINTED_TEXT_PATTERN;
const YEAR_MONTH = '^[0-9]{4}-(0[1-9]|1[0-2])$';

const TAX_AUTHORITY_TYPES = [
  'BUSINESS_REGISTRATION_CERTIFICATE',
  'TAX_PAYMENT_CERTIFICATE',
  'VAT_TAX_BASE_CERTIFICATE',
  'INCOME_AMOUNT_CERTIFICATE',
  'STANDARD_FINANCIAL_STATEMENTS',
  'BUSINESS_CLOSURE_FACT_CERTIFICATE',
  'BUSINESS_SUSPENSION_FACT_CERTIFICATE',
] as const;
export const REGISTRY_TYPES = ['CORPORATE_REGISTRY_VIEW', 'CORPORATE_REGISTRY_SUBMISSION'] as const;
export const DOCUMENT_TYPES = [...TAX_AUTHORITY_TYPES, ...REGISTRY_TYPES] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export type TaxAuthorityType = (typeof TAX_AUTHORITY_TYPES)[number];
export type RegistryType = (typeof REGISTRY_TYPES)[number];

export const DOCUMENT_STATUSES = ['ACCEPTED', 'PROCESSING', 'ISSUED', 'FAILED'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

const DocumentTypeSchema = Type.Unsafe<DocumentType>({ type: 'string', enum: [...DOCUMENT_TYPES],
  description: 'The document: a tax-authority certificate of the business that owns the API ' +
    'key (BUSINESS_REGISTRATION_CERTIFICATE 사업자등록증명, TAX_PAYMENT_CERTIFICATE 납세증명서, ' +
    'VAT_TAX_BASE_CERTIFICATE 부가가치세 과세표준증명, INCOME_AMOUNT_CERTIFICATE 소득금액증명, ' +
    'STANDARD_FINANCIAL_STATEMENTS 표준재무제표증명, BUSINESS_CLOSURE_FACT_CERTIFICATE ' +
    '폐업사실증명, BUSINESS_SUSPENSION_FACT_CERTIFICATE 휴업사실증명) or a certified copy of a ' +
    'corporation\'s register (CORPORATE_REGISTRY_VIEW 열람용, CORPORATE_REGISTRY_SUBMISSION ' +
    '제출용).',
});

export const IssueDocumentHeaders = referenceIdHeaders({ required: true });

export const IssueDocumentBody = Type.Object(
  {
    type: DocumentTypeSchema,
    showAddress: Type.Optional(Type.Boolean({ description: 'Tax-authority documents: print ' +
      'the business address. Default true.' })),
    showResidentNumber: Type.Optional(Type.Boolean({ description: 'Tax-authority documents: ' +
      'print the representative\'s resident registration number. Default false; always false ' +
      'for a corporation.' })),
    language: Type.Optional(Type.Union([Type.Literal('KO'), Type.Literal('EN')], {
      description: 'Tax-authority documents: Korean or English version. Default KO. ' +
        'BUSINESS_REGISTRATION_CERTIFICATE, TAX_PAYMENT_CERTIFICATE, VAT_TAX_BASE_CERTIFICATE ' +
        'and INCOME_AMOUNT_CERTIFICATE only.' })),
    purpose: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: PRINTABLE,
      description: 'Tax-authority documents: what the document is for, in words, printed on ' +
        'it. For TAX_PAYMENT_CERTIFICATE, `submissionPurpose` gives the case the law names.',
      examples: ['금융기관 제출용'] })),
    submissionPurpose: Type.Optional(Type.Unsafe<TaxPaymentPurpose>({ type: 'string',
      enum: Object.keys(TAX_PAYMENT_PURPOSES), description: 'TAX_PAYMENT_CERTIFICATE: the ' +
        'case it is submitted for, as 국세징수법 제107조① lists them: PAYMENT_RECEIPT ' +
        '(대금수령: payment from the state, a local government or a government-managed body; ' +
        '`payer` required), RESIDENCE_PERMIT (외국인 체류 관련 허가: a registered foreigner\'s ' +
        'extension of stay or a like permit), EMIGRATION (해외이주: a report of emigration), ' +
        'or OTHER (any other submission; `purpose` says which). Printed on the certificate.',
      examples: ['PAYMENT_RECEIPT'] })),
    payer: Type.Optional(Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100, pattern: PRINTABLE,
        description: 'The payer\'s name (대금지급자: the ministry, local government or body).',
        examples: ['조달청'] }),
      businessRegistrationNumber: Type.Optional(Type.String({ minLength: 10, maxLength: 12,
        pattern: '^[0-9-]+$', description: 'The payer\'s business registration number, if ' +
          'it has one: ten digits, hyphens allowed; the checksum is checked.',
        examples: ['1388300007'] })),
    }, { additionalProperties: false, description: 'TAX_PAYMENT_CERTIFICATE with ' +
      'submissionPurpose PAYMENT_RECEIPT (required there, refused otherwise): who pays.' })),
    startYearMonth: Type.Optional(Type.String({ pattern: YEAR_MONTH, description:
      'VAT_TAX_BASE_CERTIFICATE (required): first month of the period, `YYYY-MM`.',
    examples: ['2025-01'] })),
    endYearMonth: Type.Optional(Type.String({ pattern: YEAR_MONTH, description:
      'VAT_TAX_BASE_CERTIFICATE (required): last month of the period, `YYYY-MM`, not before ' +
      'startYearMonth, at most 60 months after it, not in the future.', examples: ['2025-06'] })),
    taxYear: Type.Optional(Type.Integer({ minimum: 1990, maximum: 9999, description:
      'INCOME_AMOUNT_CERTIFICATE (required): the tax year, before the current one; for ' +
      'GLOBAL_INCOME_TAX_RETURN one whose return could be filed (from May of the next year).',
    examples: [2024] })),
    incomeCertificateKind: Type.Optional(Type.Unsafe<IncomeCertificateKind>({ type: 'string',
      enum: Object.keys(INCOME_CERTIFICATE_KINDS), description: 'INCOME_AMOUNT_CERTIFICATE ' +
        '(required): which certificate (증명구분), as the tax portal offers them: ' +
        'GLOBAL_INCOME_TAX_RETURN 종합소득세 신고자용, WAGE_EARNER 근로소득자용, ' +
        'YEAR_END_SETTLED_BUSINESS_INCOME 연말정산한 사업소득자용, ' +
        'YEAR_END_SETTLED_PENSION_INCOME 연말정산한 연금소득자용, ' +
        'YEAR_END_SETTLED_RELIGIOUS_INCOME 연말정산한 종교인 소득자용. Individuals only.',
      examples: ['GLOBAL_INCOME_TAX_RETURN'] })),
    fiscalYearEndMonth: Type.Optional(Type.String({ pattern: YEAR_MONTH, description:
      'STANDARD_FINANCIAL_STATEMENTS (required): the last month of the fiscal year, `YYYY-MM`, ' +
      'before the current month.', examples: ['2024-12'] })),
    corporationNumber: Type.Optional(Type.String({ minLength: 13, maxLength: 14,
      pattern: '^[0-9-]+$', description: 'Registry copies (required): corporate registration ' +
        'number (법인등록번호), thirteen digits, a hyphen allowed; the check digit and the ' +
        'kind of corporation are checked.', examples: ['110111-0062432'] })),
    registryScope: Type.Optional(Type.Union([Type.Literal('ALL'), Type.Literal('PART')], {
      description: 'Registry copies: all of the register (전부) or part (일부). Default ALL.' })),
    registryEntries: Type.Optional(Type.Union([Type.Literal('CURRENT'),
      Type.Literal('INCLUDING_STRUCK_OUT')], { description: 'Registry copies: current entries ' +
        'only (현재유효사항) or including struck-out ones (말소사항포함). Default CURRENT.' })),
  },
  { title: 'IssueDocumentBody', additionalProperties: false,
    description: 'The document type and the options of that type; an option of another type ' +
      'is 400 INVALID_REQUEST.',
    examples: [{ type: 'BUSINESS_REGISTRATION_CERTIFICATE', purpose: '금융기관 제출용' },
      { type: 'TAX_PAYMENT_CERTIFICATE', submissionPurpose: 'PAYMENT_RECEIPT',
        payer: { name: '조달청', businessRegistrationNumber: '1388300007' } },
      { type: 'CORPORATE_REGISTRY_SUBMISSION', corporationNumber: '110111-0062432',
        registryScope: 'ALL', registryEntries: 'CURRENT' }] },
);
export type IssueDocumentBody = Static<typeof IssueDocumentBody>;

export const DocumentAccepted = Type.Object(
  { issuanceKey: Type.String({ description: 'Names the request in every later call.',
    examples: ['doc_3q2c0Yc5QdWmxbR8Tt0uEw'] }) },
  { title: 'DocumentAccepted', additionalProperties: false,
    description: 'The request was accepted (or, for a repeated reference id with the same ' +
      'body, the earlier request).' },
);

export const IssuanceKeyParams = Type.Object(
  { issuanceKey: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$',
    description: 'The `issuanceKey` returned when the request was accepted.' }) },
  { additionalProperties: false },
);

const NullableString = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description });
const NullableTime = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const DocumentSchema = Type.Object(
  {
    issuanceKey: Type.String(),
    clientReferenceId: Type.String({ description: 'The Service-Client-Reference-Id of the ' +
      'request.' }),
    type: DocumentTypeSchema,
    status: Type.Unsafe<DocumentStatus>({ type: 'string', enum: [...DOCUMENT_STATUSES],
      description: 'ACCEPTED: waiting for its job. PROCESSING: asked of the upstream service ' +
        '(fact certificates wait here for an officer\'s check). ISSUED: the PDF is ready. ' +
        'FAILED: not issued, see `failure`; the points were released.' }),
    options: Type.Record(Type.String(), Type.Unknown(), { description: 'The options of the ' +
      'request with their defaults filled in.' }),
    corporationNumber: NullableString('Registry copies: the corporation, thirteen digits.'),
    issueNumber: NullableString('The upstream service\'s issue number, once issued.'),
    pdfSha256: NullableString('SHA-256 (hex) of the original PDF, once issued.'),
    points: Type.Integer({ description: 'The price of the document: reserved while it is ' +
      'processed, charged when issued, released on failure.' }),
    failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() },
      { additionalProperties: false }), Type.Null()],
    { description: 'Why the document was not issued; null unless FAILED.' }),
    acceptedAt: Type.String({ format: 'date-time' }),
    issuedAt: NullableTime('When the upstream service issued it.'),
    failedAt: NullableTime('When it failed.'),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Document', additionalProperties: false, description: 'A document request.',
    examples: [{ issuanceKey: 'doc_3q2c0Yc5QdWmxbR8Tt0uEw', clientReferenceId: 'order-1001',
      type: 'BUSINESS_REGISTRATION_CERTIFICATE', status: 'ISSUED',
      options: { showAddress: true, showResidentNumber: false, language: 'KO',
        purpose: '금융기관 제출용' },
      corporationNumber: null, issueNumber: '1234-5678-9012-3456',
      pdfSha256: 'c0535e4be2b79ffd93291305436bf889314e4a3faec05ecffcbb7df31ad9e51a', points: 500,
      failure: null, acceptedAt: '2026-03-02T01:00:00.000Z', issuedAt: '2026-03-02T01:00:00.000Z',
      failedAt: null, updatedAt: '2026-03-02T01:00:01.000Z' }] },
);
export type DocumentView = Static<typeof DocumentSchema>;

export const ListDocumentsQuery = Type.Object(
  {
    ...pageQueryFields('documents'),
    status: Type.Optional(Type.Unsafe<DocumentStatus>({ type: 'string',
      enum: [...DOCUMENT_STATUSES], description: 'Only documents in this status.' })),
    type: Type.Optional(DocumentTypeSchema),
  },
  { additionalProperties: false },
);

export const DocumentPage = Type.Object(
  {
    documents: Type.Array(DocumentSchema, { description: 'Newest first.' }),
    nextCursor: NullableString('Pass as `cursor` for the next page; null on the last page.'),
    hasMore: HasMore,
  },
  { title: 'DocumentPage', additionalProperties: false,
    description: 'A page of document requests, newest first.' },
);

export const OwnerBusinessBody = Type.Object(
  {
    businessNumber: Type.String({ minLength: 10, maxLength: 12, pattern: '^[0-9-]+$',
      description: 'Business registration number: ten digits, hyphens allowed; the checksum ' +
        'is checked.', examples: ['1234567891'] }),
    name: Type.String({ minLength: 1, maxLength: 100, pattern: PRINTABLE,
      description: 'Business name as registered.', examples: ['주식회사 이택스'] }),
    representativeName: Type.String({ minLength: 1, maxLength: 50, pattern: PRINTABLE,
      description: 'Representative name as registered.', examples: ['홍길동'] }),
  },
  { title: 'OwnerBusinessBody', additionalProperties: false,
    examples: [{ businessNumber: '1234567891', name: '주식회사 이택스', representativeName: '홍길동' }] },
);
export type OwnerBusinessBody = Static<typeof OwnerBusinessBody>;

export const OwnerBusiness = Type.Object(
  {
    businessNumber: Type.String(),
    name: Type.String(),
    representativeName: Type.String(),
    issuerId: Type.String({ description: 'The issuer that holds the business\'s joint ' +
      'certificate: register it with POST /v1/issuers/{issuerId}/certificates or the hosted ' +
      'page of GET /v1/issuers/{issuerId}/certificates/url.' }),
    certificate: Type.Union([Type.Object({
      issuedAt: Type.String({ format: 'date-time' }),
      expiresAt: Type.String({ format: 'date-time' }),
    }, { additionalProperties: false }), Type.Null()], { description: 'The registered joint ' +
      'certificate, or null: tax-authority documents need one.' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'OwnerBusiness', additionalProperties: false,
    description: 'The business that owns this account\'s API keys in this environment.',
    examples: [{ businessNumber: '1234567891', name: '주식회사 이택스', representativeName: '홍길동',
      issuerId: 'iss_9sV1dmc4T6uXg2kq3Yw0bA', certificate: null,
      createdAt: '2026-03-02T01:00:00.000Z', updatedAt: '2026-03-02T01:00:00.000Z' }] },
);
export type OwnerBusinessView = Static<typeof OwnerBusiness>;

// What POST /v1/documents:validate answers.
export const DocumentValidation = Type.Object(
  {
    valid: Type.Literal(true, { description: 'Always true: a request that would be refused ' +
      'is answered with the error the request would give instead.' }),
    replayOf: NullableString('When this key already used `Service-Client-Reference-Id` for ' +
      'the same body: the request that would be answered again, charging nothing. Null ' +
      'otherwise.'),
    document: Type.Union([Type.Object({
      type: openEnum(DOCUMENT_TYPES, 'The document type.'),
      options: DocumentSchema.properties.options,
      corporationNumber: NullableString('Registry copies: the corporation, thirteen digits.'),
      businessRegistrationNumber: NullableString('Tax-authority documents: the owner ' +
        'business they would be issued for.'),
    }, { additionalProperties: false }), Type.Null()], { description: 'The request as it ' +
      'would be recorded; null for a replay.' }),
    price: Type.Object({
      operation: openEnum(['documents.taxAuthority.issue', 'documents.registry.viewCopy',
        'documents.registry.submissionCopy'], 'The price row of the document\'s type.'),
      points: Type.Integer({ minimum: 0, description: 'What the request would reserve now ' +
        '(0 for a replay); the balance covers it.' }),
    }, { additionalProperties: false }),
  },
  { title: 'DocumentValidation', description: 'What requesting this document would do. ' +
    'Nothing was charged, recorded or claimed.', additionalProperties: false },
);
