import { Type, type Static } from '@fastify/type-provider-typebox';
import { HasMore, pageQueryFields } from '../../platform/paging.ts';
import { KEY_FILE_PASSWORD_LENGTH_MAX } from '../../domain/key-file-limits.ts';
import { REGISTRATION_CODES } from './registration-codes.ts';
import { PRINTED_TEXT_PATTERN } from '../../domain/text.ts';

// Request and response schemas of the issuers routes (docs/issuers.md). The examples use the
// sandbox business 123-45-67890 of docs/sandbox.md.

// Text a person types and invoices print (src/domain/text.ts).
const PRINTABLE = PRINTED_TEXT_PATTERN;
const text = (minLength: number, maxLength: number, description: string, example: string) =>
  Type.String({ minLength, maxLength, pattern: PRINTABLE, description, examples: [example] });
const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

export const IssuerIdParams = Type.Object(
  {
    issuerId: Type.String({
      minLength: 1,
      maxLength: 100,
      // Ids are letters, digits, `_` and `-`; anything else cannot name an issuer.
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'The `issuerId` returned when the issuer was registered, whole.',
    }),
  },
  { additionalProperties: false },
);

const Contact = {
  contactName: nullable(text(1, 50, 'Contact person for tax invoices.', '김담당')),
  contactEmail: nullable(Type.String({ format: 'email', maxLength: 254,
    description: 'Contact email address.', examples: ['tax@example.co.kr'] })),
  contactPhone: nullable(Type.String({ pattern: '^[0-9+() -]{1,30}$', maxLength: 30,
    description: 'Contact phone number: digits, spaces, +, -, ( and ).',
    examples: ['02-1234-5678'] })),
};

// A corporation's business year (사업연도) may end in any month; an individual's is the calendar
// year (소득세법 §5). It decides how late a tax-exempt invoice (계산서) can still be issued.
const FiscalYearEndMonth = Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 12,
  description: 'The last month (1–12) of the business year (사업연도) of a corporation ' +
    '(digits 4–5 of its number 81 to 88); null or absent for the calendar year. An ' +
    'individual\'s business year is the calendar year: for one, only 12 or null. It decides ' +
    'the late-issuance limit of its tax-exempt invoices (계산서): the 25th of the month after ' +
    'the business year ends.', examples: [3] }), Type.Null()]));

const OrganizationName = text(1, 100, 'Business name as registered.', '주식회사 이택스');
const RepresentativeName = text(1, 50, 'Representative name as registered.', '홍길동');

export const CreateIssuerBody = Type.Object(
  {
    identificationNumber: Type.String({
      minLength: 10,
      maxLength: 12,
      pattern: '^[0-9-]+$',
      description: 'Business registration number: ten digits, hyphens allowed; the checksum ' +
        'is checked.',
      examples: ['1234567891'],
    }),
    organizationName: OrganizationName,
    representativeName: RepresentativeName,
    taxRegistrationId: Type.Optional(Type.String({
      pattern: '^(?!0000)[0-9]{4}$',
      description: 'Sub-place (종사업장) number: four digits, not 0000.',
      examples: ['0001'],
    })),
    fiscalYearEndMonth: FiscalYearEndMonth,
    ...Contact,
  },
  { title: 'CreateIssuerBody', additionalProperties: false },
);
export type CreateIssuerBody = Static<typeof CreateIssuerBody>;

export const UpdateIssuerBody = Type.Object(
  {
    organizationName: Type.Optional(OrganizationName),
    representativeName: Type.Optional(RepresentativeName),
    fiscalYearEndMonth: FiscalYearEndMonth,
    ...Contact,
  },
  {
    title: 'UpdateIssuerBody',
    description: 'Fields to change; absent fields stay, null clears a contact field. The ' +
      'business registration number and sub-place cannot change: register a new issuer. ' +
      'null clears `fiscalYearEndMonth` (the calendar year).',
    additionalProperties: false,
    minProperties: 1,
  },
);

const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
const NullableString = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description });

