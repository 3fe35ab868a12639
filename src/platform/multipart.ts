import type { FastifyMultipartOptions } from '@fastify/multipart';

// The options every multipart form is read with (@fastify/multipart, on busboy).
//
// busboy stops reading a request for good when one chunk of it carries more than a part stream's
// buffer (16 KiB by default) of a part it skips: a part without Content-Disposition, or whose
// Content-Disposition comes after the header lines it reads (headerPairs). Such a request was
// never answered. With the part buffer as large as the largest file, no chunk overfills it and
// a skipped part is read through; the form then lacks its part and is answered 400. Nothing
// more is held in memory: a file is read whole into memory anyway.

type Limits = NonNullable<FastifyMultipartOptions['limits']> & { fileSize: number };

export function multipartOptions(limits: Limits): FastifyMultipartOptions {
  return { limits, fileHwm: limits.fileSize };
}
