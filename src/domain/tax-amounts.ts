// The arithmetic an item's amounts must agree with: VAT at 10% of the supply cost, and the supply
// cost as quantity × unit price. The law fixes no rounding and ASPs let each business truncate,
// round or round up, so each comparison allows exactly the difference those choices can make.
// Pure: the callers turn a mismatch into their own message.

export const VAT_RATE_PERCENT = 10;

// Truncating, rounding and rounding up 10% of a whole-won supply cost give results at most 1 won
// apart, so an item's tax may be that far from the rounded value.
export const TAX_TOLERANCE_WON_PER_ITEM = 1;

// 10% of a supply cost, rounded half away from zero, so that a negative amendment of an item
// expects exactly the negation of the positive item's tax.
export function expectedTax(supplyCost: number): number {
  const magnitude = Math.round(Math.abs(supplyCost) / VAT_RATE_PERCENT);
  return supplyCost < 0 ? -magnitude : magnitude;
}

// The tax of one item is 10% of its supply cost to within 1 won.
export function isItemTaxAtRate(supplyCost: number, tax: number): boolean {
  return Math.abs(tax - expectedTax(supplyCost)) <= TAX_TOLERANCE_WON_PER_ITEM;
}

// The tax total may be a won off per item: items truncated one by one add up to as much as
// 0.9 won each below 10% of the supply cost total, and the total itself rounds by half a won,
// which with whole won stays within the item count.
export function taxTotalToleranceWon(itemCount: number): number {
  return itemCount * TAX_TOLERANCE_WON_PER_ITEM;
}

export function isTaxTotalAtRate(supplyCostTotal: number, taxTotal: number, itemCount: number) {
  return Math.abs(taxTotal - expectedTax(supplyCostTotal)) <= taxTotalToleranceWon(itemCount);
}

// quantity × unitPrice in hundredths of a won, exactly: a quantity has at most two decimals (the
// schema's multipleOf 0.01), and the product of the largest quantity and unit price is beyond
// what a double holds exactly, so the multiplication is done with BigInt.
function productInHundredths(quantity: number, unitPrice: number): bigint {
  return BigInt(Math.round(quantity * 100)) * BigInt(unitPrice);
}

// The supply cost is quantity × unitPrice made whole won in any direction: less than 1 won from
// the exact product.
export function isSupplyCostOfQuantity(quantity: number, unitPrice: number, supplyCost: number) {
  const difference = productInHundredths(quantity, unitPrice) - BigInt(supplyCost) * 100n;
  return difference > -100n && difference < 100n;
}

// The exact product for a message, with its decimals: `12345.67`.
export function formatProduct(quantity: number, unitPrice: number): string {
  const hundredths = productInHundredths(quantity, unitPrice);
  const sign = hundredths < 0n ? '-' : '';
  const magnitude = hundredths < 0n ? -hundredths : hundredths;
  const cents = magnitude % 100n;
  const whole = magnitude / 100n;
  return cents === 0n ? `${sign}${whole}` : `${sign}${whole}.${String(cents).padStart(2, '0')}`;
}

// The supply cost a quantity and unit price make, rounded half away from zero to whole won: the
// value isSupplyCostOfQuantity accepts that an editor fills in for the person (the dashboard's
// line editor computes with this, so it offers what the API will accept).
export function supplyCostOfQuantity(quantity: number, unitPrice: number): number {
  const hundredths = productInHundredths(quantity, unitPrice);
  const magnitude = hundredths < 0n ? -hundredths : hundredths;
  const whole = (magnitude + 50n) / 100n;
  return Number(hundredths < 0n ? -whole : whole);
}

export type TaxKind = 'TAXABLE' | 'ZERO_RATED' | 'TAX_FREE';

// The tax of a line of each kind: 10% of the supply cost for a taxable invoice, 0 for a
// zero-rated one, none (null) for a tax-exempt one.
export function lineTax(kind: TaxKind, supplyCost: number): number | null {
  if (kind === 'TAX_FREE') return null;
  return kind === 'ZERO_RATED' ? 0 : expectedTax(supplyCost);
}

// The sums of the items, as the documents carry them; a tax-exempt item's null tax counts as 0.
export function sumAmounts(items: ReadonlyArray<{ supplyCost: number; tax: number | null }>):
  { supplyCost: number; tax: number; total: number } {
  let supplyCost = 0;
  let tax = 0;
  for (const item of items) {
    supplyCost += item.supplyCost;
    tax += item.tax ?? 0;
  }
  return { supplyCost, tax, total: supplyCost + tax };
}
