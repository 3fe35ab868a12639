import multipart from '@fastify/multipart';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { contentDisposition } from '../../../platform/content-disposition.ts';
import {
  BODY_ERRORS,
  errorResponses,
  PLATFORM_ERRORS,
} from '../../../platform/error-responses.ts';
import { ApiError } from '../../../platform/errors.ts';
import { multipartOptions } from '../../../platform/multipart.ts';
import { requestScope } from '../../../platform/scope.ts';
import { createValidatorCompiler } from '../../../platform/validation.ts';
import { COMMON_ERRORS } from '../route-errors.ts';
import { IssuanceKeyParams } from '../schemas.ts';
import {
  ATTACHMENT_BYTES_MAX,
  ATTACHMENT_KINDS,
  ATTACHMENTS_PER_INVOICE_MAX,
} from './files.ts';
import {
  AttachmentList, AttachmentParams, AttachmentsAdded, AttachmentUpload,
} from './schemas.ts';
import type { AttachmentService, UploadedFile } from './service.ts';

// A tax invoice's attachments under /v1 (docs/tax-invoices.md § Attachments): upload (multipart),
// list, download and delete.

type Options = { attachments: AttachmentService };

const TAGS = ['Tax invoices'];

async function readParts(request: FastifyRequest): Promise<UploadedFile[]> {
  const files: UploadedFile[] = [];
  for await (const part of request.parts()) {
    if (part.type !== 'file' || part.fieldname !== 'file') {
      if (part.type === 'file') await part.toBuffer();
      throw new ApiError('INVALID_REQUEST', `The form has an unexpected part: ${
        JSON.stringify(part.fieldname.slice(0, 40))}. Send parts named file only.`);
    }
    const content = await part.toBuffer();
    if (content.length === 0) {
      throw new ApiError('INVALID_REQUEST', 'A file part of the form is empty.');
    }
    files.push({ fileName: part.filename, content });
  }
  if (files.length === 0) throw new ApiError('INVALID_REQUEST', 'The form has no file part.');
  return files;
}

// The files of the form's `file` parts. The multipart parser reports a form it cannot read (no
// boundary, cut off, a broken part header) as a plain error: 400. Its limits are 413.
async function readUpload(request: FastifyRequest): Promise<UploadedFile[]> {
  if (!request.isMultipart()) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE',
      'Send the files as multipart/form-data, one part named file per file.');
  }
  try {
    return await readParts(request);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: unknown }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new ApiError('PAYLOAD_TOO_LARGE',
        `A file is larger than ${ATTACHMENT_BYTES_MAX} bytes.`);
    }
    if (code === 'FST_FILES_LIMIT') {
      throw new ApiError('PAYLOAD_TOO_LARGE',
        `The form carries more than ${ATTACHMENTS_PER_INVOICE_MAX} files.`);
    }
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
      throw new ApiError('INVALID_REQUEST', 'The form has parts other than files.');
    }
    request.log.debug({ err: error }, 'attachment form could not be read');
    throw new ApiError('INVALID_REQUEST', 'The form could not be read.');
  }
}