const ISSUER_EXAMPLE = {
  issuerId: 'iss_3q2-7wEXAMPLEv1ZkQ8cFm2A',
  supplierKey: 'sup_Rk5nEXAMPLEm0pWq7c1y9A',
  identificationNumber: '1234567891',
  taxRegistrationId: null,
  organizationName: '주식회사 이택스',
  representativeName: '홍길동',
  contactName: '김담당',
  contactEmail: 'tax@example.co.kr',
  contactPhone: '02-1234-5678',
  fiscalYearEndMonth: null,
  active: true,
  certificate: { issuedAt: '2026-01-02T00:00:00.000Z', expiresAt: '2027-01-02T23:59:59.000Z' },
  createdAt: '2026-11-20T01:02:03.000Z',
  updatedAt: '2026-11-20T01:02:03.000Z',
};

export const Issuer = Type.Object(
  {
    issuerId: Type.String({ description: 'Opaque id; store and reuse it whole.' }),
    supplierKey: Type.String({ description: 'The value of the `Supplier-Key` header when ' +
      'this issuer issues tax invoices. Valid only with keys of the same account and ' +
      'environment.' }),
    identificationNumber: Type.String({ description: 'Ten digits.' }),
    taxRegistrationId: NullableString('Sub-place number, or null.'),
    organizationName: Type.String(),
    representativeName: Type.String(),
    contactName: NullableString('Contact person, or null.'),
    contactEmail: NullableString('Contact email, or null.'),
    contactPhone: NullableString('Contact phone, or null.'),
    fiscalYearEndMonth: Type.Union([Type.Integer({ minimum: 1, maximum: 12 }), Type.Null()], {
      description: 'The last month of the business year, or null for the calendar year.' }),
    active: Type.Boolean({ description: 'False once deactivated.' }),
    certificate: Type.Union([
      Type.Object({ issuedAt: Timestamp('Start of validity.'),
        expiresAt: Timestamp('End of validity.') }, { additionalProperties: false }),
      Type.Null(),
    ], { description: 'The registered joint certificate\'s validity, or null when none.' }),
    createdAt: Timestamp('When the issuer was registered.'),
    updatedAt: Timestamp('When the issuer last changed.'),
  },
  { title: 'Issuer', description: 'A business that issues tax invoices under this key.',
    additionalProperties: false, examples: [ISSUER_EXAMPLE] },
);

export const ListIssuersQuery = Type.Object(
  {
    ...pageQueryFields('issuers'),
  },
  { additionalProperties: false },
);

export const IssuerPage = Type.Object(
  {
    issuers: Type.Array(Issuer, { description: 'Issuers in registration order.' }),
    nextCursor: NullableString('Pass as `cursor` for the next page; null on the last page.'),
    hasMore: HasMore,
  },
  { title: 'IssuerPage', description: 'A page of issuers, in registration order.',
    additionalProperties: false,
    examples: [{ issuers: [ISSUER_EXAMPLE], nextCursor: null, hasMore: false }] },
);

// 16 KiB covers any real signCert.der (about 2 KB) or signPri.key (about 1.3 KB) with room.
export const CERTIFICATE_FILE_BYTES_MAX = 16_384;
const BASE64_LENGTH_MAX = Math.ceil(CERTIFICATE_FILE_BYTES_MAX / 3) * 4;
// The request body of a direct registration: two files in base64 and a password.
export const CERTIFICATE_BODY_BYTES_MAX = 64 * 1024;

const Base64File = (description: string) => Type.String({
  minLength: 4, maxLength: BASE64_LENGTH_MAX, pattern: '^[A-Za-z0-9+/]+={0,2}$', description,
});

export const CertificateUploadBody = Type.Object(
  {
    signCert: Base64File('The bytes of signCert.der, standard base64.'),
    signPri: Base64File('The bytes of signPri.key, standard base64.'),
    password: Type.String({ minLength: 1, maxLength: KEY_FILE_PASSWORD_LENGTH_MAX,
      description: 'The certificate password. Never stored in clear, logged or returned.' }),
  },
  { title: 'CertificateUploadBody', additionalProperties: false },
);

