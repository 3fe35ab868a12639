// The sandbox tax authority (docs/sandbox.md § Business registration status): every documented
// number has a valid checksum and its documented answer, other numbers are ACTIVE/GENERAL, the
// unavailable number fails the whole call, and the latency is configurable and abortable.
import { describe, expect, it } from 'vitest';
import { hasValidChecksum } from '../../../src/domain/business-registration-number.ts';
import { TAX_TYPES, REGISTRATION_STATUSES } from '../../../src/upstream/business-profiles/index.ts';
import {
  SANDBOX_STATUSES,
  SANDBOX_STATUS_NUMBERS,
  createSandboxTaxAuthority,
} from '../../../src/upstream/tax-authority/sandbox.ts';

describe('the sandbox tax authority', () => {
  it('documents numbers with valid checksums reaching every state and tax type', () => {
    for (const number of Object.values(SANDBOX_STATUS_NUMBERS)) {
      expect(hasValidChecksum(number), number).toBe(true);
    }
    const answers = Object.values(SANDBOX_STATUSES);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set(REGISTRATION_STATUSES));
    expect(new Set(answers.map((answer) => answer.taxType).filter((type) => type !== null)))
      .toEqual(new Set(TAX_TYPES));
  });

  it('answers every number, and is unavailable when the unavailable number is asked', async () => {
    const sandbox = createSandboxTaxAuthority({ latencyMs: 0 });
    const signal = AbortSignal.timeout(1_000);
    const answered = await sandbox.checkStatuses(['1234567891', SANDBOX_STATUS_NUMBERS.closed],
      signal);
    expect(answered).toEqual({
      kind: 'answered',
      results: new Map([
        ['1234567891', { status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' }],
        [SANDBOX_STATUS_NUMBERS.closed, SANDBOX_STATUSES[SANDBOX_STATUS_NUMBERS.closed]],
      ]),
    });
    expect(await sandbox.checkStatuses(['1234567891', SANDBOX_STATUS_NUMBERS.unavailable],
      signal)).toEqual({ kind: 'unavailable' });
  });

  it('waits its latency, and an abort during the wait is unavailable', async () => {
    const sandbox = createSandboxTaxAuthority({ latencyMs: 60_000 });
    const controller = new AbortController();
    const pending = sandbox.checkStatuses(['1234567891'], controller.signal);
    controller.abort();
    expect(await pending).toEqual({ kind: 'unavailable' });
    const quick = createSandboxTaxAuthority({ latencyMs: 5 });
    const result = await quick.checkStatuses(['1234567891'], AbortSignal.timeout(1_000));
    expect(result.kind).toBe('answered');
  });
});

describe('the sandbox agrees with the profile sandbox', () => {
  it('answers the profile sandbox numbers with their stored check', async () => {
    const sandbox = createSandboxTaxAuthority({ latencyMs: 0 });
    const result = await sandbox.checkStatuses(['9999900005', '9999900010'],
      AbortSignal.timeout(1_000));
    expect(result).toEqual({
      kind: 'answered',
      results: new Map([
        ['9999900005', { status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' }],
        ['9999900010',
          { status: 'ACTIVE', closedOn: null, taxType: 'SIMPLIFIED_TAX_INVOICE_ISSUER' }],
      ]),
    });
  });
});
