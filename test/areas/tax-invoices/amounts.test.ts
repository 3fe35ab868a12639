// The arithmetic of an item's amounts (src/domain/tax-amounts.ts): 10% VAT within 1 won per item
// and within 1 won per item in total, and quantity × unit price within 1 won of the supply cost,
// exact even where doubles are not.
import { describe, expect, it } from 'vitest';
import {
  expectedTax,
  formatProduct,
  isItemTaxAtRate,
  isSupplyCostOfQuantity,
  isTaxTotalAtRate,
  lineTax,
  sumAmounts,
  supplyCostOfQuantity,
} from '../../../src/domain/tax-amounts.ts';
import { AMOUNT_ABS_MAX } from '../../../src/areas/tax-invoices/schemas.ts';

describe('the 10% VAT rate', () => {
  it('rounds 10% half away from zero, the same for a negated item', () => {
    expect(expectedTax(100_000)).toBe(10_000);
    expect(expectedTax(1_235)).toBe(124);
    expect(expectedTax(-1_235)).toBe(-124);
    expect(expectedTax(4)).toBe(0);
  });

  it.each([[1_235, 123], [1_235, 124], [1_235, 125], [-1_235, -123], [0, 0]])(
    'accepts a tax of %i on %i', (supplyCost, tax) => {
      expect(isItemTaxAtRate(supplyCost, tax)).toBe(true);
    });

  it.each([[1_235, 122], [1_235, 126], [100_000, 50_000], [100_000, 1], [-1_235, 124]])(
    'refuses a tax of %i on %i', (supplyCost, tax) => {
      expect(isItemTaxAtRate(supplyCost, tax)).toBe(false);
    });

  it('allows the total 1 won per item, which truncating every item stays within', () => {
    // Five items of 19 won, each truncated to 1: 5 against 10% of 95, 10 rounded.
    expect(isTaxTotalAtRate(95, 5, 5)).toBe(true);
    expect(isTaxTotalAtRate(95, 4, 5)).toBe(false);
  });
});

describe('quantity × unit price', () => {
  it.each([[2.5, 40_001, 100_002], [2.5, 40_001, 100_003], [3, 5_000, 15_000],
    [-0.5, 200_001, -100_000], [0.01, 1, 0]])('accepts %d × %i as %i', (quantity, price, cost) => {
    expect(isSupplyCostOfQuantity(quantity, price, cost)).toBe(true);
  });

  it.each([[2.5, 40_001, 100_001], [2.5, 40_001, 100_004], [3, 5_000, 50_000]])(
    'refuses %d × %i as %i', (quantity, price, cost) => {
      expect(isSupplyCostOfQuantity(quantity, price, cost)).toBe(false);
    });

  it('is exact for products beyond what a double holds', () => {
    // 0.07 × 99,999,999,999,999 = 6,999,999,999,999.93; as doubles the product is off by more.
    expect(isSupplyCostOfQuantity(0.07, AMOUNT_ABS_MAX, 699_999_999_999)).toBe(true);
    expect(isSupplyCostOfQuantity(0.07, AMOUNT_ABS_MAX, 699_999_999_998)).toBe(false);
    expect(formatProduct(0.07, AMOUNT_ABS_MAX)).toBe('699999999999.93');
  });

  it('writes the exact product with its decimals and sign', () => {
    expect(formatProduct(2.5, 40_001)).toBe('100002.50');
    expect(formatProduct(-0.5, 3)).toBe('-1.50');
    expect(formatProduct(3, 5_000)).toBe('15000');
  });
});

// What the dashboard's line editor fills in: values the API's checks accept, exactly.
describe('the line editor\'s arithmetic', () => {
  it.each([[3, 3_333], [0.5, 3], [0.01, 49], [-2.5, 1_001], [999.99, 9_999_999_999],
    [1.15, 10], [0.29, 5]])('fills a supply cost the API accepts for %d × %d',
  (quantity, price) => {
    const supplyCost = supplyCostOfQuantity(quantity, price);
    expect(isSupplyCostOfQuantity(quantity, price, supplyCost)).toBe(true);
    // Half a won rounds away from zero, the same for a negated line.
    expect(supplyCostOfQuantity(-quantity, price) + 0).toBe(-supplyCost + 0);
  });

  it('rounds half a won away from zero', () => {
    expect(supplyCostOfQuantity(0.5, 3)).toBe(2);
    expect(supplyCostOfQuantity(-0.5, 3)).toBe(-2);
    expect(supplyCostOfQuantity(3, 3_333)).toBe(9_999);
  });

  it('gives each kind of invoice its line tax, which the API accepts', () => {
    expect(lineTax('TAXABLE', 9_999)).toBe(1_000);
    expect(isItemTaxAtRate(9_999, lineTax('TAXABLE', 9_999)!)).toBe(true);
    expect(lineTax('TAXABLE', -1_235)).toBe(-124);
    expect(lineTax('ZERO_RATED', 9_999)).toBe(0);
    expect(lineTax('TAX_FREE', 9_999)).toBeNull();
  });

  it('sums the lines, a tax-exempt line\'s tax as 0', () => {
    expect(sumAmounts([{ supplyCost: 9_999, tax: 1_000 }, { supplyCost: -1_000, tax: null }]))
      .toEqual({ supplyCost: 8_999, tax: 1_000, total: 9_999 });
    expect(sumAmounts([])).toEqual({ supplyCost: 0, tax: 0, total: 0 });
  });
});
