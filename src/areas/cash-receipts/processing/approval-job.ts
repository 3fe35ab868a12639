import pLimit from 'p-limit';
import type { SealingKey } from '../../../domain/sealed-box.ts';
import type { Tx } from '../../../platform/db/connect.ts';
import type { ApprovalRequest, ApprovalResult } from '../../../upstream/cash-receipts/index.ts';
import { openIdentityNumber } from '../identity-numbers.ts';
import { recordApproved, recordFailed } from '../lifecycle.ts';
import * as store from '../store.ts';
import {
  CALLS_AT_ONCE_PER_BATCH,
  recordOrPutOff,
  withLeased,
  type ProcessingDeps,
} from './batch.ts';

// The approval step (docs/cash-receipts.md § Processing): ACCEPTED → ISSUED (approval number,
// transmission due) or FAILED, or tried again later while the authority cannot be reached. The
// authority answers a repeated request for the same issuance key with the same approval number.

export const APPROVAL_RETRY_DELAYS_SECONDS = [30, 120, 600, 3_600, 3 * 3_600];

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
