import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  APPROVAL_UNAVAILABLE,
  type ApprovalRequest,
  type ApprovalResult,
  type CashReceiptAuthority,
} from './index.ts';

// The tax authority of test keys: it approves every receipt with a 9-digit approval number made
// from a hash of the issuance key, so a repeated request gets the same number, after a
// configurable delay. Documented identity numbers (docs/cash-receipts.md § Sandbox) make
// approval fail.

export const SANDBOX_IDENTITY_NUMBERS = {
  // The authority rejects the receipt: it fails with APPROVAL_REJECTED.
  rejected: '01099990001',
  // The authority cannot be reached, at every attempt: the receipt fails with
  // APPROVAL_UNAVAILABLE once the retries are spent.
  unavailable: '01099990002',
} as const;

function sandboxCashReceiptApprovalNumber(issuanceKey: string): string {
  const digest = createHash('sha256').update(`cash-receipt:${issuanceKey}`).digest();
  // 100000000–999999999: nine digits without a leading zero.
  return String(100_000_000 + (digest.readUInt32BE(0) % 900_000_000));
}

function answer(request: ApprovalRequest): ApprovalResult {
  if (request.identityNumber === SANDBOX_IDENTITY_NUMBERS.rejected) {
    return { kind: 'rejected', code: 'APPROVAL_REJECTED',
      message: 'The tax authority rejected the cash receipt (sandbox test identity number).' };
  }
  if (request.identityNumber === SANDBOX_IDENTITY_NUMBERS.unavailable) {
    return APPROVAL_UNAVAILABLE;
  }
  return { kind: 'approved', approvalNumber: sandboxCashReceiptApprovalNumber(
    request.issuanceKey) };
}

export function createSandboxCashReceiptAuthority(options: {
  approvalDelayMs: number;
}): CashReceiptAuthority {
  return {
    async approve(request, signal) {
      if (options.approvalDelayMs > 0) {
        try {
          await sleep(options.approvalDelayMs, undefined, { signal });
        } catch {
          return APPROVAL_UNAVAILABLE;
        }
      }
      return answer(request);
    },
    transmit: () => Promise.resolve({ kind: 'transmitted' }),
  };
}
