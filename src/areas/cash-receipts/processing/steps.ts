import type { SealingKey } from '../../../domain/sealed-box.ts';
import { openIdentityNumber } from '../identity-numbers.ts';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { recordTogetherOrAlone } from '../../../platform/db/together-or-alone.ts';
import type { DueWorkDefinition } from '../../../platform/due-work.ts';
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
import type { CashReceiptStep } from '../tables.ts';

// The steps that take an accepted receipt to the tax authority (docs/cash-receipts.md §
// Processing), run by workers over the receipts' queue of steps (platform/due-work.ts):
//
//   approval:      ACCEPTED → ISSUED (approval number, transmission due) or FAILED, or tried
//                  again later while the authority cannot be reached
//   transmission:  ISSUED → TRANSMITTED, the next day in production
//
// A worker leases a batch of due steps, asks the authority about them concurrently, and records
// the answers in one transaction. Every change is conditional on the status, so a step taken
// again (its worker died after the authority answered, and the lease ran out) finds the receipt
// already moved and changes, refunds, mails and announces nothing; the authority answers a
// repeated request for the same issuance key with the same approval number.

export type ProcessingDeps = LifecycleDeps & {
  db: Db;
  // Opens the identity number the authority needs (identity-numbers.ts).
  sealing: SealingKey;
  authorityFor(environment: Environment): CashReceiptAuthority | null;
  gatewayTimeoutMs: number;
  // When an approved receipt of this environment is transmitted.
  transmissionDueAt(environment: Environment, approvedAt: Date): Date;
  // Waits before each further approval attempt when the authority cannot be reached; after the
  // last the receipt fails with APPROVAL_UNAVAILABLE.
  approvalRetryDelaysSeconds: readonly number[];
  now: () => Date;
  log: Logger;
};

export const APPROVAL_RETRY_DELAYS_SECONDS = [30, 120, 600, 3_600, 3 * 3_600];

// A batch's statements and its transaction are paid once for all its receipts, so under load a
// larger batch costs less per receipt: at 1,000 receipts a second, batches of 200 instead of 50
// cut the CPU per receipt, server and database together, by about a fifth (bench/RESULTS.md).
const RECEIPTS_PER_BATCH = 200;
// The authority calls of one batch that run at once, so that a batch never opens 200 connections
// to the live gateway.
const CALLS_AT_ONCE_PER_BATCH = 50;
const POLL_INTERVAL_MS = 500;
const BATCHES_PER_STEP_AT_ONCE = 2;
// A lease outlives the authority calls of its batch, which time out, round after round, with
// room to record them.
const CALL_ROUNDS_PER_BATCH = Math.ceil(RECEIPTS_PER_BATCH / CALLS_AT_ONCE_PER_BATCH);
const LEASE_MARGIN_MS = 60_000;
// A receipt whose answer could not be recorded is taken up again after this long.
const RECORDING_FAILED_RETRY_MS = 60_000;
// Transmission is retried until the authority takes it: 2 s, 4 s, … up to an hour apart.
const TRANSMISSION_RETRY_FIRST_MS = 2_000;
const TRANSMISSION_RETRY_MAX_MS = 3_600_000;
// From this attempt on, each failed transmission is logged as an error, not a warning.
const TRANSMISSION_ATTEMPTS_BEFORE_ALERT = 10;

function approvalRequest(sealing: SealingKey, row: store.CashReceiptRow): ApprovalRequest {
  return {
    issuanceKey: row.issuanceKey, kind: row.kind, merchantNumber: row.merchantNumber,
    tradeDate: row.tradeDate, usage: row.usage, identityNumber: openIdentityNumber(sealing, row),
    taxation: row.taxation, tradeOption: row.tradeOption, supplyCost: row.supplyCost,
    tax: row.tax, serviceFee: row.serviceFee, totalAmount: row.totalAmount,
    itemName: row.itemName,
    original: row.kind === 'CANCELLATION' ? { approvalNumber: row.originalApprovalNumber!,
      tradeDate: row.originalTradeDate!, reason: row.cancelReason! } : null,
  };
}

