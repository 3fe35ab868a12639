import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { recordTogetherOrAlone } from '../../../platform/db/together-or-alone.ts';
import {
  DOCUMENT_JOB_RESUME_SECONDS,
  type JobDefinition,
  type StageJob,
  type StageJobs,
} from '../../../platform/jobs.ts';
import type {
  ApprovalRequest,
  ApprovalResult,
  CashReceiptAuthority,
} from '../../../upstream/cash-receipts/index.ts';
import {
  recordApproved,
  recordFailed,
  recordTransmitted,
  type LifecycleDeps,
} from '../lifecycle.ts';
import * as store from '../store.ts';
import {
  APPROVAL_QUEUE,
  stepJobId,
  TRANSMISSION_QUEUE,
  type ApprovalJobData,
  type TransmissionJobData,
} from './queues.ts';

// The jobs that take an accepted receipt to the tax authority (docs/cash-receipts.md §
// Processing). Every step is a conditional status change, so a job that runs twice (a retry after
// a worker died mid-job) finds the receipt already moved and does nothing: a receipt is approved,
// refunded, mailed and announced at most once. The authority answers a repeated approval of the
// same issuance key with the same number.
//
//   approval:      ACCEPTED → ISSUED (approval number) or FAILED; the transmission staged
//   transmission:  ISSUED → TRANSMITTED, the next day in production

export type ProcessingDeps = LifecycleDeps & {
  db: Db;
  stage: StageJob;
  stageMany: StageJobs;
  authorityFor(environment: Environment): CashReceiptAuthority | null;
  gatewayTimeoutMs: number;
  // When an approved receipt of this environment is transmitted.
  transmissionStartAfter(environment: Environment, approvedAt: Date): Date;
  // Waits before each further approval attempt when the authority cannot be reached; after the
  // last the receipt fails with APPROVAL_UNAVAILABLE.
  approvalRetryDelaysSeconds: readonly number[];
  now: () => Date;
  log: Logger;
};

export const APPROVAL_RETRY_DELAYS_SECONDS = [30, 120, 600, 3_600, 3 * 3_600];

const JOB_RETRY_LIMIT = 10;
const JOB_RETRY_DELAY_SECONDS = 2;
const JOBS_PER_FETCH = 50;
const POLLING_INTERVAL_SECONDS = 0.5;
const JOB_EXPIRY_MARGIN_SECONDS = 60;

function approvalRequest(row: store.CashReceiptRow): ApprovalRequest {
  return {
    issuanceKey: row.issuanceKey, kind: row.kind, merchantNumber: row.merchantNumber,
    tradeDate: row.tradeDate, usage: row.usage, identityNumber: row.identityNumber,
    taxation: row.taxation, tradeOption: row.tradeOption, supplyCost: row.supplyCost,
    tax: row.tax, serviceFee: row.serviceFee, totalAmount: row.totalAmount,
    itemName: row.itemName,
    original: row.kind === 'CANCELLATION' ? { approvalNumber: row.originalApprovalNumber!,
      tradeDate: row.originalTradeDate!, reason: row.cancelReason! } : null,
  };
}

type Asked = { job: ApprovalJobData; row: store.CashReceiptRow; result: ApprovalResult };

async function askForApproval(deps: ProcessingDeps, job: ApprovalJobData,
  row: store.CashReceiptRow): Promise<Asked> {
  const authority = deps.authorityFor(store.scopeOfRow(row).environment);
  const result: ApprovalResult = authority === null ? { kind: 'unavailable' }
    : await authority.approve(approvalRequest(row), AbortSignal.timeout(deps.gatewayTimeoutMs));
  deps.log.info({ issuanceKey: row.issuanceKey, attemptNumber: job.attemptNumber,
    result: result.kind }, 'cash receipt approval attempt');
  return { job, row, result };
}

// Runs `write` for all the items in one transaction, or each alone when that fails
// (recordTogetherOrAlone). The first error is thrown once every item had its turn, and pg-boss
// runs the fetch's jobs again (the receipts recorded meanwhile are found moved and left alone).
async function inOneTransactionOrEach<Item>(deps: Pick<ProcessingDeps, 'db'>,
  items: readonly Item[], write: (tx: Tx, items: readonly Item[]) => Promise<void>) {
  if (items.length === 0) return;
  const answers = await recordTogetherOrAlone(deps.db, items, async (tx, batch) => {
    await write(tx, batch);
    return batch.map(() => null);
  });
  const failure = answers.find((answer) => answer instanceof Error);
  if (failure) throw failure;
}

// The approvals of a fetch: ISSUED with their numbers, announced and mailed, and their
// transmissions staged, all in one transaction.
async function recordApprovals(deps: ProcessingDeps, approved: readonly Asked[]) {
  const approvedAt = deps.now();
  await inOneTransactionOrEach(deps, approved, async (tx, items) => {
    const moved = await recordApproved(deps, tx, items.map(({ row, result }) => ({
      issuanceKey: row.issuanceKey,
      approvalNumber: (result as Extract<ApprovalResult, { kind: 'approved' }>).approvalNumber,
    })), approvedAt);
    await deps.stageMany(tx, TRANSMISSION_QUEUE, moved.map((row) => ({
      data: { issuanceKey: row.issuanceKey } satisfies TransmissionJobData,
      id: stepJobId(row.issuanceKey, 'transmission'),
      startAfter: deps.transmissionStartAfter(store.scopeOfRow(row).environment, approvedAt),
    })));
  });
}

