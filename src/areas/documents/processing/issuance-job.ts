import { createHash } from 'node:crypto';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { StageJob } from '../../../platform/jobs.ts';
import type {
  CivilDocumentOptions,
  CivilDocumentService,
  CivilDocumentType,
  DocumentIssueResult,
} from '../../../upstream/civil-documents/index.ts';
import type { CourtRegistry } from '../../../upstream/court-registry/index.ts';
import type { CorporationKind } from '../../../domain/corporation-kinds.ts';
import { captureIssued, recordFailed, recordIssued, type LifecycleDeps } from '../lifecycle.ts';
import * as store from '../store.ts';

// The job that takes an accepted request to its document (docs/documents.md § Processing):
// ACCEPTED → PROCESSING → ISSUED (the PDF stored as received, the reservation captured) or
// FAILED (the reservation released), each with what goes with it (../lifecycle.ts). Every step is
// a conditional status change, so a job that runs twice (a retry after its worker died) finds the
// document already moved and records, charges and announces nothing twice; both upstream
// services are idempotent by issuance key. Its job definition is steps.ts's.

export const DOCUMENT_QUEUE = 'documents-issuance';
export type DocumentJobData = { issuanceKey: string };

export type Upstreams = {
  civil(environment: Environment): CivilDocumentService | null;
  registry(environment: Environment): CourtRegistry | null;
};

export type ProcessingDeps = LifecycleDeps & {
  stage: StageJob;
  upstreams: Upstreams;
  timeoutMs: number;
};

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