// The upload reads multipart forms; its own plugin keeps the parser away from the other routes.
const registerUpload: FastifyPluginAsyncTypebox<Options> = async (app, { attachments }) => {
  const validatorCompiler = createValidatorCompiler();
  await app.register(multipart, multipartOptions({ fileSize: ATTACHMENT_BYTES_MAX,
    files: ATTACHMENTS_PER_INVOICE_MAX, fields: 0, parts: ATTACHMENTS_PER_INVOICE_MAX + 1,
    headerPairs: 20 }));

  app.post('/taxInvoices/:issuanceKey/attachments', {
    config: { operation: 'taxInvoices.attachments.add' },
    schema: {
      operationId: 'addTaxInvoiceAttachments', tags: TAGS,
      summary: 'Attach files to a tax invoice',
      description: `Adds 1 to ${ATTACHMENTS_PER_INVOICE_MAX} files (multipart/form-data, one ` +
        `part named \`file\` per file) to the document, which carries at most ` +
        `${ATTACHMENTS_PER_INVOICE_MAX}. Each is at most ${ATTACHMENT_BYTES_MAX} bytes and a ` +
        'PDF, PNG, JPEG, XLSX or DOCX file by its content; a name whose extension claims another ' +
        'kind is 415 ATTACHMENT_TYPE_NOT_ALLOWED. The recipient\'s mail carries them after the ' +
        'PDF; the signed XML never does. Attachments change while the document is REQUESTED, ' +
        'APPROVED, PENDING or ISSUED; later it is 409 TAX_INVOICE_ATTACHMENTS_LOCKED. Free.',
      params: IssuanceKeyParams,
      consumes: ['multipart/form-data'],
      body: AttachmentUpload,
      response: {
        201: AttachmentsAdded,
        ...errorResponses(...PLATFORM_ERRORS,
          { code: 'INVALID_REQUEST', counted: 'sometimes' },
          { code: 'PAYLOAD_TOO_LARGE', counted: 'sometimes' },
          { code: 'UNSUPPORTED_MEDIA_TYPE', counted: 'sometimes' },
          'NOT_FOUND', 'TAX_INVOICE_ATTACHMENTS_LOCKED', 'TAX_INVOICE_ATTACHMENT_LIMIT',
          'ATTACHMENT_TYPE_NOT_ALLOWED'),
      },
    },
    // The body is a multipart stream read by the handler; the schema above documents it.
    // The path is checked like every other route's.
    validatorCompiler: (route) => (route.httpPart === 'body' ? () => true
      : validatorCompiler(route)),
  }, async (request, reply) => {
    const files = await readUpload(request);
    const added = await attachments.add({ scope: requestScope(request),
      issuanceKey: request.params.issuanceKey, files });
    return reply.status(201).send({ attachments: added });
  });
};

const registerReadsAndDelete: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { attachments },
) => {

  app.get('/taxInvoices/:issuanceKey/attachments', {
    config: { operation: 'taxInvoices.attachments.list' },
    schema: {
      operationId: 'listTaxInvoiceAttachments', tags: TAGS,
      summary: 'List a tax invoice\'s attachments',
      description: 'Every attachment of the document, in the order added, without content.',
      params: IssuanceKeyParams,
      response: { 200: AttachmentList, ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND') },
    },
  }, async (request) => ({ attachments: await attachments.list({ scope: requestScope(request),
    ...request.params }), nextCursor: null, hasMore: false }));

  app.get('/taxInvoices/:issuanceKey/attachments/:attachmentId', {
    config: { operation: 'taxInvoices.attachments.get' },
    schema: {
      operationId: 'getTaxInvoiceAttachment', tags: TAGS,
      summary: 'Download an attachment',
      description: 'The file as it was uploaded, under the content type of the kind its ' +
        'content was found to be.',
      params: AttachmentParams,
      response: {
        200: {
          description: 'The file.',
          headers: { 'Content-Disposition': Type.String({ description: 'A download under its ' +
            'kept name: `attachment; filename="<ASCII stand-in>"; filename*=UTF-8\'\'<name, ' +
            'percent-encoded>`.' }) },
          content: Object.fromEntries(Object.values(ATTACHMENT_KINDS).map((kind) =>
            [kind.contentType, { schema: Type.Unsafe<Buffer>({ type: 'string',
              format: 'binary' }) }])),
        },
        ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND'),
      },
    },
  }, async (request, reply) => {
    const file = await attachments.download({ scope: requestScope(request),
      ...request.params });
    return reply.type(file.contentType)
      .header('content-disposition', contentDisposition('attachment', file.fileName))
      .header('x-content-type-options', 'nosniff')
      .send(file.content);
  });

  app.delete('/taxInvoices/:issuanceKey/attachments/:attachmentId', {
    config: { operation: 'taxInvoices.attachments.delete' },
    schema: {
      operationId: 'deleteTaxInvoiceAttachment', tags: TAGS,
      summary: 'Delete an attachment',
      description: 'Removes the attachment while the document is REQUESTED, APPROVED, PENDING ' +
        'or ISSUED; later it is 409 TAX_INVOICE_ATTACHMENTS_LOCKED.',
      params: AttachmentParams,
      response: {
        204: Type.Null({ description: 'Deleted.' }),
        ...errorResponses(...PLATFORM_ERRORS, ...BODY_ERRORS, 'NOT_FOUND',
          'TAX_INVOICE_ATTACHMENTS_LOCKED'),
      },
    },
  }, async (request, reply) => {
    await attachments.remove({ scope: requestScope(request), ...request.params });
    return reply.code(204).send(null);
  });
};

export const attachmentRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  await app.register(registerUpload, options);
  await app.register(registerReadsAndDelete, options);
};
