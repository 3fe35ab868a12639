import pLimit from 'p-limit';
import type { Tx } from '../../../platform/db/connect.ts';
import { recordTransmitted } from '../lifecycle.ts';
import * as store from '../store.ts';
import {
  CALLS_AT_ONCE_PER_BATCH,
  recordOrPutOff,
  withLeased,
  type ProcessingDeps,
} from './batch.ts';

// The transmission step (docs/cash-receipts.md § Processing): ISSUED → TRANSMITTED, the next day
// in production, tried again, further apart each time, until the authority takes it.

// Transmission is retried until the authority takes it: 2 s, 4 s, … up to an hour apart.
const TRANSMISSION_RETRY_FIRST_MS = 2_000;
const TRANSMISSION_RETRY_MAX_MS = 3_600_000;
// From this attempt on, each failed transmission is logged as an error, not a warning.
const TRANSMISSION_ATTEMPTS_BEFORE_ALERT = 10;

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