type Asked = store.DueReceipt & { result: ApprovalResult };

// An adapter that throws is an authority that could not be asked.
async function askForApproval(deps: ProcessingDeps, { row, attemptNumber }: store.DueReceipt):
  Promise<Asked> {
  const authority = deps.authorityFor(store.scopeOfRow(row).environment);
  let result: ApprovalResult;
  try {
    result = authority === null ? { kind: 'unavailable' }
      : await authority.approve(approvalRequest(deps.sealing, row),
        AbortSignal.timeout(deps.gatewayTimeoutMs));
  } catch (error) {
    deps.log.warn({ err: error, issuanceKey: row.issuanceKey }, 'cash receipt approval failed');
    result = { kind: 'unavailable' };
  }
  deps.log.info({ issuanceKey: row.issuanceKey, attemptNumber, result: result.kind },
    'cash receipt approval attempt');
  return { row, attemptNumber, result };
}

// Leases a batch of due steps and runs `work` on them; answers how many it took.
async function withLeased(deps: ProcessingDeps, step: CashReceiptStep,
  work: (due: store.DueReceipt[]) => Promise<void>): Promise<number> {
  const now = deps.now();
  const due = await store.leaseDue(deps.db, { step, now, limit: RECEIPTS_PER_BATCH,
    leasedUntil: new Date(now.getTime() + deps.gatewayTimeoutMs * CALL_ROUNDS_PER_BATCH +
      LEASE_MARGIN_MS) });
  if (due.length > 0) await work(due);
  return due.length;
}

// Records the items in one transaction, or each alone when that fails (recordTogetherOrAlone).
// An item that cannot be recorded even alone keeps its status and its step is put off, with an
// error logged, so one bad receipt holds back no other and is not retried in a tight loop.
async function recordOrPutOff<Item extends store.DueReceipt>(
  deps: ProcessingDeps, step: CashReceiptStep, items: readonly Item[],
  write: (tx: Tx, items: readonly Item[]) => Promise<void>) {
  const answers = await recordTogetherOrAlone(deps.db, items, async (tx, batch) => {
    await write(tx, batch);
    return batch.map(() => null);
  });
  for (const [index, { row, attemptNumber }] of items.entries()) {
    const answer = answers[index];
    if (!(answer instanceof Error)) continue;
    const dueAt = new Date(deps.now().getTime() + RECORDING_FAILED_RETRY_MS);
    deps.log.error({ err: answer, issuanceKey: row.issuanceKey, status: row.status,
      dueAt: dueAt.toISOString() },
    'cash receipt step could not be recorded; it will be taken up again');
    await store.postpone(deps.db, { issuanceKey: row.issuanceKey, step, attemptNumber, dueAt });
  }
}

// What an answer that is not an approval does to its receipt: FAILED when the authority
// refused it or the retries are spent, else the attempt after the next delay.
async function recordNotApproved(deps: ProcessingDeps, tx: Tx,
  { row, attemptNumber, result }: Asked) {
  if (result.kind === 'rejected') {
    await recordFailed(deps, tx, row.issuanceKey, { code: result.code,
      message: result.message });
    return;
  }
  const delaySeconds = deps.approvalRetryDelaysSeconds[attemptNumber - 1];
  if (delaySeconds === undefined) {
    await recordFailed(deps, tx, row.issuanceKey, { code: 'APPROVAL_UNAVAILABLE',
      message: 'The tax authority could not be reached; the cash receipt was not issued.' });
    return;
  }
  await store.postpone(tx, { issuanceKey: row.issuanceKey, step: 'APPROVAL',
    attemptNumber: attemptNumber + 1,
    dueAt: new Date(deps.now().getTime() + delaySeconds * 1_000) });
}

