// Ids from the one prefix table (src/domain/ids.ts): random ids for new things, and
// deterministic ids for writes that must happen at most once, whose exact form existing data
// already holds (a tax invoice's refund is led_refund_<issuanceKey>).
import { describe, expect, it } from 'vitest';
import { deterministicId, ID_PREFIXES, newId } from '../../src/domain/ids.ts';

describe('newId', () => {
  it('starts with the prefix of its kind and never repeats', () => {
    const ids = Array.from({ length: 1_000 }, () => newId('issuanceKey'));
    expect(ids.every((id) => id.startsWith('txi_'))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('deterministicId', () => {
  it('makes the refund ledger entry id of a tax invoice exactly as before', () => {
    expect(deterministicId('ledgerEntry', 'refund', 'txi_8D529FAD3EBAE050B79CE943CC'))
      .toBe('led_refund_txi_8D529FAD3EBAE050B79CE943CC');
  });

  it('gives the same id for the same parts and another for other parts', () => {
    expect(deterministicId('ledgerEntry', 'refund', 'a'))
      .toBe(deterministicId('ledgerEntry', 'refund', 'a'));
    expect(deterministicId('ledgerEntry', 'refund', 'a'))
      .not.toBe(deterministicId('ledgerEntry', 'refund', 'b'));
  });

  it('starts with the prefix of its kind', () => {
    expect(deterministicId('webhookEvent', 'x').startsWith(`${ID_PREFIXES.webhookEvent}_`))
      .toBe(true);
  });

  it('refuses an id without parts or with an empty part', () => {
    expect(() => deterministicId('ledgerEntry')).toThrow();
    expect(() => deterministicId('ledgerEntry', 'refund', '')).toThrow();
  });
});