// A receipt the authority refused, or could not be asked about: FAILED, or asked again later
// until the retries are spent. Rare enough to take a transaction each.
async function recordNotApproved(deps: ProcessingDeps, { job, row, result }: Asked) {
  await deps.db.transaction(async (tx) => {
    if (result.kind === 'rejected') {
      await recordFailed(deps, tx, row.issuanceKey, { code: result.code,
        message: result.message });
      return;
    }
    const delay = deps.approvalRetryDelaysSeconds[job.attemptNumber - 1];
    if (delay === undefined) {
      await recordFailed(deps, tx, row.issuanceKey, { code: 'APPROVAL_UNAVAILABLE',
        message: 'The tax authority could not be reached; the cash receipt was not issued.' });
      return;
    }
    const next: ApprovalJobData = { issuanceKey: row.issuanceKey,
      attemptNumber: job.attemptNumber + 1 };
    await deps.stage(tx, APPROVAL_QUEUE, next, { startAfter: delay,
      id: stepJobId(row.issuanceKey, `approval:${next.attemptNumber}`) });
  });
}

function throwFirstFailure(outcomes: ReadonlyArray<PromiseSettledResult<unknown>>) {
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}

// The receipts of a fetch are asked about together, and the approvals recorded together.
export async function approveReceipts(deps: ProcessingDeps, jobs: ApprovalJobData[]) {
  const rows = new Map((await store.findReceiptsByKeys(deps.db,
    jobs.map((job) => job.issuanceKey)))
    .filter((row) => row.status === 'ACCEPTED').map((row) => [row.issuanceKey, row]));
  const asked = await Promise.allSettled(jobs.filter((job) => rows.has(job.issuanceKey))
    .map((job) => askForApproval(deps, job, rows.get(job.issuanceKey)!)));
  const answers = asked.flatMap((outcome) => (outcome.status === 'fulfilled'
    ? [outcome.value] : []));
  const recorded = await Promise.allSettled([
    recordApprovals(deps, answers.filter((answer) => answer.result.kind === 'approved')),
    ...answers.filter((answer) => answer.result.kind !== 'approved')
      .map((answer) => recordNotApproved(deps, answer)),
  ]);
  throwFirstFailure([...asked, ...recorded]);
}

export async function transmitReceipts(deps: ProcessingDeps, jobs: TransmissionJobData[]) {
  const rows = (await store.findReceiptsByKeys(deps.db, jobs.map((job) => job.issuanceKey)))
    .filter((row) => row.status === 'ISSUED');
  const transmitted = await Promise.allSettled(rows.map(async (row) => {
    const authority = deps.authorityFor(store.scopeOfRow(row).environment);
    const result = authority === null ? { kind: 'unavailable' as const }
      : await authority.transmit({ issuanceKey: row.issuanceKey,
        approvalNumber: row.approvalNumber! }, AbortSignal.timeout(deps.gatewayTimeoutMs));
    // pg-boss retries the job, with backoff, until the authority answers.
    if (result.kind !== 'transmitted') {
      throw new Error(`cash receipt ${row.issuanceKey}: the authority could not be reached`);
    }
    return row.issuanceKey;
  }));
  const keys = transmitted.flatMap((outcome) => (outcome.status === 'fulfilled'
    ? [outcome.value] : []));
  const transmittedAt = deps.now();
  const recorded = await Promise.allSettled([inOneTransactionOrEach(deps, keys,
    async (tx, items) => { await recordTransmitted(deps, tx, items, transmittedAt); })]);
  throwFirstFailure([...transmitted, ...recorded]);
}

// A job expires (its worker is presumed dead and the job runs again) only once the authority
// calls of its fetch have certainly timed out.
function jobOptions(gatewayTimeoutMs: number): Omit<PgBoss.Queue, 'name'> {
  return {
    retryLimit: JOB_RETRY_LIMIT,
    retryDelay: JOB_RETRY_DELAY_SECONDS,
    retryBackoff: true,
    expireInSeconds: Math.ceil(gatewayTimeoutMs / 1_000) + JOB_EXPIRY_MARGIN_SECONDS,
  };
}

export function processingJobDefinitions(deps: ProcessingDeps): JobDefinition[] {
  const options = jobOptions(deps.gatewayTimeoutMs);
  const approval: JobDefinition<ApprovalJobData> = {
    queue: APPROVAL_QUEUE, options, batchSize: JOBS_PER_FETCH,
    resumeAfterRetriesSeconds: DOCUMENT_JOB_RESUME_SECONDS,
    pollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
    work: (jobs) => approveReceipts(deps, jobs.map((job) => job.data)),
  };
  const transmission: JobDefinition<TransmissionJobData> = {
    queue: TRANSMISSION_QUEUE, options, batchSize: JOBS_PER_FETCH,
    resumeAfterRetriesSeconds: DOCUMENT_JOB_RESUME_SECONDS,
    pollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
    work: (jobs) => transmitReceipts(deps, jobs.map((job) => job.data)),
  };
  return [approval, transmission] as JobDefinition[];
}
