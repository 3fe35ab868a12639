// The price table: the spec's §8 prices are the defaults, PRICE_OVERRIDES changes single rows,
// and any override that is not a known operation with a whole, non-negative price stops the start
// with a ConfigError instead of charging a wrong amount later.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config.ts';
import { DEFAULT_PRICES } from '../../../src/platform/operations.ts';
import { buildPriceTable } from '../../../src/platform/points/prices.ts';

// The price table, row by row, written out here so a change to the defaults must also change
// this test.
const SPEC_PRICES = {
  'businesses.profiles.retrieve': 90,
  'businesses.profiles.search': 9,
  'businesses.registrationStatus.inquire': 10,
  'businesses.certificates.verify': 100,
  'bank.holders.inquire': 50,
  'documents.taxAuthority.issue': 500,
  'documents.registry.viewCopy': 1_000,
  'documents.registry.submissionCopy': 1_500,
};

// No published price for tax invoices and cash receipts; etax's defaults (docs/points.md).
const ETAX_PRICES = {
  'taxInvoices.issue': 100,
  'cashReceipts.issue': 10,
  'cashReceipts.cancel': 10,
};
const DEFAULTS = { ...SPEC_PRICES, ...ETAX_PRICES };

describe('default prices', () => {
  it('equal the prices, plus etax\'s tax-invoice price, with no overrides', () => {
    expect(buildPriceTable('{}')).toEqual(DEFAULTS);
    expect(DEFAULT_PRICES).toEqual(DEFAULTS);
  });

  it.each(Object.entries(SPEC_PRICES))('charges %s at %i points by default', (operation, price) => {
    const table: Record<string, number> = buildPriceTable('{}');
    expect(table[operation]).toBe(price);
  });

  it('returns a frozen table, so no caller can change a price at run time', () => {
    expect(Object.isFrozen(buildPriceTable('{}'))).toBe(true);
  });
});

describe('price overrides', () => {
  it('changes only the overridden row', () => {
    const table = buildPriceTable('{"businesses.profiles.retrieve": 120}');
    expect(table).toEqual({ ...DEFAULTS, 'businesses.profiles.retrieve': 120 });
  });

  it('applies several overrides, including a price of 0', () => {
    const table = buildPriceTable(
      JSON.stringify({ 'bank.holders.inquire': 0, 'documents.registry.viewCopy': 2_000 }),
    );
    expect(table['bank.holders.inquire']).toBe(0);
    expect(table['documents.registry.viewCopy']).toBe(2_000);
    expect(table['businesses.profiles.search']).toBe(9);
  });

  it('does not change the defaults for later tables', () => {
    buildPriceTable('{"businesses.profiles.search": 1}');
    expect(buildPriceTable('{}')['businesses.profiles.search']).toBe(9);
    expect(DEFAULT_PRICES['businesses.profiles.search']).toBe(9);
  });
});

describe('refusing bad overrides', () => {
  it('refuses an unknown operation with a ConfigError that names it', () => {
    expect(() => buildPriceTable('{"businesses.profiles.delete": 10}')).toThrow(ConfigError);
    expect(() => buildPriceTable('{"businesses.profiles.delete": 10}')).toThrow(
      /businesses\.profiles\.delete/,
    );
  });

  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])(
    'refuses the inherited object name %s as an unknown operation',
    (name) => {
      expect(() => buildPriceTable(`{"${name}": 5}`)).toThrow(ConfigError);
    },
  );

  it.each([
    ['a negative price', '{"businesses.profiles.retrieve": -1}'],
    ['a fractional price', '{"businesses.profiles.retrieve": 90.5}'],
    ['a price given as a string', '{"businesses.profiles.retrieve": "90"}'],
    ['a null price', '{"businesses.profiles.retrieve": null}'],
    ['a price past the sanity bound', '{"businesses.profiles.retrieve": 1e12}'],
  ])('refuses %s with a ConfigError', (_label, json) => {
    expect(() => buildPriceTable(json)).toThrow(ConfigError);
  });

  it.each([
    ['text that is not JSON', 'retrieve=90'],
    ['truncated JSON', '{"businesses.profiles.retrieve": 90'],
    ['an empty string', ''],
    ['a JSON array', '[90]'],
    ['a JSON number', '90'],
    ['JSON null', 'null'],
  ])('refuses %s with a ConfigError', (_label, json) => {
    expect(() => buildPriceTable(json)).toThrow(ConfigError);
  });
});
