// The redacted form of an API key kept beside its hash for support (docs/auth.md): the prefix
// with the first and last four characters, never more of the secret.
import { describe, expect, it } from 'vitest';
import { generateApiKey, redactApiKey } from '../../../src/platform/accounts/keys.ts';

describe('redacting an API key', () => {
  it('keeps the prefix, the first four and the last four characters, as docs/auth.md shows', () => {
    expect(redactApiKey('test_m95JtFU6Dn3vdfDDFyzHMbMHo2-KZ55b1uAZa3bxOvs')).toBe('test_m95J…xOvs');
  });

  it.each(['test', 'live'] as const)('hides 35 of the 43 secret characters of a %s key',
    (environment) => {
      const key = generateApiKey(environment);
      const redacted = redactApiKey(key);
      expect(redacted.startsWith(`${environment}_`)).toBe(true);
      expect(redacted).toBe(`${key.slice(0, 9)}…${key.slice(-4)}`);
      expect(key.length - redacted.length + 1).toBe(35);
    });
});
