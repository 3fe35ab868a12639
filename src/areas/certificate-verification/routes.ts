import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../platform/errors.ts';
import { multipartOptions } from '../../platform/multipart.ts';
import { requestScope } from '../../platform/scope.ts';
import { CERTIFICATE_FILE_BYTES_MAX } from './file-type.ts';
import { UploadBody, VERIFY_DESCRIPTION, VERIFY_ERRORS, VerificationAnswer } from './schemas.ts';
import type { CertificateVerificationService } from './service.ts';
import { ReadersBusy } from './worker-pool.ts';

// POST /v1/businessRegistrationCertificates:verify: one multipart `file` part in, the reading
// and the verdict out.

// Seconds a client waits before trying again when every reader is busy: about one image.
const BUSY_RETRY_AFTER_SECONDS = 2;

function isClientError(error: unknown): boolean {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

async function readFileParts(request: FastifyRequest): Promise<Buffer> {
  let file: Buffer | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'file' && part.fieldname === 'file' && file === undefined) {
      file = await part.toBuffer();
    } else {
      if (part.type === 'file') await part.toBuffer();
      throw new ApiError('INVALID_REQUEST',
        `The form has an unexpected part: ${part.fieldname.slice(0, 40)}. Send one part, file.`);
    }
  }
  if (file === undefined || file.length === 0) {
    throw new ApiError('INVALID_REQUEST', 'The form has no file part, or the file is empty.');
  }
  return file;
}

// The file of the one `file` part. The multipart parser reports a form it cannot read (no
// boundary, cut off, a broken part header) as a plain error: 400. Its limits come with 413.
async function readUpload(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE',
      'Send the certificate as multipart/form-data with one part named file.');
  }
  try {
    return await readFileParts(request);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // Only the file size limit is "too large"; a second file or part is a form of the wrong
    // shape.
    if ((error as { code?: unknown }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new ApiError('PAYLOAD_TOO_LARGE',
        `The file is larger than ${CERTIFICATE_FILE_BYTES_MAX} bytes.`);
    }
    if (isClientError(error)) throw new ApiError('INVALID_REQUEST', 'The form could not be read.');
    request.log.debug({ err: error }, 'certificate form could not be read');
    throw new ApiError('INVALID_REQUEST', 'The form could not be read.');
  }
}

type Options = { certificates: CertificateVerificationService };

export const registerCertificateVerificationRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { certificates },
) => {
  await app.register(multipart, multipartOptions({ fileSize: CERTIFICATE_FILE_BYTES_MAX,
    files: 1, fields: 0, parts: 2, headerPairs: 20 }));

  app.post('/businessRegistrationCertificates::verify', {
    config: { operation: 'businesses.certificates.verify' },
    schema: {
      operationId: 'verifyBusinessRegistrationCertificate',
      tags: ['Business registration certificates'],
      summary: 'Read a business registration certificate and verify it with the tax authority',
      description: VERIFY_DESCRIPTION,
      consumes: ['multipart/form-data'],
      body: UploadBody,
      response: { 200: VerificationAnswer, ...VERIFY_ERRORS },
    },
    // The body is a multipart stream read by the handler; the schema above documents it.
    validatorCompiler: () => () => true,
  }, async (request, reply) => {
    const file = await readUpload(request);
    try {
      return await certificates.verify({ caller: requestScope(request), file });
    } catch (error) {
      if (!(error instanceof ReadersBusy)) throw error;
      reply.header('Retry-After', String(BUSY_RETRY_AFTER_SECONDS));
      throw new ApiError('SERVICE_UNAVAILABLE', 'Every reader of this kind of file is busy and ' +
        'the queue is full. Retry after the Retry-After seconds.');
    }
  });
};
