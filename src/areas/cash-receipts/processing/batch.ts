import type { Logger } from 'pino';
import type { SealingKey } from '../../../domain/sealed-box.ts';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { recordTogetherOrAlone } from '../../../platform/db/together-or-alone.ts';
import type { CashReceiptAuthority } from '../../../upstream/cash-receipts/index.ts';
import type { LifecycleDeps } from '../lifecycle.ts';
import * as store from '../store.ts';
import type { CashReceiptStep } from '../tables.ts';

// What every step's batch shares (steps.ts runs them): the lease of a batch of due steps, and
// the recording of its answers together, or each alone when that fails.

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

// A batch's statements and its transaction are paid once for all its receipts, so under load a
// larger batch costs less per receipt: at 1,000 receipts a second, batches of 200 instead of 50
// cut the CPU per receipt, server and database together, by about a fifth (bench/RESULTS.md).
export const RECEIPTS_PER_BATCH = 200;
// The authority calls of one batch that run at once, so that a batch never opens 200 connections
// to the live gateway.
export const CALLS_AT_ONCE_PER_BATCH = 50;
// A lease outlives the authority calls of its batch, which time out, round after round, with
// room to record them.
const CALL_ROUNDS_PER_BATCH = Math.ceil(RECEIPTS_PER_BATCH / CALLS_AT_ONCE_PER_BATCH);
const LEASE_MARGIN_MS = 60_000;
// A receipt whose answer could not be recorded is taken up again after this long.
const RECORDING_FAILED_RETRY_MS = 60_000;

// Leases a batch of due steps and runs `work` on them; answers how many it took.
export async function withLeased(deps: ProcessingDeps, step: CashReceiptStep,
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
export async function recordOrPutOff<Item extends store.DueReceipt>(
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
