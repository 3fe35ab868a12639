// SEED (src/domain/seed.ts) against the four known-answer tests of RFC 4269 Appendix B, both
// directions, and SEED-CBC with PKCS#7 padding: round trips at every length around a block,
// and a corrupted last block or a ragged length is a padding error, never garbage.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  seedCbcDecrypt,
  seedCbcEncrypt,
  seedDecryptBlock,
  seedEncryptBlock,
  SeedPaddingError,
} from '../../src/domain/seed.ts';

const hex = (value: string) => Buffer.from(value, 'hex');
const counting = Buffer.from(Array.from({ length: 16 }, (_, index) => index));

const RFC_4269_VECTORS = [
  { key: Buffer.alloc(16), plaintext: counting, ciphertext: '5ebac6e0054e166819aff1cc6d346cdb' },
  { key: counting, plaintext: Buffer.alloc(16), ciphertext: 'c11f22f20140505084483597e4370f43' },
  {
    key: hex('4706480851e61be85d74bfb3fd956185'),
    plaintext: hex('83a2f8a288641fb9a4e9a5cc2f131c7d'),
    ciphertext: 'ee54d13ebcae706d226bc3142cd40d4a',
  },
  {
    key: hex('28dbc3bc49ffd87dcfa509b11d422be7'),
    plaintext: hex('b41e6be2eba84a148e2eed84593c5ec7'),
    ciphertext: '9b9b7bfcd1813cb95d0b3618f40f5122',
  },
];

describe('SEED block cipher', () => {
  it.each(RFC_4269_VECTORS.map((vector, index) => ({ ...vector, index: index + 1 })))(
    'encrypts and decrypts RFC 4269 vector $index',
    ({ key, plaintext, ciphertext }) => {
      expect(Buffer.from(seedEncryptBlock(key, plaintext)).toString('hex')).toBe(ciphertext);
      expect(Buffer.from(seedDecryptBlock(key, hex(ciphertext)))).toEqual(plaintext);
    },
  );

  it('refuses a key that is not 16 bytes', () => {
    expect(() => seedEncryptBlock(Buffer.alloc(15), counting)).toThrow(RangeError);
  });
});

describe('SEED-CBC', () => {
  const key = randomBytes(16);
  const iv = randomBytes(16);

  it.each([0, 1, 15, 16, 17, 31, 32, 100])('round-trips %i bytes', (length) => {
    const plaintext = randomBytes(length);
    const ciphertext = seedCbcEncrypt(key, iv, plaintext);
    expect(ciphertext.length).toBe((Math.floor(length / 16) + 1) * 16);
    expect(seedCbcDecrypt(key, iv, ciphertext)).toEqual(plaintext);
  });

  it('chains blocks: equal plaintext blocks give different ciphertext blocks', () => {
    const ciphertext = seedCbcEncrypt(key, iv, Buffer.alloc(32));
    expect(ciphertext.subarray(0, 16)).not.toEqual(ciphertext.subarray(16, 32));
  });

  it('throws SeedPaddingError for a ragged length or an empty input', () => {
    expect(() => seedCbcDecrypt(key, iv, Buffer.alloc(17))).toThrow(SeedPaddingError);
    expect(() => seedCbcDecrypt(key, iv, Buffer.alloc(0))).toThrow(SeedPaddingError);
  });

  it('throws SeedPaddingError when decrypted with another key', () => {
    const ciphertext = seedCbcEncrypt(key, iv, Buffer.from('fifteen bytes!!'));
    let paddingErrors = 0;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      try {
        seedCbcDecrypt(randomBytes(16), iv, ciphertext);
      } catch (error) {
        expect(error).toBeInstanceOf(SeedPaddingError);
        paddingErrors += 1;
      }
    }
    // A wrong key passes the padding check by chance about once in 256 tries.
    expect(paddingErrors).toBeGreaterThanOrEqual(18);
  });
});