export const RegistrationAccepted = Type.Object(
  {
    identifier: Type.String({ description: 'The identifier the history record of this ' +
      'attempt will carry.' }),
    issuerId: Type.String(),
  },
  { title: 'CertificateRegistrationAccepted', description: 'The registration attempt, ' +
    'accepted; its result appears in latestHistory.', additionalProperties: false,
    examples: [{ identifier: 'crg_Vf0bEXAMPLEq8Yc3kT1n2w',
      issuerId: ISSUER_EXAMPLE.issuerId }] },
);

export const CertificateFacts = Type.Object(
  {
    subject: Type.String({ description: 'Subject distinguished name.' }),
    issuerName: Type.String({ description: 'Issuing CA\'s distinguished name.' }),
    serialNumber: Type.String({ description: 'Serial number, hexadecimal.' }),
    notBefore: Timestamp('Start of validity.'),
    notAfter: Timestamp('End of validity.'),
    keyUsages: Type.Array(Type.String(), { description: 'Key usage names.' }),
    policies: Type.Array(Type.String(), { description: 'Certificate policy OIDs.' }),
    registrationIdentifier: Type.String({ description: 'History record that registered it.' }),
    registeredAt: Timestamp('When it was registered.'),
  },
  { title: 'IssuerCertificate', description: 'The public facts of the registered joint ' +
    'certificate.', additionalProperties: false, examples: [{
    subject: 'CN=주식회사이택스(1234567891), OU=corporation, O=yessign, C=KR',
    issuerName: 'CN=yessignCA Class 2, OU=AccreditedCA, O=yessign, C=KR',
    serialNumber: '1a2b3c',
    notBefore: '2026-01-02T00:00:00.000Z',
    notAfter: '2027-01-02T23:59:59.000Z',
    keyUsages: ['digitalSignature', 'nonRepudiation'],
    policies: ['1.2.410.200005.1.1.5'],
    registrationIdentifier: 'crg_Vf0bEXAMPLEq8Yc3kT1n2w',
    registeredAt: '2026-11-20T01:02:04.000Z',
  }] },
);

export const RegistrationUrl = Type.Object(
  {
    url: Type.String({ description: 'One-time page for the business owner; valid 5 minutes.' }),
    expiresAt: Timestamp('When the link stops working.'),
  },
  { title: 'CertificateRegistrationUrl', description: 'A one-time certificate registration ' +
    'page.', additionalProperties: false, examples: [{
    url: 'https://etax.example.com/certificate-registration/Zm9vYmFyEXAMPLEdG9rZW4tdmFsdWUtMzJi',
    expiresAt: '2026-11-20T01:07:03.000Z',
  }] },
);

const codeList = Object.keys(REGISTRATION_CODES).map((code) => `\`${code}\``).join(', ');

export const LatestHistory = Type.Object(
  {
    latestHistory: Type.Object(
      {
        identifier: Type.String({ description: 'The attempt\'s identifier.' }),
        issuerId: Type.String(),
        occurredAt: Timestamp('When the result was recorded.'),
        code: Type.String({ description: `One of ${codeList} (docs/issuers.md).` }),
        message: Type.String(),
      },
      { title: 'CertificateRegistrationRecord', additionalProperties: false },
    ),
  },
  { title: 'CertificateLatestHistory', description: 'The latest certificate registration ' +
    'record.', additionalProperties: false, examples: [{
    latestHistory: {
      identifier: 'crg_Vf0bEXAMPLEq8Yc3kT1n2w', issuerId: ISSUER_EXAMPLE.issuerId,
      occurredAt: '2026-11-20T01:02:04.000Z', code: 'WRONG_PASSWORD',
      message: REGISTRATION_CODES.WRONG_PASSWORD,
    },
  }] },
);

export const RegistrationSettings = Type.Object(
  {
    certificateRedirectUrl: Type.Union([
      Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 }),
      Type.Null(),
    ], { description: 'Where the hosted registration page sends the browser after a ' +
      'certificate is registered; null shows etax\'s own confirmation page.' }),
  },
  { title: 'CertificateRegistrationSettings', description: 'This key\'s certificate ' +
    'registration settings.', additionalProperties: false,
    examples: [{ certificateRedirectUrl: 'https://app.example.com/certificates/done' }] },
);
