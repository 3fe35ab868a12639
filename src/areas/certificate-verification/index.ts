import type { AreaModule } from '../../platform/module.ts';
import type { Platform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import type { TaxAuthorities } from '../../upstream/tax-authority/adapters.ts';
import { createOcrPool } from './ocr-pool.ts';
import { createPdfReader, PDF_READER_DEFAULTS } from './pdf-reader.ts';
import { createCertificateReader } from './reader.ts';
import { registerCertificateVerificationRoutes } from './routes.ts';
import {
  createCertificateVerificationService,
  type CertificateVerificationService,
} from './service.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Business registration certificates',
    description: 'Reading and verifying business registration certificates.',
    guides: [
      { path: 'docs/certificate-verification.md', title: 'Business registration certificates' },
    ],
  },
];

// Business registration certificate verification (docs/certificate-verification.md): the fields
// of a certificate read from a PDF's text layer or by offline OCR of an image, then checked with
// the tax authority's authenticity check. No table: the answer is the record, and the points
// ledger keeps what was charged.
//
//   fields.ts      the fields from lines of text: labels, numbers with checksums, dates
//   file-type.ts   PDF, PNG or JPEG by the first bytes, and the limits
//   worker-pool.ts a fixed number of workers and a bounded queue, for OCR and PDFs alike
//   pdf-reader.ts  PDF reader threads, each read bounded in time and memory
//   pdf-thread.ts  (in a reader thread) one PDF at a time: pdf-text.ts
//   pdf-text.ts    a PDF's text layer as lines (unpdf)
//   pdf-streams.ts what a PDF's streams inflate to, checked before it is opened
//   image.ts       an image made ready for OCR (sharp)
//   ocr-pool.ts    tesseract.js workers in a worker pool
//   reader.ts      file → fields
//   service.ts     the rules: charge, read, ask, answer

// What the accuracy benchmark (bench/certificates/accuracy.ts) runs: the service's own reader.
export { FIELD_NAMES, type FieldName } from './fields.ts';
export { createOcrPool } from './ocr-pool.ts';
export { createPdfReader, PDF_READER_DEFAULTS } from './pdf-reader.ts';
export { createCertificateReader } from './reader.ts';

export type CertificateVerificationModule = AreaModule & {
  service: CertificateVerificationService;
};

export function createCertificateVerificationModule(
  platform: Platform,
  deps: { taxAuthorities: TaxAuthorities },
): CertificateVerificationModule {
  const { config } = platform;
  // Workers start on the first image or PDF, not at boot: a process that never sees one pays
  // nothing.
  const pool = createOcrPool({
    workers: config.CERTIFICATE_OCR_WORKERS,
    queueMax: config.CERTIFICATE_OCR_QUEUE_MAX,
  });
  const pdfReader = createPdfReader({
    ...PDF_READER_DEFAULTS,
    workers: config.CERTIFICATE_PDF_READERS,
    queueMax: config.CERTIFICATE_PDF_QUEUE_MAX,
  });
  const service = createCertificateVerificationService({
    charge: platform.charge,
    reader: createCertificateReader(pool, pdfReader),
    validatorFor: deps.taxAuthorities.validatorFor,
    timeoutMs: config.TAX_AUTHORITY_TIMEOUT_MS,
    now: platform.outside.now,
  });
  return {
    name: 'certificate-verification',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerCertificateVerificationRoutes,
      { certificates: service }),
    service,
    close: async () => {
      await Promise.all([pool.close(), pdfReader.close()]);
    },
  };
}
