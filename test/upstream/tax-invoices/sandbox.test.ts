// The sandbox tax authority of test keys accepts every invoice with an approval number made
// from the write date and the issuance key, so transmitting the same document again gives the
// same number; the two documented recipients (docs/sandbox.md) are rejected and unreachable.
// Its simulated latency ends early, as `unavailable`, when the call's signal aborts. The latency
// runs on fake timers, so the tests move time instead of measuring it.
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TransmissionRequest } from '../../../src/upstream/tax-invoices/index.ts';
import {
  createSandboxTransmitter,
  SANDBOX_RECIPIENTS,
  sandboxApprovalNumber,
} from '../../../src/upstream/tax-invoices/sandbox.ts';

// The sandbox waits with node:timers/promises, which fake timers do not reach; this stand-in
// waits with the global setTimeout, which they do, and ends the same way when aborted.
vi.mock('node:timers/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:timers/promises')>();
  function setTimeout<T>(delayMs: number, value?: T, options: { signal?: AbortSignal } = {}) {
    return new Promise<T | undefined>((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = globalThis.setTimeout(() => resolve(value), delayMs);
      signal?.addEventListener('abort', () => {
        globalThis.clearTimeout(timer);
        reject(signal.reason);
      }, { once: true });
    });
  }
  return { ...actual, setTimeout, default: { ...actual, setTimeout } };
});

const open = () => new AbortController().signal;

function transmission(overrides: Partial<TransmissionRequest> = {}): TransmissionRequest {
  return {
    issuanceKey: 'txi_sandbox_0001',
    writeDate: '2025-11-28',
    supplierNumber: '1234567891',
    recipientNumber: '2208162517',
    // A document issued before the standard XML; the signed XML is checked below.
    approvalNumber: null,
    signedDocument: '{"document":"canonical"}',
    signature: Buffer.from('signature').toString('base64'),
    certificate: Buffer.from('certificate').toString('base64'),
    ...overrides,
  };
}

async function approvalNumberOf(request: TransmissionRequest): Promise<string> {
  const result = await createSandboxTransmitter({ latencyMs: 0 }).transmit(request, open());
  if (result.kind !== 'accepted') throw new Error(`expected acceptance, got ${result.kind}`);
  return result.ntsTransactionId;
}

describe('the sandbox tax authority', () => {
  it('accepts an invoice with a 24-digit approval number that starts with its write date',
    async () => {
      const number = await approvalNumberOf(transmission());
      expect(number).toMatch(/^[0-9]{24}$/);
      expect(number.slice(0, 8)).toBe('20251128');
      expect(number).toBe(sandboxApprovalNumber(transmission()));
    });

  it('gives the same approval number every time the same issuance key is transmitted',
    async () => {
      const first = await approvalNumberOf(transmission());
      const again = await approvalNumberOf(transmission());
      // A retransmission after a crash carries the same document; only the key decides.
      const resent = await approvalNumberOf(transmission({ signature: 'b3RoZXI=' }));
      expect(again).toBe(first);
      expect(resent).toBe(first);
    });

  it('gives different issuance keys different approval numbers', async () => {
    const numbers = new Set<string>();
    for (let index = 0; index < 50; index += 1) {
      numbers.add(await approvalNumberOf(transmission({ issuanceKey: `txi_sandbox_${index}` })));
    }
    expect(numbers.size).toBe(50);
  });

  it('starts the approval number with the write date of each invoice', async () => {
    const number = await approvalNumberOf(transmission({ writeDate: '2024-02-29' }));
    expect(number).toMatch(/^20240229[0-9]{16}$/);
  });

  it('rejects the invoice of the rejected test recipient with TRANSMISSION_REJECTED',
    async () => {
      const sandbox = createSandboxTransmitter({ latencyMs: 0 });
      const request = transmission({ recipientNumber: SANDBOX_RECIPIENTS.rejected });
      for (let attempt = 0; attempt < 3; attempt += 1) {
        expect(await sandbox.transmit(request, open())).toEqual({ kind: 'rejected',
          code: 'TRANSMISSION_REJECTED', message: expect.stringMatching(/\S/) });
      }
    });

  it('is unavailable, at every attempt, for the unavailable test recipient', async () => {
    const sandbox = createSandboxTransmitter({ latencyMs: 0 });
    const request = transmission({ recipientNumber: SANDBOX_RECIPIENTS.unavailable });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(await sandbox.transmit(request, open())).toEqual({ kind: 'unavailable' });
    }
  });

  it('documents the test recipients as 9900000000001 and 9900000000002', () => {
    expect(SANDBOX_RECIPIENTS).toEqual({ rejected: '9900000000001',
      unavailable: '9900000000002' });
  });
});

describe('the sandbox latency', () => {
  // Test files share one module cache (vitest.config.ts, isolate: false), so another file may
  // have loaded the sandbox with the real timers before this one's stand-in was registered. A
  // copy loaded afresh here always waits with the stand-in.
  let createSandboxTransmitter:
    typeof import('../../../src/upstream/tax-invoices/sandbox.ts').createSandboxTransmitter;
  beforeAll(async () => {
    vi.resetModules();
    ({ createSandboxTransmitter } =
      await import('../../../src/upstream/tax-invoices/sandbox.ts'));
  });
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers only after its latency', async () => {
    const sandbox = createSandboxTransmitter({ latencyMs: 200 });
    let settled = false;
    const pending = sandbox.transmit(transmission(), open()).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(199);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true);
    expect(await pending).toEqual({ kind: 'accepted',
      ntsTransactionId: sandboxApprovalNumber(transmission()) });
  });

  it('is unavailable when the signal aborts during the latency, without waiting it out',
    async () => {
      const sandbox = createSandboxTransmitter({ latencyMs: 60_000 });
      const controller = new AbortController();
      let settled = false;
      const pending = sandbox.transmit(transmission(), controller.signal).finally(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(20);
      expect(settled).toBe(false);
      // No more time passes: the abort alone ends the wait.
      controller.abort();
      expect(await pending).toEqual({ kind: 'unavailable' });
      expect(vi.getTimerCount()).toBe(0);
    });

  it('is unavailable for a signal that has already aborted', async () => {
    const sandbox = createSandboxTransmitter({ latencyMs: 1_000 });
    expect(await sandbox.transmit(transmission(), AbortSignal.abort()))
      .toEqual({ kind: 'unavailable' });
  });

  it('is unavailable when the signal times out before the latency ends', async () => {
    const sandbox = createSandboxTransmitter({ latencyMs: 60_000 });
    expect(await sandbox.transmit(transmission(), AbortSignal.timeout(30)))
      .toEqual({ kind: 'unavailable' });
  });
});
