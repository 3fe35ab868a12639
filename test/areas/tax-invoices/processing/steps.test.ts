// How long a worker holds the processing steps it took (src/areas/tax-invoices/processing/
// steps.ts). A step whose lease runs out is presumed abandoned and taken up again, so a lease
// must not run out while the gateway calls of its batch can still be running: the calls of one
// batch run side by side, each aborted at TAX_INVOICE_GATEWAY_TIMEOUT_MS, so a batch waits for
// the gateway at most one timeout, and the lease must exceed that by a margin for the batch's
// database work. Method: the lease is computed for gateway timeouts across the range the
// configuration accepts, without a database.
import { describe, expect, it } from 'vitest';
import { leaseMs, processingSteps } from '../../../../src/areas/tax-invoices/processing/steps.ts';
import { ConfigError, loadConfig } from '../../../../src/config.ts';

// What a batch does besides waiting for the gateway: a few statements, and at worst one
// transaction per failed document. Half a minute is far more than that takes.
const DATABASE_WORK_MS_MIN = 30_000;

describe('processing step leases', () => {
  it('names the two steps the workers run', () => {
    expect(processingSteps({} as never).map((definition) => definition.name))
      .toEqual(['tax-invoices-issuance', 'tax-invoices-transmission']);
  });

  it('outlast one gateway timeout plus the database work, for every timeout the ' +
    'configuration accepts', () => {
    for (const timeoutMs of [100, 999, 1_001, 10_000, 59_999, 60_000]) {
      const config = loadConfig({ TAX_INVOICE_GATEWAY_TIMEOUT_MS: String(timeoutMs) });
      expect(leaseMs(config.TAX_INVOICE_GATEWAY_TIMEOUT_MS))
        .toBeGreaterThanOrEqual(timeoutMs + DATABASE_WORK_MS_MIN);
    }
  });

  it('grow with the gateway timeout, 70 s for the default 10 s', () => {
    expect(loadConfig({}).TAX_INVOICE_GATEWAY_TIMEOUT_MS).toBe(10_000);
    expect(leaseMs(10_000)).toBe(70_000);
    expect(leaseMs(60_000) - leaseMs(10_000)).toBe(50_000);
  });

  it('cover the whole range: the configuration refuses a longer timeout', () => {
    expect(() => loadConfig({ TAX_INVOICE_GATEWAY_TIMEOUT_MS: '60001' })).toThrow(ConfigError);
  });
});
