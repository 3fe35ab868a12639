import { createHash } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import type { RecordEvent } from '../../platform/events.ts';
import {
  DOCUMENT_JOB_RESUME_SECONDS,
  type JobDefinition,
  type StageJob,
} from '../../platform/jobs.ts';
import type { PointsService } from '../../platform/points/service.ts';
import type {
  CivilDocumentOptions,
  CivilDocumentService,
  CivilDocumentType,
  DocumentIssueResult,
} from '../../upstream/civil-documents/index.ts';
import type { CourtRegistry } from '../../upstream/court-registry/index.ts';
import type { CorporationKind } from '../../domain/corporation-kinds.ts';
import * as store from './store.ts';

// The job that takes an accepted request to its document (docs/documents.md § Processing):
// ACCEPTED → PROCESSING → ISSUED (the PDF stored as received, the reservation captured) or
// FAILED (the reservation released). Every step is a conditional status change, so a job that
// runs twice (a retry after its worker died) finds the document already moved and records,
// charges and announces nothing twice; both upstream services are idempotent by issuance key.

export const DOCUMENT_QUEUE = 'documents-issuance';
type DocumentJobData = { issuanceKey: string };

export type Upstreams = {
  civil(environment: Environment): CivilDocumentService | null;
  registry(environment: Environment): CourtRegistry | null;
};

export type ProcessingDeps = {
  db: Db;
  stage: StageJob;
  points: Pick<PointsService, 'capture' | 'release'>;
  recordEvent: RecordEvent;
  upstreams: Upstreams;
  timeoutMs: number;
  documentUrl(issuanceKey: string): string;
  log: Logger;
  now: () => Date;
};

const JOB_RETRY_LIMIT = 10;
const JOB_RETRY_DELAY_SECONDS = 2;
const JOBS_PER_FETCH = 10;
const POLLING_INTERVAL_SECONDS = 0.5;
const JOB_EXPIRY_MARGIN_SECONDS = 60;

