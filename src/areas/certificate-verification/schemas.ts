import { Type } from '@fastify/type-provider-typebox';
import { errorResponses, PLATFORM_ERRORS } from '../../platform/error-responses.ts';
import { openEnum } from '../../platform/open-enum.ts';
import { REGISTRATION_STATUSES, TAX_TYPES } from '../../upstream/business-profiles/index.ts';
import { SANDBOX_CORPORATION } from '../../upstream/business-profiles/sandbox.ts';
import { FIELD_NAMES } from './fields.ts';
import { CERTIFICATE_FILE_BYTES_MAX, IMAGE_PIXELS_MAX } from './file-type.ts';

// The request and response schemas of certificate verification
// (docs/certificate-verification.md).

const FIELD_DESCRIPTIONS: Record<typeof FIELD_NAMES[number], string> = {
  businessRegistrationNumber: 'Business registration number (등록번호), ten digits, no hyphens; ' +
    'its checksum holds.',
  organizationName: 'Trade name (상호) or corporation name (법인명), as printed.',
  representativeName: 'Representative (대표자) or, for a sole proprietor, the name (성명).',
  openedOn: 'Opening date (개업연월일), `YYYY-MM-DD`.',
  corporateRegistrationNumber: 'Corporate registration number (법인등록번호), thirteen digits, ' +
    'no hyphen; its checksum holds. Corporations only.',
  address: 'Place of business (사업장 소재지), as printed.',
  businessType: 'Business type (업태).',
  businessItem: 'Business item (종목).',
  issuedOn: 'Issue date of the certificate, `YYYY-MM-DD`.',
  kind: '`corporate` (법인사업자) or `individual` (개인: 일반과세자, 간이과세자, 면세사업자).',
};

const nullableText = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description });

const Extracted = Type.Object(
  Object.fromEntries(FIELD_NAMES.map((name) => [name, nullableText(
    `${FIELD_DESCRIPTIONS[name]} Null when it could not be read.`)])),
  { additionalProperties: false, description: 'The value of every field; null when not read.' },
);

const FieldReading = Type.Object({
  value: Type.String(),
  confidence: Type.Number({ minimum: 0, maximum: 1, description: 'How sure the reading is, 0 ' +
    'to 1: 1 for a PDF text layer; for OCR the recognizer\'s confidence in the line, halved ' +
    'when a number needed one digit corrected to pass its checksum.' }),
}, { additionalProperties: false });

const Fields = Type.Object(
  Object.fromEntries(FIELD_NAMES.map((name) => [name, Type.Optional(FieldReading)])),
  { additionalProperties: false, description: 'Each field that was read, with its confidence.' },
);

const Status = Type.Object({
  status: Type.Enum(REGISTRATION_STATUSES, { description: 'Registration state now.' }),
  closedOn: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
    description: 'Closing date; null unless `status` is `CLOSED`.',
  }),
  taxType: Type.Union([openEnum(TAX_TYPES, 'Tax type.'), Type.Null()], {
    description: 'Tax type; null when the authority reports none.',
  }),
}, { additionalProperties: false });

const VERIFICATION_RESULTS = ['MATCHED', 'NOT_MATCHED', 'UNREADABLE',
  'UNAVAILABLE'] as const;

const Verification = Type.Object({
  result: Type.Unsafe<typeof VERIFICATION_RESULTS[number]>({
    type: 'string',
    enum: [...VERIFICATION_RESULTS],
    description: '`MATCHED`: the tax authority confirms the number, the opening date, the ' +
      'representative and every other field read. `NOT_MATCHED`: it does not. `UNREADABLE`: ' +
      'the number, the opening date or the representative could not be read; nothing was sent ' +
      'to the tax authority. `UNAVAILABLE`: the tax authority did not answer. Only `MATCHED` ' +
      'and `NOT_MATCHED` are charged.',
  }),
  checkedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the tax authority was asked (UTC); null for `UNREADABLE`.',
  }),
  status: Type.Union([Status, Type.Null()], {
    description: 'The registration state and tax type now; given with `MATCHED` only.',
  }),
}, { additionalProperties: false });

