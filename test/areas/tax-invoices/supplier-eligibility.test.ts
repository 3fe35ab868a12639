import { describe, expect, it, vi } from 'vitest';
import {
  closedBusinessRule,
  createSupplierEligibility,
  simplifiedReceiptIssuerRule,
  taxExemptBusinessRule,
  type UnavailablePolicy,
} from '../../../src/areas/tax-invoices/acceptance/supplier-eligibility.ts';
import { ApiError } from '../../../src/platform/errors.ts';
import type { StatusOfNumber, TaxAuthority } from '../../../src/upstream/tax-authority/index.ts';
import {
  createSandboxTaxAuthority,
  SANDBOX_STATUS_NUMBERS as N,
} from '../../../src/upstream/tax-authority/sandbox.ts';

// Supplier eligibility: each rule with a refusing and a passing status, then the check as
// acceptance runs it against the sandbox authority (the documented test numbers), its cache and
// what it does when the authority cannot answer.

const active = (taxType: StatusOfNumber['taxType']): StatusOfNumber =>
  ({ status: 'ACTIVE', closedOn: null, taxType });

describe('the rules', () => {
  it('refuses a closed business, naming the closing date, and passes an active one', () => {
    const refusal = closedBusinessRule({ status: 'CLOSED', closedOn: '2024-06-30',
      taxType: 'GENERAL' }, '9999901080');
    expect(refusal).toMatchObject({ code: 'SUPPLIER_CLOSED', status: 409 });
    expect(refusal!.message).toContain('closed (폐업) on 2024-06-30');
    expect(closedBusinessRule(active('GENERAL'), '9999901004')).toBeNull();
    expect(closedBusinessRule({ status: 'SUSPENDED', closedOn: null, taxType: 'GENERAL' },
      '9999901076')).toBeNull();
  });

  it('lets a tax-exempt business issue only TAX_FREE documents', () => {
    const exempt = active('TAX_FREE');
    expect(taxExemptBusinessRule(exempt, '9999901042', ['TAXABLE']))
      .toMatchObject({ code: 'SUPPLIER_TAX_EXEMPT', status: 409 });
    expect(taxExemptBusinessRule(exempt, '9999901042', ['ZERO_RATED'])?.code)
      .toBe('SUPPLIER_TAX_EXEMPT');
    expect(taxExemptBusinessRule(exempt, '9999901042', ['TAX_FREE'])).toBeNull();
    expect(taxExemptBusinessRule(active('GENERAL'), '9999901004', ['TAXABLE'])).toBeNull();
  });

  it('refuses a tax invoice of a simplified taxpayer that issues receipts only', () => {
    const receipts = active('SIMPLIFIED_RECEIPT_ISSUER');
    expect(simplifiedReceiptIssuerRule(receipts, '9999901019', ['TAXABLE']))
      .toMatchObject({ code: 'SUPPLIER_NOT_TAX_INVOICE_ISSUER', status: 409 });
    expect(simplifiedReceiptIssuerRule(active('SIMPLIFIED_TAX_INVOICE_ISSUER'), '9999901023',
      ['TAXABLE'])).toBeNull();
  });
});

function eligibility(options: { authority?: TaxAuthority; unavailable?: UnavailablePolicy;
  cacheMs?: number; now?: () => Date } = {}) {
  const authority = options.authority ?? createSandboxTaxAuthority({ latencyMs: 0 });
  const log = { warn: vi.fn() };
  const checker = createSupplierEligibility({ authorityFor: () => authority, timeoutMs: 1_000,
    cacheMs: options.cacheMs ?? 600_000, unavailable: options.unavailable ?? 'allow',
    now: options.now ?? (() => new Date()), log });
  return { checker, log };
}

