// The live services a configuration leaves unconnected, and the message of a live request
// refused for it: the setting is named, and a configured service is not listed.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import {
  liveServiceConfigured,
  notConfiguredMessage,
  unconfiguredLiveServices,
} from '../../src/platform/live-services.ts';

describe('live services', () => {
  it('lists only the services whose setting is unset', () => {
    const bare = loadConfig({});
    expect(unconfiguredLiveServices(bare)).toHaveLength(8);
    const config = loadConfig({ TAX_INVOICE_GATEWAY_URL: 'https://gateway.example/',
      TAX_INVOICE_NTS_SYSTEM_CODE: '41000008', TAX_AUTHORITY_SERVICE_KEY: 'k' });
    const listed = unconfiguredLiveServices(config).map(({ service }) => service);
    expect(listed).not.toContain('TAX_INVOICE_TRANSMISSION');
    expect(listed).not.toContain('TAX_AUTHORITY');
    expect(listed).toHaveLength(6);
    expect(liveServiceConfigured(config, 'TAX_INVOICE_TRANSMISSION')).toBe(true);
    expect(liveServiceConfigured(config, 'CASH_RECEIPTS')).toBe(false);
  });

  it('names the missing setting in the refusal', () => {
    expect(notConfiguredMessage('CASH_RECEIPTS')).toBe('This server is not configured for ' +
      'live cash receipt issuance and cancellation (CASH_RECEIPT_GATEWAY_URL is not set). ' +
      'Test keys use the sandbox.');
  });
});