const EXAMPLE_EXTRACTED = {
  businessRegistrationNumber: SANDBOX_CORPORATION.businessRegistrationNumber,
  organizationName: SANDBOX_CORPORATION.organizationName,
  representativeName: SANDBOX_CORPORATION.representativeName,
  openedOn: SANDBOX_CORPORATION.openedOn,
  corporateRegistrationNumber: SANDBOX_CORPORATION.corporateRegistrationNumber,
  address: SANDBOX_CORPORATION.address?.roadAddress ?? null,
  businessType: SANDBOX_CORPORATION.industry.businessType,
  businessItem: SANDBOX_CORPORATION.industry.businessItem,
  issuedOn: '2025-01-15',
  kind: 'corporate',
};

export const VerificationAnswer = Type.Object(
  {
    extracted: Extracted,
    fields: Fields,
    source: Type.Union([Type.Enum(['PDF_TEXT', 'OCR'] as const), Type.Null()], {
      description: '`PDF_TEXT`: read from the PDF\'s text layer. `OCR`: recognised in an image. ' +
        'Null when nothing could be read (a PDF without a text layer).',
    }),
    verification: Verification,
  },
  {
    title: 'CertificateVerification',
    description: 'The fields read from a business registration certificate and the tax ' +
      'authority\'s verdict on them.',
    additionalProperties: false,
    examples: [{
      extracted: EXAMPLE_EXTRACTED,
      fields: Object.fromEntries(Object.entries(EXAMPLE_EXTRACTED).map(([name, value]) =>
        [name, { value, confidence: 1 }])),
      source: 'PDF_TEXT',
      verification: {
        result: 'MATCHED',
        checkedAt: '2026-01-15T03:00:00.000Z',
        status: { status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' },
      },
    }],
  },
);

export const UploadBody = Type.Object(
  {
    file: Type.Unsafe<Buffer>({
      type: 'string',
      format: 'binary',
      description: `The certificate: a PDF, PNG or JPEG of at most ${CERTIFICATE_FILE_BYTES_MAX} ` +
        `bytes (an image of at most ${IMAGE_PIXELS_MAX} pixels). The kind is told by the ` +
        'content, not by the part\'s content type or file name.',
    }),
  },
  {
    title: 'CertificateUpload',
    required: ['file'],
    additionalProperties: false,
    description: 'One part, `file`; any other part is 400. For example, with curl: ' +
      '`curl -u "$KEY:" -F file=@certificate.pdf …/v1/businessRegistrationCertificates:verify`.',
    examples: [{ file: '%PDF-1.7 … (the bytes of the certificate file)' }],
  },
);

export const VERIFY_DESCRIPTION =
  'Reads a business registration certificate (사업자등록증) and asks the tax authority whether ' +
  'it is genuine. Send `multipart/form-data` with one `file` part: a PDF with a text layer ' +
  '(as downloaded from Hometax) is read from its text; a PNG or JPEG scan or photo is read with ' +
  'offline OCR. Numbers are checked against their checksums, dates normalised to `YYYY-MM-DD`. ' +
  'When the registration number, the opening date and the representative were read, they and ' +
  'every other field read are sent to the tax authority. Charge: 100 points for `MATCHED` or ' +
  '`NOT_MATCHED`; `UNREADABLE` and `UNAVAILABLE` are free. The points are reserved before the ' +
  'file is read (402/409). A file that is not a PDF, PNG or JPEG is 415 ' +
  'UNSUPPORTED_FILE_TYPE, one that cannot be decoded or is over the limits 400 INVALID_FILE, ' +
  'one over the size limit 413. PDFs are read in threads of their own, bounded in time and ' +
  'memory. When every reader of the file\'s kind (OCR workers for images, reader threads for ' +
  'PDFs) is busy and its queue is full the answer is 503 SERVICE_UNAVAILABLE with ' +
  '`Retry-After`. Test keys use the sandbox certificates of docs/sandbox.md.';

// The form is read by the handler, after the rate limit counted the request: its 400, 413 and
// 415 carry the RateLimit headers, while a body refused earlier by the framework does not.
export const VERIFY_ERRORS = errorResponses(...PLATFORM_ERRORS,
  { code: 'INVALID_REQUEST', counted: 'sometimes' },
  { code: 'PAYLOAD_TOO_LARGE', counted: 'sometimes' },
  { code: 'UNSUPPORTED_MEDIA_TYPE', counted: 'sometimes' },
  'INVALID_FILE', 'PAYMENT_REQUIRED', 'AVAILABLE_POINTS_INSUFFICIENT', 'UNSUPPORTED_FILE_TYPE');
