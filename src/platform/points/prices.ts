import { ConfigError, parseOverrides } from '../../config.ts';
import { DEFAULT_PRICES, isPriceRow, type PriceRow } from '../operations.ts';

// The price table in force: the operation table's default prices (src/platform/operations.ts)
// with the operator's PRICE_OVERRIDES (docs/points.md) on top.

export type PriceTable = Readonly<Record<PriceRow, number>>;

// One price is at most this many points; a typo with extra zeros is refused at start.
const PRICE_POINTS_MAX = 10_000_000;

function isPrice(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 &&
    value <= PRICE_POINTS_MAX;
}

export function buildPriceTable(overridesJson: string): PriceTable {
  const overrides = parseOverrides('PRICE_OVERRIDES', overridesJson, isPrice);
  for (const row of Object.keys(overrides)) {
    if (!isPriceRow(row)) throw new ConfigError(`PRICE_OVERRIDES: unknown price row "${row}"`);
  }
  return Object.freeze({ ...DEFAULT_PRICES, ...overrides });
}
