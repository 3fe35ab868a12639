// Canonical JSON (src/domain/canonical-json.ts, RFC 8785): the one text every equal value gives,
// which reference id fingerprints and tax invoice signatures hash.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/domain/canonical-json.ts';

describe('canonicalJson', () => {
  it('sorts keys and drops whitespace, so key order does not change the text', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'] })).toBe('{"a":[true,null,"x"],"b":1}');
    expect(canonicalJson({ a: { y: 1, x: 2 } })).toBe(canonicalJson({ a: { x: 2, y: 1 } }));
  });

  it('spells numbers one way', () => {
    expect(canonicalJson([1.0, 1e21, -0])).toBe('[1,1e+21,0]');
  });

  it('refuses a value JSON cannot hold', () => {
    expect(() => canonicalJson(undefined)).toThrow();
  });
});
