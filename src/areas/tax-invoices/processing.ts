import { createHash } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import { isApiError } from '../../platform/errors.ts';
import type { JobDefinition, StageJob } from '../../platform/jobs.ts';
import type {
  InvoiceTransmitter,
  TransmissionRequest,
} from '../../upstream/tax-invoices/index.ts';
import type { IssuersService } from '../issuers/service.ts';
import { endWithoutIssuance, recordTransmitted, type LifecycleDeps } from './lifecycle.ts';
import {
  ISSUANCE_QUEUE,
  TRANSMISSION_QUEUE,
  type IssuanceJobData,
  type TransmissionJobData,
} from './queues.ts';
import { canonicalDocument, signDocument } from './signing.ts';
import * as store from './store.ts';

// The jobs that take an accepted document to the tax authority (docs/tax-invoices.md §
// Processing). Every step is a conditional status change, so a job that runs twice (a retry
// after a crash) finds the document already moved and does nothing: a document is signed,
// transmitted, charged, refunded and announced at most once.
//
//   issuance:     PENDING | APPROVED → ISSUED (signed), and the transmission job is staged to
//                 run after the cancel window (TAX_INVOICE_TRANSMISSION_DELAY_SECONDS)
//   transmission: ISSUED → TRANSMITTING (committed before the call, so a cancel can no longer
//                 win), then the call, then → TRANSMITTED or FAILED. A crash after the call
//                 leaves TRANSMITTING; the retried job calls again, and the authority answers a
//                 repeated document with the same approval number.

export type ProcessingDeps = LifecycleDeps & {
  db: Db;
  stage: StageJob;
  issuers: Pick<IssuersService, 'requireIssuerCertificate'>;
  transmitterFor(environment: Environment): InvoiceTransmitter | null;
  transmissionDelaySeconds: number;
  transmissionTimeoutMs: number;
  now: () => Date;
  log: Logger;
};

// Waits before each further attempt when the authority cannot be reached; after the last the
// document fails with TRANSMISSION_UNAVAILABLE. About 10 hours in all, inside the authority's
// next-day transmission rule (domain facts §4.5).
export const TRANSMISSION_RETRY_DELAYS_SECONDS = [30, 120, 600, 3_600, 3 * 3_600, 6 * 3_600];

const CERTIFICATE_CAUSES: Record<string, { code: string; message: string }> = {
  CERTIFICATE_NOT_REGISTERED: { code: 'NOT_FOUND_CERTIFICATE',
    message: 'The supplier has no valid registered joint certificate.' },
  ISSUER_DEACTIVATED: { code: 'ISSUER_DEACTIVATED', message: 'The supplier is deactivated.' },
  NOT_FOUND: { code: 'ISSUER_NOT_FOUND', message: 'The supplier no longer exists.' },
};

// PENDING | APPROVED → ISSUED: signs under the issuer's certificate and stages transmission.
async function issueDocument(deps: ProcessingDeps, issuanceKey: string): Promise<void> {
  const row = await store.findInvoiceByKey(deps.db, issuanceKey);
  if (row === null || (row.status !== 'PENDING' && row.status !== 'APPROVED')) return;
  let signer;
  try {
    ({ signer } = await deps.issuers.requireIssuerCertificate(store.scopeOfRow(row),
      row.supplierKey, row.issuanceType === 'STANDARD' ? 'STANDARD' : 'REVERSE_APPROVAL'));
  } catch (error) {
    const cause = isApiError(error) ? CERTIFICATE_CAUSES[error.code] : undefined;
    if (cause === undefined) throw error;
    await deps.db.transaction((tx) => endWithoutIssuance(deps, tx, {
      issuanceKey, from: ['PENDING', 'APPROVED'], to: 'FAILED', actor: 'JOB', cause }));
    return;
  }
  const signed = signDocument(row, signer!);
  const issuedAt = deps.now();
  await deps.db.transaction(async (tx) => {
    const issued = await store.transition(tx, {
      issuanceKey, from: ['PENDING', 'APPROVED'], to: 'ISSUED', actor: 'JOB',
      changes: { signedDigest: signed.digest, signature: signed.signature,
        signingCertificate: signed.certificate, issuedAt },
    });
    if (issued === null) return;
    const data: TransmissionJobData = { issuanceKey, attemptNumber: 1 };
    await deps.stage(tx, TRANSMISSION_QUEUE, data,
      { startAfter: deps.transmissionDelaySeconds, id: transmissionJobId(issuanceKey, 1) });
  });
}

function transmissionRequest(row: store.TaxInvoiceRow): TransmissionRequest {
  return {
    issuanceKey: row.issuanceKey,
    writeDate: row.writeDate,
    supplierNumber: row.invoice.supplier.identificationNumber,
    recipientNumber: row.counterpartNumber,
    signedDocument: canonicalDocument(row),
    signature: row.signature!,
    certificate: row.signingCertificate!,
  };
}

