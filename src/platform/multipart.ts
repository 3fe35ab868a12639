import type { FastifyMultipartOptions } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

// The options every multipart form is read with (@fastify/multipart, on busboy).
//
// busboy stops reading a request for good when one chunk of it carries more than a part stream's
// buffer (16 KiB by default) of a part it skips: a part without Content-Disposition, or whose
// Content-Disposition comes after the header lines it reads (headerPairs). Such a request was
// never answered. Node hands a request's body over in chunks of at most 64 KiB; with a part
// buffer larger than any chunk (and than any file, for forms read in one piece in tests), no
// chunk overfills it and a skipped part is read through: the form then lacks its part and is
// answered 400. Nothing more is held in memory: a skipped part is dropped as it arrives, and a
// file or field is read at once, within its own size limit.

type Limits = NonNullable<FastifyMultipartOptions['limits']> & { fileSize: number };

const PART_BUFFER_MIN_BYTES = 1024 * 1024;

export function multipartOptions(limits: Limits): FastifyMultipartOptions {
  return { limits, fileHwm: Math.max(limits.fileSize, PART_BUFFER_MIN_BYTES) };
}

// The one file part named `file` of a multipart form, with its file name: 415 for a request that
// is not a form, 413 for a file over the `fileSize` limit the form was registered with, 400 for a
// form without the part, with another part, or that cannot be read (no boundary, cut off).
export async function readFilePart(request: FastifyRequest, what: string):
Promise<{ file: Buffer; fileName: string | null }> {
  if (!request.isMultipart()) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE',
      `Send the ${what} as multipart/form-data with one part named file.`);
  }
  try {
    let found: { file: Buffer; fileName: string | null } | undefined;
    for await (const part of request.parts()) {
      if (part.type === 'file' && part.fieldname === 'file' && found === undefined) {
        found = { file: await part.toBuffer(), fileName: part.filename || null };
      } else {
        if (part.type === 'file') await part.toBuffer();
        throw new ApiError('INVALID_REQUEST', 'The form has an unexpected part: ' +
          `${part.fieldname.slice(0, 40)}. Send one part, file.`);
      }
    }
    if (found === undefined || found.file.length === 0) {
      throw new ApiError('INVALID_REQUEST', 'The form has no file part, or the file is empty.');
    }
    return found;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if ((error as { code?: unknown }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new ApiError('PAYLOAD_TOO_LARGE', `The ${what} is larger than the limit.`);
    }
    request.log.debug({ err: error }, 'form could not be read');
    throw new ApiError('INVALID_REQUEST', 'The form could not be read.');
  }
}
