import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import { isApiError } from '../../platform/errors.ts';
import type { JobDefinition, StageJob, StageJobs } from '../../platform/jobs.ts';
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
  stageMany: StageJobs;
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

const ISSUABLE = ['PENDING', 'APPROVED'] as const;

// PENDING | APPROVED → ISSUED for the documents of one fetch: each is signed under its issuer's
// certificate, then all are moved and their transmissions staged in one transaction.
async function issueDocuments(deps: ProcessingDeps, issuanceKeys: string[]): Promise<void> {
  const rows = (await store.findInvoicesByKeys(deps.db, issuanceKeys))
    .filter((row) => (ISSUABLE as readonly string[]).includes(row.status));
  const signed = (await Promise.all(rows.map((row) => signOrFail(deps, row))))
    .filter((document) => document !== null);
  if (signed.length === 0) return;
  const issuedAt = deps.now();
  const startAfter = new Date(Date.now() + deps.transmissionDelaySeconds * 1_000);
  await deps.db.transaction(async (tx) => {
    const issued = await store.transitionMany(tx, {
      from: ISSUABLE, to: 'ISSUED', actor: 'JOB',
      items: signed.map(({ row, document }) => ({ issuanceKey: row.issuanceKey,
        changes: { signedDigest: document.digest, signature: document.signature,
          signingCertificate: document.certificate, issuedAt } })),
    });
    await deps.stageMany(tx, TRANSMISSION_QUEUE, issued.map((issuanceKey) => ({
      data: { issuanceKey, attemptNumber: 1 } satisfies TransmissionJobData,
      id: transmissionJobId(issuanceKey, 1),
      startAfter,
    })));
  });
}

// The document signed, or null when its issuer can no longer sign: the document then fails.
async function signOrFail(deps: ProcessingDeps, row: store.TaxInvoiceRow) {
  let signer;
  try {
    ({ signer } = await deps.issuers.requireIssuerCertificate(store.scopeOfRow(row),
      row.supplierKey, row.issuanceType === 'STANDARD' ? 'STANDARD' : 'REVERSE_APPROVAL'));
  } catch (error) {
    const cause = isApiError(error) ? CERTIFICATE_CAUSES[error.code] : undefined;
    if (cause === undefined) throw error;
    await deps.db.transaction((tx) => endWithoutIssuance(deps, tx, {
      issuanceKey: row.issuanceKey, from: ISSUABLE, to: 'FAILED', actor: 'JOB', cause }));
    return null;
  }
  // A signature takes about half a millisecond of CPU; a fetch's signatures take turns with
  // requests instead of holding the event loop for all of them at once.
  await setImmediate();
  return { row, document: signDocument(row, signer!) };
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

type TransmissionAttempt = {
  job: TransmissionJobData;
  row: store.TaxInvoiceRow;
  result: Awaited<ReturnType<InvoiceTransmitter['transmit']>>;
};

// ISSUED → TRANSMITTING for the documents of one fetch (committed before the calls), then one
// call per document, side by side, then the outcomes. A document a previous run of its job left
// TRANSMITTING is called again.
async function transmitDocuments(deps: ProcessingDeps, jobs: TransmissionJobData[]) {
  const issuanceKeys = jobs.map((job) => job.issuanceKey);
  await deps.db.transaction((tx) => store.transitionMany(tx, { from: ['ISSUED'],
    to: 'TRANSMITTING', actor: 'JOB',
    items: issuanceKeys.map((issuanceKey) => ({ issuanceKey })) }));
  const transmitting = new Map((await store.findInvoicesByKeys(deps.db, issuanceKeys))
    .filter((row) => row.status === 'TRANSMITTING').map((row) => [row.issuanceKey, row]));
  const calls = await Promise.allSettled(jobs.filter((job) => transmitting.has(job.issuanceKey))
    .map(async (job): Promise<TransmissionAttempt> => {
      const row = transmitting.get(job.issuanceKey)!;
      const transmitter = deps.transmitterFor(store.scopeOfRow(row).environment);
      const result = transmitter === null ? { kind: 'unavailable' as const }
        : await transmitter.transmit(transmissionRequest(row),
          AbortSignal.timeout(deps.transmissionTimeoutMs));
      return { job, row, result };
    }));
  await settleTransmissions(deps, calls.flatMap((call) =>
    (call.status === 'fulfilled' ? [call.value] : [])));
  const failure = calls.find((call) => call.status === 'rejected');
  if (failure) throw failure.reason;
}

// Approval numbers are recorded together, in one transaction; a rejection or an unreachable
// authority, rare, each in a transaction of its own.
async function settleTransmissions(deps: ProcessingDeps, attempts: TransmissionAttempt[]) {
  const accepted = attempts.flatMap(({ row, result }) => (result.kind === 'accepted'
    ? [{ row, ntsTransactionId: result.ntsTransactionId, transmittedAt: deps.now() }] : []));
  if (accepted.length > 0) {
    await deps.db.transaction((tx) => recordTransmitted(deps, tx, accepted));
  }
  for (const { job, result } of attempts) {
    if (result.kind !== 'accepted') await settleFailedTransmission(deps, job, result);
    deps.log.info({ issuanceKey: job.issuanceKey, attemptNumber: job.attemptNumber,
      result: result.kind }, 'tax invoice transmission attempt');
  }
}

async function settleFailedTransmission(
  deps: ProcessingDeps,
  job: TransmissionJobData,
  result: Exclude<TransmissionAttempt['result'], { kind: 'accepted' }>,
): Promise<void> {
  const { issuanceKey } = job;
  await deps.db.transaction(async (tx) => {
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
const JOBS_PER_FETCH = 50;

// The jobs of one fetch are worked as one batch: their round trips and commits are paid once per
// fetch. If the batch fails, pg-boss retries the whole fetch, which finds the finished documents
// already moved on.
export function processingJobDefinitions(deps: ProcessingDeps): JobDefinition[] {
  const issuance: JobDefinition<IssuanceJobData> = {
    queue: ISSUANCE_QUEUE,
    options: JOB_OPTIONS,
    batchSize: JOBS_PER_FETCH,
    pollingIntervalSeconds: 0.5,
    work: (jobs: PgBoss.Job<IssuanceJobData>[]) =>
      issueDocuments(deps, jobs.map((job) => job.data.issuanceKey)),
  };
  const transmission: JobDefinition<TransmissionJobData> = {
    queue: TRANSMISSION_QUEUE,
    options: JOB_OPTIONS,
    batchSize: JOBS_PER_FETCH,
    pollingIntervalSeconds: 0.5,
    work: (jobs: PgBoss.Job<TransmissionJobData>[]) =>
      transmitDocuments(deps, jobs.map((job) => job.data)),
  };
  return [issuance, transmission] as JobDefinition[];
}
