import assert from 'node:assert/strict';
import canonicalizeModule from 'canonicalize';

// JSON in its canonical form (RFC 8785, JSON Canonicalization Scheme): keys sorted, no
// whitespace, numbers and strings in one spelling. Equal values always give the same text, so
// the text can be hashed, signed or compared: reference id fingerprints, signed tax invoices,
// and an entry correction that must differ from its original.

// The package is CommonJS with `module.exports = fn`, which its types describe as a default export.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

// The canonical text of a JSON value. Only a value JSON cannot hold (undefined, a function) has
// none, and passing one is a bug of the caller.
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  assert(text !== undefined, 'only JSON values have a canonical form');
  return text;
}
