// signPri.key (src/domain/signing-key-file.ts): each of the three formats of domain facts §8.2
// decrypts to the PKCS#8 it was written from; a wrong password is `wrongPassword`, never a
// throw or garbage; malformed or foreign files are `unsupportedFormat`; hostile parameters (huge
// iteration counts) are refused before any work. The PBES1 IV rule (SHA1 of DK[16..20]) and the
// legacy fixed IV are checked by decrypting with node:crypto's own primitives as a second opinion.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeDer, encodeObjectIdentifier, encodeSequence, encodeSmallInteger }
  from '../../src/domain/der.ts';
import { seedCbcDecrypt } from '../../src/domain/seed.ts';
import {
  decryptSigningKeyFile,
  encryptSigningKeyFile,
  KEY_FILE_FORMATS,
  type KeyFileFormat,
} from '../../src/domain/signing-key-file.ts';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PKCS8 = privateKey.export({ type: 'pkcs8', format: 'der' });
const PASSWORD = 'n0t-the-real-Pa$$';
const FORMATS: KeyFileFormat[] = ['seedCbcWithSha1', 'pbes2', 'seedCbc'];

function write(format: KeyFileFormat, password = PASSWORD, iterations = 2048) {
  return encryptSigningKeyFile(PKCS8, password, {
    format, salt: randomBytes(8), iterations, iv: randomBytes(16),
  });
}

describe('decryptSigningKeyFile', () => {
  it.each(FORMATS)('decrypts a %s file with the right password', (format) => {
    const result = decryptSigningKeyFile(write(format), PASSWORD);
    expect(result).toEqual({ kind: 'decrypted', pkcs8: PKCS8 });
  });

  it.each(FORMATS)('answers wrongPassword for a %s file with a wrong password', (format) => {
    const file = write(format);
    for (const password of ['wrong', PASSWORD.toUpperCase(), `${PASSWORD} `, '']) {
      expect(decryptSigningKeyFile(file, password)).toEqual({ kind: 'wrongPassword' });
    }
  });

  it('hashes the password as UTF-8, so a Korean password works', () => {
    const file = write('pbes2', '비밀번호123!');
    expect(decryptSigningKeyFile(file, '비밀번호123!').kind).toBe('decrypted');
  });

  it('derives the PBES1 IV from SHA1 of the last four key bytes and the legacy IV as fixed',
    () => {
      const salt = randomBytes(8);
      const derive = () => {
        let digest = createHash('sha1').update(PASSWORD).update(salt).digest();
        for (let round = 1; round < 2048; round += 1) {
          digest = createHash('sha1').update(digest).digest();
        }
        return digest;
      };
      const derived = derive();
      const pbes1 = encryptSigningKeyFile(PKCS8, PASSWORD,
        { format: 'seedCbcWithSha1', salt, iterations: 2048 });
      const legacy = encryptSigningKeyFile(PKCS8, PASSWORD,
        { format: 'seedCbc', salt, iterations: 2048 });
      const data = (file: Buffer) => file.subarray(file.length - Math.ceil(
        (PKCS8.length + 1) / 16) * 16);
      const pbes1Iv = createHash('sha1').update(derived.subarray(16, 20)).digest()
        .subarray(0, 16);
      expect(seedCbcDecrypt(derived.subarray(0, 16), pbes1Iv, data(pbes1))).toEqual(PKCS8);
      const fixedIv = Buffer.from('0123456789012345');
      expect(seedCbcDecrypt(derived.subarray(0, 16), fixedIv, data(legacy))).toEqual(PKCS8);
    });

  it('answers unsupportedFormat for garbage, truncation and an empty file', () => {
    for (const file of [Buffer.from('not a key file'), write('pbes2').subarray(0, 40),
      Buffer.alloc(0), randomBytes(1200)]) {
      expect(decryptSigningKeyFile(file, PASSWORD).kind).toBe('unsupportedFormat');
    }
  });

  it('answers unsupportedFormat for an algorithm other than the three', () => {
    const aes = encodeSequence(
      encodeSequence(encodeObjectIdentifier('2.16.840.1.101.3.4.1.42'),
        encodeSequence(encodeDer(0x04, randomBytes(8)), encodeSmallInteger(2048))),
      encodeDer(0x04, randomBytes(1216)),
    );
    expect(decryptSigningKeyFile(aes, PASSWORD)).toEqual({ kind: 'unsupportedFormat',
      reason: 'unsupported key encryption algorithm 2.16.840.1.101.3.4.1.42' });
  });

  it('refuses an iteration count above the bound without deriving a key', () => {
    const file = encodeSequence(
      encodeSequence(encodeObjectIdentifier(KEY_FILE_FORMATS.seedCbcWithSha1),
        encodeSequence(encodeDer(0x04, randomBytes(8)), encodeSmallInteger(2_000_000_000))),
      encodeDer(0x04, randomBytes(1216)),
    );
    expect(decryptSigningKeyFile(file, PASSWORD).kind).toBe('unsupportedFormat');
  });
});