async function refusal(promise: Promise<void>): Promise<ApiError> {
  const error = await promise.then(() => null, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('the check against the sandbox numbers', () => {
  it.each([
    [N.closed, 'SUPPLIER_CLOSED'],
    [N.activeTaxFree, 'SUPPLIER_TAX_EXEMPT'],
    [N.activeSimplifiedReceiptIssuer, 'SUPPLIER_NOT_TAX_INVOICE_ISSUER'],
  ])('refuses %s with %s', async (number, code) => {
    const { checker } = eligibility();
    expect((await refusal(checker.check('test', number, ['TAXABLE']))).code).toBe(code);
  });

  it.each([N.activeGeneral, N.activeSimplifiedTaxInvoiceIssuer, N.suspended, '1234567891'])(
    'lets %s issue a taxable invoice', async (number) => {
      await expect(eligibility().checker.check('test', number, ['TAXABLE'])).resolves
        .toBeUndefined();
    });

  it('lets the tax-exempt number issue a 계산서', async () => {
    await expect(eligibility().checker.check('test', N.activeTaxFree, ['TAX_FREE'])).resolves
      .toBeUndefined();
  });
});

describe('when the authority cannot answer', () => {
  it('allows and logs a warning by default', async () => {
    const { checker, log } = eligibility();
    await expect(checker.check('test', N.unavailable, ['TAXABLE'])).resolves.toBeUndefined();
    expect(log.warn).toHaveBeenCalledOnce();
  });

  it('refuses with 503 LOOKUP_UNAVAILABLE when configured to refuse', async () => {
    const { checker, log } = eligibility({ unavailable: 'refuse' });
    const error = await refusal(checker.check('test', N.unavailable, ['TAXABLE']));
    expect(error).toMatchObject({ code: 'LOOKUP_UNAVAILABLE', status: 503 });
    expect(log.warn).not.toHaveBeenCalled();
  });
});

describe('the cache', () => {
  it('asks once per number within the cache time, and again after it', async () => {
    let now = Date.parse('2026-11-20T00:00:00Z');
    const sandbox = createSandboxTaxAuthority({ latencyMs: 0 });
    const checkStatuses = vi.fn(sandbox.checkStatuses.bind(sandbox));
    const { checker } = eligibility({ authority: { checkStatuses }, cacheMs: 60_000,
      now: () => new Date(now) });
    await checker.check('test', N.activeGeneral, ['TAXABLE']);
    await checker.check('test', N.activeGeneral, ['TAXABLE']);
    expect(checkStatuses).toHaveBeenCalledTimes(1);
    now += 59_999;
    await checker.check('test', N.activeGeneral, ['TAXABLE']);
    expect(checkStatuses).toHaveBeenCalledTimes(1);
    now += 1;
    await checker.check('test', N.activeGeneral, ['TAXABLE']);
    expect(checkStatuses).toHaveBeenCalledTimes(2);
  });

  it('keeps test and live answers apart, and never caches an unavailable answer', async () => {
    const sandbox = createSandboxTaxAuthority({ latencyMs: 0 });
    const checkStatuses = vi.fn(sandbox.checkStatuses.bind(sandbox));
    const { checker } = eligibility({ authority: { checkStatuses } });
    await checker.check('test', N.activeGeneral, ['TAXABLE']);
    await checker.check('live', N.activeGeneral, ['TAXABLE']);
    await checker.check('test', N.unavailable, ['TAXABLE']);
    await checker.check('test', N.unavailable, ['TAXABLE']);
    expect(checkStatuses).toHaveBeenCalledTimes(4);
  });
});

describe('a burst of requests', () => {
  it('asks once for a number that many requests need at the same moment', async () => {
    const sandbox = createSandboxTaxAuthority({ latencyMs: 20 });
    const checkStatuses = vi.fn(sandbox.checkStatuses.bind(sandbox));
    const { checker } = eligibility({ authority: { checkStatuses } });
    await Promise.all(Array.from({ length: 10 },
      () => checker.check('test', N.activeGeneral, ['TAXABLE'])));
    expect(checkStatuses).toHaveBeenCalledTimes(1);
  });
});
