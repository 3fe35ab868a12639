// When pg-boss takes back a processing job (src/areas/tax-invoices/processing/jobs.ts). A job
// that expires is presumed dead and run again, so it must not expire while the gateway calls of
// its fetch can still be running: the calls of one fetch run side by side, each aborted at
// TAX_INVOICE_GATEWAY_TIMEOUT_MS, so a fetch waits for the gateway at most one timeout, and the
// expiry must exceed that by a margin for the fetch's database work. Method: the job definitions
// are built for gateway timeouts across the range the configuration accepts, without a database.
import { describe, expect, it } from 'vitest';
import { processingJobDefinitions } from '../../../../src/areas/tax-invoices/processing/jobs.ts';
import { ConfigError, loadConfig } from '../../../../src/config.ts';

// What a fetch does besides waiting for the gateway: a few statements, and at worst one
// transaction per failed document. Half a minute is far more than that takes.
const DATABASE_WORK_MS_MIN = 30_000;

function expiriesSeconds(gatewayTimeoutMs: number): number[] {
  const config = loadConfig({ TAX_INVOICE_GATEWAY_TIMEOUT_MS: String(gatewayTimeoutMs) });
  const definitions = processingJobDefinitions({
    transmissionTimeoutMs: config.TAX_INVOICE_GATEWAY_TIMEOUT_MS,
  } as never);
  expect(definitions.map((definition) => definition.queue))
    .toEqual(['tax-invoices-issuance', 'tax-invoices-transmission']);
  return definitions.map((definition) => definition.options.expireInSeconds!);
}

describe('processing job expiry', () => {
  it('outlasts one gateway timeout plus the database work, for every timeout the configuration ' +
    'accepts', () => {
    for (const timeoutMs of [100, 999, 1_001, 10_000, 59_999, 60_000]) {
      for (const expirySeconds of expiriesSeconds(timeoutMs)) {
        expect(Number.isInteger(expirySeconds)).toBe(true);
        expect(expirySeconds * 1_000).toBeGreaterThanOrEqual(timeoutMs + DATABASE_WORK_MS_MIN);
      }
    }
  });

  it('grows with the gateway timeout', () => {
    const [shortIssuance, shortTransmission] = expiriesSeconds(10_000);
    const [longIssuance, longTransmission] = expiriesSeconds(60_000);
    expect(longTransmission! - shortTransmission!).toBe(50);
    expect(longIssuance! - shortIssuance!).toBe(50);
  });

  it('is 70 s for the default 10 s gateway timeout', () => {
    expect(loadConfig({}).TAX_INVOICE_GATEWAY_TIMEOUT_MS).toBe(10_000);
    expect(expiriesSeconds(10_000)).toEqual([70, 70]);
  });

  it('covers the whole range: the configuration refuses a longer timeout', () => {
    expect(() => loadConfig({ TAX_INVOICE_GATEWAY_TIMEOUT_MS: '60001' })).toThrow(ConfigError);
  });
});
