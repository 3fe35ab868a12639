import { Type } from '@fastify/type-provider-typebox';
import { IssuanceKeyParams } from '../schemas.ts';
import {
  ATTACHMENT_BYTES_MAX,
  ATTACHMENT_EXTENSIONS,
  ATTACHMENT_NAME_LENGTH_MAX,
  ATTACHMENTS_PER_INVOICE_MAX,
} from './files.ts';

// Schemas of a tax invoice's attachments (docs/tax-invoices.md § Attachments).

export const AttachmentParams = Type.Object(
  {
    ...IssuanceKeyParams.properties,
    attachmentId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$',
      description: 'The `attachmentId` the upload returned.' }),
  },
  { additionalProperties: false },
);

const Attachment = Type.Object(
  {
    attachmentId: Type.String({ examples: ['tia_3q2Yw8kR5nC1xZ0aB7dE9f'] }),
    issuanceKey: Type.String(),
    fileName: Type.String({ description: 'The name it is served and mailed under: the last ' +
      'segment of the name it was sent with, without control or direction-changing characters, ' +
      `at most ${ATTACHMENT_NAME_LENGTH_MAX} characters.`, examples: ['거래명세서.pdf'] }),
    contentType: Type.String({ description: 'Told by the content, not by what was declared.',
      examples: ['application/pdf'] }),
    size: Type.Integer({ description: 'Bytes.' }),
    sha256: Type.String({ description: 'SHA-256 of the content, hex.' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'TaxInvoiceAttachment', additionalProperties: false },
);

// A document has at most ATTACHMENTS_PER_INVOICE_MAX attachments: its list is one page.
export const AttachmentList = Type.Object(
  {
    attachments: Type.Array(Attachment, { maxItems: ATTACHMENTS_PER_INVOICE_MAX,
      description: 'In the order they were added, the first first.' }),
    nextCursor: Type.Null({ description: 'Always null: the list is one page.' }),
    hasMore: Type.Boolean({ description: 'Always false.' }),
  },
  { title: 'TaxInvoiceAttachmentList', additionalProperties: false,
    description: 'The attachments in the order they were added.' },
);

export const AttachmentsAdded = Type.Object(
  { attachments: Type.Array(Attachment, { maxItems: ATTACHMENTS_PER_INVOICE_MAX,
    description: 'The files added, in the order of the form.' }) },
  { title: 'TaxInvoiceAttachmentsAdded', additionalProperties: false,
    description: 'The attachments the form added.' },
);

const BINARY = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });

export const AttachmentUpload = Type.Object(
  {
    // One part reads as one value to a form reader, several as a list: both are this field.
    file: Type.Union([BINARY, Type.Array(BINARY, {
      minItems: 1, maxItems: ATTACHMENTS_PER_INVOICE_MAX })], {
      description: `One part per file, each named \`file\`: at most ${ATTACHMENT_BYTES_MAX} ` +
        `bytes, a PDF, PNG, JPEG, XLSX or DOCX file by its content, whose name ends with an ` +
        `extension of its kind (${ATTACHMENT_EXTENSIONS.join(', ')}) or with none.`,
    }),
  },
  {
    title: 'TaxInvoiceAttachmentUpload',
    required: ['file'],
    additionalProperties: false,
    description: `1 to ${ATTACHMENTS_PER_INVOICE_MAX} parts named \`file\`; any other part is ` +
      '400. For example, with curl: `curl -u "$KEY:" -F file=@거래명세서.pdf ' +
      '-F file=@photo.jpg …/v1/taxInvoices/{issuanceKey}/attachments`.',
  },
);