async function transmitDocument(deps: ProcessingDeps, job: TransmissionJobData): Promise<void> {
  const { issuanceKey } = job;
  const moved = await deps.db.transaction((tx) => store.transition(tx, {
    issuanceKey, from: ['ISSUED'], to: 'TRANSMITTING', actor: 'JOB' }));
  const row = moved ?? await store.findInvoiceByKey(deps.db, issuanceKey);
  if (row === null || row.status !== 'TRANSMITTING') return;
  const transmitter = deps.transmitterFor(store.scopeOfRow(row).environment);
  const request = transmissionRequest(row);
  const result = transmitter === null ? { kind: 'unavailable' as const }
    : await transmitter.transmit(request, AbortSignal.timeout(deps.transmissionTimeoutMs));
  await settleTransmission(deps, job, result);
}

async function settleTransmission(
  deps: ProcessingDeps,
  job: TransmissionJobData,
  result: Awaited<ReturnType<InvoiceTransmitter['transmit']>>,
): Promise<void> {
  const { issuanceKey } = job;
  await deps.db.transaction(async (tx) => {
    if (result.kind === 'accepted') {
      await recordTransmitted(deps, tx, { issuanceKey,
        ntsTransactionId: result.ntsTransactionId, transmittedAt: deps.now() });
      return;
    }
    if (result.kind === 'rejected') {
      await endWithoutIssuance(deps, tx, { issuanceKey, from: ['TRANSMITTING'], to: 'FAILED',
        actor: 'JOB', cause: { code: result.code, message: result.message } });
      return;
    }
    const delay = TRANSMISSION_RETRY_DELAYS_SECONDS[job.attemptNumber - 1];
    if (delay === undefined) {
      await endWithoutIssuance(deps, tx, { issuanceKey, from: ['TRANSMITTING'], to: 'FAILED',
        actor: 'JOB', cause: { code: 'TRANSMISSION_UNAVAILABLE',
          message: 'The tax authority could not be reached; the invoice was not transmitted.' } });
      return;
    }
    const next: TransmissionJobData = { issuanceKey, attemptNumber: job.attemptNumber + 1 };
    await deps.stage(tx, TRANSMISSION_QUEUE, next,
      { startAfter: delay, id: transmissionJobId(issuanceKey, next.attemptNumber) });
  });
  deps.log.info({ issuanceKey, attemptNumber: job.attemptNumber, result: result.kind },
    'tax invoice transmission attempt');
}

// The pg-boss job id of a transmission attempt, the same every time it is staged: a job that
// runs twice (its fetch failed and was retried, or its worker died after staging the next
// attempt) stages that attempt again, which then adds nothing, so a document never has two
// chains of retries.
export function transmissionJobId(issuanceKey: string, attemptNumber: number): string {
  const hex = createHash('sha256').update(`transmission:${issuanceKey}:${attemptNumber}`)
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-` +
    hex.slice(20, 32);
}

// pg-boss reruns a job whose worker died (expiry) or threw; the steps above make that harmless.
const JOB_OPTIONS = { retryLimit: 10, retryDelay: 2, retryBackoff: true, expireInSeconds: 120 };
const JOBS_PER_FETCH = 20;

// The jobs of one fetch run side by side: a transmission mostly waits on the authority. If any
// fails, pg-boss retries the whole fetch, which finds the finished ones already done.
async function runAll<Data>(jobs: PgBoss.Job<Data>[], run: (data: Data) => Promise<void>) {
  const results = await Promise.allSettled(jobs.map((job) => run(job.data)));
  const failure = results.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
}

export function processingJobDefinitions(deps: ProcessingDeps): JobDefinition[] {
  const issuance: JobDefinition<IssuanceJobData> = {
    queue: ISSUANCE_QUEUE,
    options: JOB_OPTIONS,
    batchSize: JOBS_PER_FETCH,
    pollingIntervalSeconds: 0.5,
    work: (jobs: PgBoss.Job<IssuanceJobData>[]) =>
      runAll(jobs, (data) => issueDocument(deps, data.issuanceKey)),
  };
  const transmission: JobDefinition<TransmissionJobData> = {
    queue: TRANSMISSION_QUEUE,
    options: JOB_OPTIONS,
    batchSize: JOBS_PER_FETCH,
    pollingIntervalSeconds: 0.5,
    work: (jobs: PgBoss.Job<TransmissionJobData>[]) =>
      runAll(jobs, (data) => transmitDocument(deps, data)),
  };
  return [issuance, transmission] as JobDefinition[];
}