// The job id of the check after the n-th pending answer: the same every time it is staged, so a
// job that runs twice does not start two chains of checks.
function pendingCheckJobId(issuanceKey: string, checkNumber: number): string {
  const hex = createHash('sha256').update(`document-check:${issuanceKey}:${checkNumber}`)
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-` +
    hex.slice(20, 32);
}

const isRegistry = (type: string) => type.startsWith('CORPORATE_REGISTRY_');

function askUpstream(
  deps: ProcessingDeps,
  row: store.DocumentSummaryRow,
): Promise<DocumentIssueResult> | null {
  const environment = row.environment as Environment;
  const signal = AbortSignal.timeout(deps.timeoutMs);
  if (isRegistry(row.type)) {
    const registry = deps.upstreams.registry(environment);
    const options = row.options as { registryScope: 'ALL' | 'PART';
      registryEntries: 'CURRENT' | 'INCLUDING_STRUCK_OUT' };
    return registry?.issue({
      issuanceKey: row.issuanceKey,
      copy: row.type === 'CORPORATE_REGISTRY_VIEW' ? 'VIEW' : 'SUBMISSION',
      corporationNumber: row.corporationNumber!,
      corporationKind: (row.subject as { corporationKind: CorporationKind }).corporationKind,
      scope: options.registryScope,
      entries: options.registryEntries,
      acceptedAt: row.acceptedAt,
    }, signal) ?? null;
  }
  const civil = deps.upstreams.civil(environment);
  const subject = row.subject as { businessNumber: string; name: string;
    representativeName: string; certificateSerialNumber: string; certificateNotAfter: string };
  return civil?.issue({
    issuanceKey: row.issuanceKey,
    type: row.type as CivilDocumentType,
    options: row.options as CivilDocumentOptions,
    business: { businessNumber: subject.businessNumber, name: subject.name,
      representativeName: subject.representativeName },
    certificate: { serialNumber: subject.certificateSerialNumber,
      notAfter: subject.certificateNotAfter },
    acceptedAt: row.acceptedAt,
  }, signal) ?? null;
}

const scopeOf = (row: store.DocumentSummaryRow) =>
  ({ accountId: row.accountId, environment: row.environment as Environment });

// The reservation of an issued document is captured whole; repeated, it captures nothing more.
async function captureIssued(deps: ProcessingDeps, row: store.DocumentSummaryRow) {
  if (row.reservationId === null) return;
  const outcome = await deps.points.capture({
    reservation: { reservationId: row.reservationId, reservedPoints: row.reservedPoints },
    chargePoints: row.reservedPoints,
  });
  if (outcome.kind === 'alreadySettled') {
    deps.log.debug({ issuanceKey: row.issuanceKey }, 'document reservation already settled');
  }
}

async function recordIssued(
  deps: ProcessingDeps,
  row: store.DocumentSummaryRow,
  result: Extract<DocumentIssueResult, { kind: 'issued' }>,
) {
  const issued = await deps.db.transaction(async (tx) => {
    const moved = await store.transition(tx, row.issuanceKey, ['PROCESSING'], 'ISSUED', {
      pdf: result.pdf,
      pdfSha256: createHash('sha256').update(result.pdf).digest('hex'),
      issueNumber: result.issueNumber,
      issuedAt: result.issuedAt,
    });
    if (moved === null) return null;
    await deps.recordEvent(tx, scopeOf(moved), { type: 'DOCUMENT_ISSUANCE_SUCCESS', data: {
      issuanceKey: moved.issuanceKey, type: moved.type,
      documentUrl: deps.documentUrl(moved.issuanceKey) } });
    return moved;
  });
  // Another run recorded it first; that run, or this one below, captures.
  await captureIssued(deps, issued ?? row);
}

async function recordFailed(
  deps: ProcessingDeps,
  row: store.DocumentSummaryRow,
  cause: { code: string; message: string },
) {
  await deps.db.transaction(async (tx) => {
    const moved = await store.transition(tx, row.issuanceKey, ['ACCEPTED', 'PROCESSING'],
      'FAILED', { failureCode: cause.code, failureMessage: cause.message, failedAt: deps.now() });
    if (moved === null) return;
    if (moved.reservationId !== null) {
      await deps.points.release({ reservationId: moved.reservationId,
        reservedPoints: moved.reservedPoints }, tx);
    }
    await deps.recordEvent(tx, scopeOf(moved), { type: 'DOCUMENT_ISSUANCE_FAILURE', data: {
      issuanceKey: moved.issuanceKey, type: moved.type, cause } });
  });
}

async function scheduleCheck(deps: ProcessingDeps, row: store.DocumentSummaryRow, at: Date) {
  await deps.db.transaction(async (tx) => {
    const checkNumber = await store.countPendingCheck(tx, row.issuanceKey);
    if (checkNumber === 0) return;
    await deps.stage(tx, DOCUMENT_QUEUE, { issuanceKey: row.issuanceKey },
      { startAfter: at, id: pendingCheckJobId(row.issuanceKey, checkNumber) });
  });
}

export async function processDocument(deps: ProcessingDeps, issuanceKey: string): Promise<void> {
  let row = await store.findForJob(deps.db, issuanceKey);
  if (row === null || row.status === 'FAILED') return;
  if (row.status === 'ISSUED') {
    await captureIssued(deps, row);
    return;
  }
  if (row.status === 'ACCEPTED') {
    row = await store.transition(deps.db, issuanceKey, ['ACCEPTED'], 'PROCESSING') ??
      await store.findForJob(deps.db, issuanceKey);
    if (row === null || row.status !== 'PROCESSING') return processDocument(deps, issuanceKey);
  }
  const asked = askUpstream(deps, row);
  if (asked === null) {
    await recordFailed(deps, row, { code: 'SERVICE_UNAVAILABLE',
      message: 'No gateway is configured for documents of this kind with live keys.' });
    return;
  }
  const result = await asked;
  switch (result.kind) {
    case 'issued': return recordIssued(deps, row, result);
    case 'rejected': return recordFailed(deps, row, { code: result.code,
      message: result.message });
    case 'pending': return scheduleCheck(deps, row, result.retryAt);
    case 'unavailable':
      // pg-boss retries the job with backoff.
      throw new Error(`upstream unavailable for document ${issuanceKey}`);
  }
}

export function documentJobDefinitions(deps: ProcessingDeps): JobDefinition[] {
  const definition: JobDefinition<DocumentJobData> = {
    queue: DOCUMENT_QUEUE,
    options: {
      retryLimit: JOB_RETRY_LIMIT,
      retryDelay: JOB_RETRY_DELAY_SECONDS,
      retryBackoff: true,
      // A job expires (and runs again) only once its upstream call has certainly timed out.
      expireInSeconds: Math.ceil(deps.timeoutMs / 1_000) + JOB_EXPIRY_MARGIN_SECONDS,
    },
    batchSize: JOBS_PER_FETCH,
    pollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
    resumeAfterRetriesSeconds: DOCUMENT_JOB_RESUME_SECONDS,
    async work(jobs: PgBoss.Job<DocumentJobData>[]) {
      const outcomes = await Promise.allSettled(jobs.map((job) =>
        processDocument(deps, job.data.issuanceKey)));
      const failed = outcomes.find((outcome) => outcome.status === 'rejected');
      // The whole fetch is retried; the documents already moved on do nothing the second time.
      if (failed) throw failed.reason;
    },
  };
  return [definition] as JobDefinition[];
}
