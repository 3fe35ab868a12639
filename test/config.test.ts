// The configuration is read from the environment once, validated, defaulted and frozen; a bad
// value stops the start with a message naming the variable.
import { describe, expect, it } from 'vitest';
import { bulkLookupDurationMaxMs, ConfigError, loadConfig } from '../src/config.ts';
import { ACCOUNTS_PER_REQUEST_MAX } from '../src/domain/bank-codes.ts';
import { EXPIRE_RESERVATIONS_CRON } from '../src/platform/points/expire-job.ts';

describe('loading the configuration', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(8080);
    expect(config.HOST).toBe('0.0.0.0');
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.DATA_DIR).toMatch(/\/data$/);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.PUBLIC_BASE_URL).toBe('http://localhost:8080');
    expect(config.GUIDES_BASE_URL).toBeUndefined();
    expect(config.WORKERS_ENABLED).toBe(true);
    expect(config.AUTH_CACHE_TTL_MS).toBe(5_000);
    expect(config.TEST_SIGNUP_POINTS).toBe(1_000_000);
    expect(config.BANK_GATEWAY_URL).toBeUndefined();
    expect(config.BANK_LOOKUP_CONCURRENCY).toBe(20);
    expect(config.BANK_LOOKUP_TIMEOUT_MS).toBe(3_000);
    expect(config.BANK_SANDBOX_LATENCY_MS).toBe(0);
    expect(config.TAX_AUTHORITY_BASE_URL).toBe('https://api.odcloud.kr/api/nts-businessman/v1');
    expect(config.TAX_AUTHORITY_SERVICE_KEY).toBeUndefined();
    expect(config.TAX_AUTHORITY_TIMEOUT_MS).toBe(5_000);
    expect(config.TAX_AUTHORITY_SANDBOX_LATENCY_MS).toBe(0);
  });

  it('converts strings to the declared types', () => {
    const config = loadConfig({ PORT: '9000', WORKERS_ENABLED: 'false', DATA_DIR: '/tmp/x' });
    expect(config.PORT).toBe(9000);
    expect(config.WORKERS_ENABLED).toBe(false);
    expect(config.DATA_DIR).toBe('/tmp/x');
    expect(config.PUBLIC_BASE_URL).toBe('http://localhost:9000');
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', REDIS_URL: '' }).DATABASE_URL).toBeUndefined();
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['DATABASE_URL', 'mysql://x'],
    ['REDIS_URL', 'http://x'],
    ['AUTH_CACHE_TTL_MS', '-1'],
    ['RESERVATION_TTL_MS', '10'],
    ['WORKERS_ENABLED', 'maybe'],
    ['BANK_GATEWAY_URL', 'ftp://bank'],
    ['BANK_LOOKUP_CONCURRENCY', '0'],
    ['BANK_LOOKUP_CONCURRENCY', '101'],
    ['BANK_LOOKUP_TIMEOUT_MS', '10'],
    ['BANK_SANDBOX_LATENCY_MS', '-1'],
    ['TAX_AUTHORITY_BASE_URL', 'ftp://nts'],
    ['TAX_AUTHORITY_TIMEOUT_MS', '10'],
    ['TAX_AUTHORITY_TIMEOUT_MS', '30001'],
    ['TAX_AUTHORITY_SANDBOX_LATENCY_MS', '-1'],
    ['TAX_INVOICE_NTS_SYSTEM_CODE', '4100000'],
    ['TAX_INVOICE_NTS_SYSTEM_CODE', '410000081'],
    ['TAX_INVOICE_NTS_SYSTEM_CODE', '4100000a'],
    // Without the final '/', a guide's path would replace the last segment of the address.
    ['GUIDES_BASE_URL', 'https://git.example.com/etax/files/main'],
    ['GUIDES_BASE_URL', 'ftp://git.example.com/etax/'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('returns a frozen object', () => {
    const config = loadConfig({});
    expect(Object.isFrozen(config)).toBe(true);
  });
});

describe('the encryption key\'s former name', () => {
  const KEY = Buffer.alloc(32, 1).toString('base64');
  const OTHER = Buffer.alloc(32, 2).toString('base64');

  it('reads CERTIFICATE_ENCRYPTION_KEY and its previous keys as ENCRYPTION_KEY\'s', () => {
    const config = loadConfig({ CERTIFICATE_ENCRYPTION_KEY: KEY,
      CERTIFICATE_ENCRYPTION_PREVIOUS_KEYS: OTHER });
    expect(config.ENCRYPTION_KEY).toBe(KEY);
    expect(config.ENCRYPTION_PREVIOUS_KEYS).toBe(OTHER);
  });

  it('takes both names set to the same key and refuses two different keys', () => {
    expect(loadConfig({ ENCRYPTION_KEY: KEY, CERTIFICATE_ENCRYPTION_KEY: KEY }).ENCRYPTION_KEY)
      .toBe(KEY);
    expect(() => loadConfig({ ENCRYPTION_KEY: KEY, CERTIFICATE_ENCRYPTION_KEY: OTHER }))
      .toThrow(ConfigError);
  });
});

describe('relations between bounds', () => {
  it('ends the slowest tax-authority call before the shortest reservation can expire', () => {
    const slowest = loadConfig({ TAX_AUTHORITY_TIMEOUT_MS: '30000', RESERVATION_TTL_MS: '60000' });
    expect(slowest.TAX_AUTHORITY_TIMEOUT_MS).toBeLessThan(slowest.RESERVATION_TTL_MS);
  });

  it('keeps reservations alive longer than the auth cache and the expiry sweep period', () => {
    const config = loadConfig({});
    // The sweep runs every minute, so a reservation must live longer than one period to be
    // expired only after its request had a fair chance to settle it.
    expect(EXPIRE_RESERVATIONS_CRON).toBe('* * * * *');
    expect(config.RESERVATION_TTL_MS).toBeGreaterThan(60_000);
    expect(config.RESERVATION_TTL_MS).toBeGreaterThan(config.AUTH_CACHE_TTL_MS);
  });

  it('lets the slowest bulk bank lookup end before its reservation can expire', () => {
    const config = loadConfig({});
    // Every call of a 100-account lookup timing out takes ⌈100 / concurrency⌉ timeouts.
    const roundCount = Math.ceil(ACCOUNTS_PER_REQUEST_MAX / config.BANK_LOOKUP_CONCURRENCY);
    expect(roundCount).toBe(5);
    expect(bulkLookupDurationMaxMs(config)).toBe(config.BANK_LOOKUP_TIMEOUT_MS * roundCount);
    expect(config.RESERVATION_TTL_MS).toBe(300_000);
    expect(config.RESERVATION_TTL_MS).toBeGreaterThan(config.BANK_LOOKUP_TIMEOUT_MS * roundCount);
  });

  it('numbers tax invoices with the sandbox issuing system code unless told, and needs the ' +
    'registered code for live transmission', () => {
    expect(loadConfig({}).TAX_INVOICE_NTS_SYSTEM_CODE).toBe('41000000');
    expect(loadConfig({ TAX_INVOICE_NTS_SYSTEM_CODE: '41000008' }).TAX_INVOICE_NTS_SYSTEM_CODE)
      .toBe('41000008');
    const live = { TAX_INVOICE_GATEWAY_URL: 'https://gateway.example.com/' };
    expect(() => loadConfig(live)).toThrow(ConfigError);
    expect(() => loadConfig(live)).toThrow('TAX_INVOICE_NTS_SYSTEM_CODE: required when ' +
      'TAX_INVOICE_GATEWAY_URL is set');
    expect(() => loadConfig({ ...live, TAX_INVOICE_NTS_SYSTEM_CODE: '' })).toThrow(ConfigError);
    expect(loadConfig({ ...live, TAX_INVOICE_NTS_SYSTEM_CODE: '41000008' })
      .TAX_INVOICE_NTS_SYSTEM_CODE).toBe('41000008');
  });

  it('refuses bank lookup settings whose slowest bulk lookup outlives a reservation', () => {
    const settings = { BANK_LOOKUP_CONCURRENCY: '1', BANK_LOOKUP_TIMEOUT_MS: '3000' };
    expect(() => loadConfig(settings)).toThrow(ConfigError);
    expect(() => loadConfig(settings)).toThrow('RESERVATION_TTL_MS');
    expect(() => loadConfig({ ...settings, RESERVATION_TTL_MS: '300001' })).not.toThrow();
  });
});
