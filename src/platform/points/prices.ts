import { ConfigError, parseOverrides } from '../../config.ts';

// Points charged per unit of each operation, spec §1 and §8. The unit is named beside each row:
// a successful call, a number returned, a holder found, a document. Operators override rows with
// the PRICE_OVERRIDES variable (docs/points.md); the spec's prices are the defaults.
export const DEFAULT_PRICES = {
  'businesses.profiles.retrieve': 90, // per successful retrieval
  'businesses.profiles.search': 9, // per result returned
  'businesses.registrationStatus.inquire': 10, // per number whose status is returned
  'businesses.certificates.verify': 100, // per document MATCHED or NOT_MATCHED
  'bank.holders.inquire': 50, // per account returning a holder name
  'documents.taxAuthority.issue': 500, // per tax authority document
  'documents.registry.viewCopy': 1_000, // per registry view copy
  'documents.registry.submissionCopy': 1_500, // per registry submission copy
  // Not stated by the spec; etax's defaults (docs/points.md § Tax invoices). Charged when the
  // request is accepted and refunded when the document ends without being issued.
  'taxInvoices.issue': 100, // per tax invoice document, amendments and reverse issuance included
} as const satisfies Record<string, number>;

export type PricedOperation = keyof typeof DEFAULT_PRICES;
export type PriceTable = Readonly<Record<PricedOperation, number>>;

// One price is at most this many points; a typo with extra zeros is refused at start.
const PRICE_POINTS_MAX = 10_000_000;

function isPrice(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 &&
    value <= PRICE_POINTS_MAX;
}

export function buildPriceTable(overridesJson: string): PriceTable {
  const overrides = parseOverrides('PRICE_OVERRIDES', overridesJson, isPrice);
  for (const operation of Object.keys(overrides)) {
    // Own keys only: `in` would also accept inherited names such as "toString" or "__proto__".
    if (!Object.hasOwn(DEFAULT_PRICES, operation)) {
      throw new ConfigError(`PRICE_OVERRIDES: unknown operation "${operation}"`);
    }
  }
  return Object.freeze({ ...DEFAULT_PRICES, ...overrides });
}
