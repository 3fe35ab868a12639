import type { FastifyMultipartOptions } from '@fastify/multipart';

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