async function recordAnswers(deps: ProcessingDeps, tx: Tx, asked: readonly Asked[]) {
  const approvedAt = deps.now();
  await recordApproved(deps, tx, asked.flatMap(({ row, result }) => (result.kind === 'approved'
    ? [{ row, approvalNumber: result.approvalNumber,
      transmissionDueAt: deps.transmissionDueAt(store.scopeOfRow(row).environment,
        approvedAt) }]
    : [])), approvedAt);
  for (const answer of asked) {
    if (answer.result.kind !== 'approved') await recordNotApproved(deps, tx, answer);
  }
}

// One approval batch: answers how many receipts it took.
export function approveDueReceipts(deps: ProcessingDeps): Promise<number> {
  return withLeased(deps, 'APPROVAL', async (due) => {
    const limit = pLimit(CALLS_AT_ONCE_PER_BATCH);
    const asked = await Promise.all(due.map((item) => limit(() => askForApproval(deps, item))));
    await recordOrPutOff(deps, 'APPROVAL', asked, (tx, items) => recordAnswers(deps, tx, items));
  });
}

type Transmitted = store.DueReceipt & { transmitted: boolean };

async function transmit(deps: ProcessingDeps, due: store.DueReceipt): Promise<Transmitted> {
  const { row } = due;
  const authority = deps.authorityFor(store.scopeOfRow(row).environment);
  try {
    const result = authority === null ? { kind: 'unavailable' as const }
      : await authority.transmit({ issuanceKey: row.issuanceKey,
        approvalNumber: row.approvalNumber! }, AbortSignal.timeout(deps.gatewayTimeoutMs));
    return { ...due, transmitted: result.kind === 'transmitted' };
  } catch (error) {
    deps.log.warn({ err: error, issuanceKey: row.issuanceKey }, 'cash receipt transmission failed');
    return { ...due, transmitted: false };
  }
}

// A transmission the authority did not take: tried again, further apart each time.
async function transmitLater(deps: ProcessingDeps, tx: Tx,
  { row, attemptNumber }: store.DueReceipt) {
  const waitMs = Math.min(TRANSMISSION_RETRY_FIRST_MS * 2 ** (attemptNumber - 1),
    TRANSMISSION_RETRY_MAX_MS);
  const dueAt = new Date(deps.now().getTime() + waitMs);
  const level = attemptNumber >= TRANSMISSION_ATTEMPTS_BEFORE_ALERT ? 'error' : 'warn';
  deps.log[level]({ issuanceKey: row.issuanceKey, attemptNumber,
    dueAt: dueAt.toISOString() }, 'cash receipt transmission not taken; it will be tried again');
  await store.postpone(tx, { issuanceKey: row.issuanceKey, step: 'TRANSMISSION',
    attemptNumber: attemptNumber + 1, dueAt });
}

// One transmission batch: answers how many receipts it took.
export function transmitDueReceipts(deps: ProcessingDeps): Promise<number> {
  return withLeased(deps, 'TRANSMISSION', async (due) => {
    const limit = pLimit(CALLS_AT_ONCE_PER_BATCH);
    const answers = await Promise.all(due.map((item) => limit(() => transmit(deps, item))));
    await recordOrPutOff(deps, 'TRANSMISSION', answers, async (tx, items) => {
      await recordTransmitted(deps, tx, items.filter((item) => item.transmitted)
        .map((item) => item.row), deps.now());
      for (const item of items) {
        if (!item.transmitted) await transmitLater(deps, tx, item);
      }
    });
  });
}

export function processingSteps(deps: ProcessingDeps): DueWorkDefinition[] {
  return [
    { name: 'cash-receipts-approval', runBatch: () => approveDueReceipts(deps),
      batchSize: RECEIPTS_PER_BATCH, pollIntervalMs: POLL_INTERVAL_MS,
      concurrency: BATCHES_PER_STEP_AT_ONCE },
    { name: 'cash-receipts-transmission', runBatch: () => transmitDueReceipts(deps),
      batchSize: RECEIPTS_PER_BATCH, pollIntervalMs: POLL_INTERVAL_MS,
      concurrency: BATCHES_PER_STEP_AT_ONCE },
  ];
}
