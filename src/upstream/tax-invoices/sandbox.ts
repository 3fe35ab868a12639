import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  TRANSMISSION_UNAVAILABLE,
  type InvoiceTransmitter,
  type TransmissionRequest,
  type TransmissionResult,
} from './index.ts';

// The tax authority of test keys: it accepts every invoice with an approval number made from the
// write date and a hash of the issuance key, so a repeated transmission gets the same number.
// Documented recipient numbers (docs/sandbox.md § Tax invoices) make transmission fail.

export const SANDBOX_RECIPIENTS = {
  // The authority rejects the invoice: the document fails with TRANSMISSION_REJECTED.
  rejected: '9900000000001',
  // The authority cannot be reached, at every attempt: the document fails with
  // TRANSMISSION_UNAVAILABLE once the retries are spent.
  unavailable: '9900000000002',
} as const;

// The middle eight digits of an approval number name the issuing system; 41 is an ASP.
const ISSUING_SYSTEM = '41';

export function sandboxApprovalNumber(request: Pick<TransmissionRequest,
  'issuanceKey' | 'writeDate'>): string {
  const digest = createHash('sha256').update(request.issuanceKey).digest();
  const serial = (digest.readBigUInt64BE(0) % 10n ** 14n).toString().padStart(14, '0');
  return `${request.writeDate.replaceAll('-', '')}${ISSUING_SYSTEM}${serial}`;
}

function answer(request: TransmissionRequest): TransmissionResult {
  if (request.recipientNumber === SANDBOX_RECIPIENTS.rejected) {
    return { kind: 'rejected', code: 'TRANSMISSION_REJECTED',
      message: 'The tax authority rejected the invoice (sandbox test recipient).' };
  }
  if (request.recipientNumber === SANDBOX_RECIPIENTS.unavailable) return TRANSMISSION_UNAVAILABLE;
  return { kind: 'accepted', ntsTransactionId: sandboxApprovalNumber(request) };
}

export function createSandboxTransmitter(options: { latencyMs: number }): InvoiceTransmitter {
  return {
    async transmit(request, signal) {
      if (options.latencyMs > 0) {
        try {
          await sleep(options.latencyMs, undefined, { signal });
        } catch {
          return TRANSMISSION_UNAVAILABLE;
        }
      }
      return answer(request);
    },
  };
}
