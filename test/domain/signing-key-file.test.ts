// signPri.key (src/domain/signing-key-file.ts): each of the three formats
// decrypts to the PKCS#8 it was written from; a wrong password is `wrongPassword`, never a
// throw or garbage; malformed or foreign files are `unsupportedFormat` with a reason, never a
// throw; hostile parameters (huge iteration counts) are refused before any work. The PBES1 IV
// rule (SHA1 of DK[16..20]) and the legacy fixed IV are checked by decrypting with node:crypto's
// own primitives as a second opinion. Malformed files are built with asn1js or written in hex.
import { createHash, generateKeyPairSync, pbkdf2Sync, randomBytes } from 'node:crypto';
import {
  BitString, Constructed, Integer, Null, ObjectIdentifier, OctetString, Sequence, Set,
  type BaseBlock,
} from 'asn1js';
import { describe, expect, it } from 'vitest';
import { seedCbcDecrypt, seedCbcEncrypt } from '../../src/domain/seed.ts';
import {
  decryptSigningKeyFile,
  encryptSigningKeyFile,
  KEY_FILE_FORMATS,
  readRandomNumber,
  withRandomNumber,
  type KeyFileFormat,
} from '../../src/domain/signing-key-file.ts';
import { RANDOM_NUMBER_OID } from '../../src/domain/virtual-id.ts';

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
    expect(result).toEqual({ kind: 'decrypted', pkcs8: PKCS8,
      randomNumber: null });
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
    const aes = keyFile(seq(oid('2.16.840.1.101.3.4.1.42'),
      seq(octets(randomBytes(8)), new Integer({ value: 2048 }))));
    expect(decryptSigningKeyFile(aes, PASSWORD)).toEqual({ kind: 'unsupportedFormat',
      reason: 'unsupported key encryption algorithm 2.16.840.1.101.3.4.1.42' });
  });

  it('refuses an iteration count above the bound without deriving a key', () => {
    const file = keyFile(seq(oid(KEY_FILE_FORMATS.seedCbcWithSha1),
      seq(octets(randomBytes(8)), new Integer({ value: 2_000_000_000 }))));
    expect(decryptSigningKeyFile(file, PASSWORD)).toEqual({ kind: 'unsupportedFormat',
      reason: 'iteration count 2000000000 is out of range' });
  });
});

// Builders for files that CA software would never write.
const oid = (value: string) => new ObjectIdentifier({ value });
const octets = (bytes: Buffer) => new OctetString({ valueHex: bytes });
const seq = (...value: BaseBlock[]) => new Sequence({ value });
const PBKDF2 = '1.2.840.113549.1.5.12';
const HMAC_SHA1 = '1.2.840.113549.2.7';

function keyFile(algorithm: BaseBlock, data: BaseBlock = octets(randomBytes(1216))): Buffer {
  return Buffer.from(seq(algorithm, data).toBER());
}

function pbes2File(kdf: BaseBlock, scheme: BaseBlock = seedCbc()): Buffer {
  return keyFile(seq(oid(KEY_FILE_FORMATS.pbes2), seq(kdf, scheme)));
}

function seedCbc(iv: Buffer = randomBytes(16)): BaseBlock {
  return seq(oid(KEY_FILE_FORMATS.seedCbc), octets(iv));
}

function pbkdf2(...parameters: BaseBlock[]): BaseBlock {
  return seq(oid(PBKDF2), seq(...parameters));
}

function unsupported(file: Buffer): string {
  const result = decryptSigningKeyFile(file, PASSWORD);
  if (result.kind !== 'unsupportedFormat') throw new Error(`answered ${result.kind}`);
  return result.reason;
}

describe('decryptSigningKeyFile with malformed DER', () => {
  it.each(FORMATS)('answers unsupportedFormat for every truncation of a %s file', (format) => {
    const file = write(format);
    for (let length = 0; length < file.length; length += 1) {
      expect(decryptSigningKeyFile(file.subarray(0, length), PASSWORD).kind)
        .toBe('unsupportedFormat');
    }
  });

  it.each(FORMATS)('answers unsupportedFormat for bytes after a %s file', (format) => {
    const file = Buffer.concat([write(format), Buffer.from([0])]);
    expect(unsupported(file)).toBe('trailing bytes after DER');
  });

  it('answers unsupportedFormat for a wrong tag on the file, its algorithm or its data', () => {
    const file = write('pbes2');
    const retagged = (index: number, tag: number) => {
      const copy = Buffer.from(file);
      copy[index] = tag;
      return copy;
    };
    expect(unsupported(retagged(0, 0x31))).toBe('DER is not a EncryptedPrivateKeyInfo');
    // A context tag is what the schema parser alone would take for the SEQUENCE.
    expect(unsupported(retagged(0, 0xa0))).toBe('unexpected tag class in DER');
    expect(unsupported(retagged(4, 0xa0))).toBe('unexpected tag class in DER');
    expect(unsupported(retagged(4, 0x31))).toBe('DER is not a EncryptedPrivateKeyInfo');
    const dataIndex = file.length - Math.ceil((PKCS8.length + 1) / 16) * 16 - 4;
    expect(file[dataIndex]).toBe(0x04);
    expect(unsupported(retagged(dataIndex, 0x02))).toBe('DER is not a EncryptedPrivateKeyInfo');
    const constructed = new OctetString({ isConstructed: true, value: [octets(randomBytes(16))] });
    expect(unsupported(keyFile(seq(oid(KEY_FILE_FORMATS.seedCbc),
      seq(octets(randomBytes(8)), new Integer({ value: 2048 }))), constructed)))
      .toBe('DER is not a EncryptedPrivateKeyInfo');
  });

  it('answers unsupportedFormat for an indefinite length or a child past its parent', () => {
    const file = write('seedCbc');
    const indefinite =
      Buffer.concat([Buffer.from([0x30, 0x80]), file.subarray(4), Buffer.alloc(2)]);
    expect(unsupported(indefinite)).toBe('indefinite length in DER');
    const short = Buffer.from(file);
    short[3] = short[3]! - 2;
    expect(unsupported(short)).toBe('inconsistent DER length');
  });

  // The hand-written reader threw a TypeError on the first two and a RangeError on the IV.
  it('answers unsupportedFormat, not a throw, for missing parts and a short IV', () => {
    expect(unsupported(Buffer.from([0x30, 0x00]))).toBe('DER is not a EncryptedPrivateKeyInfo');
    expect(unsupported(pbes2File(seq(oid(PBKDF2))))).toBe('missing algorithm parameters');
    expect(unsupported(pbes2File(pbkdf2(octets(randomBytes(8)), new Integer({ value: 2048 })),
      seedCbc(randomBytes(8))))).toBe('a SEED-CBC IV of 8 bytes');
  });

  it('answers unsupportedFormat for an algorithm without parameters or with NULL', () => {
    for (const format of FORMATS) {
      const algorithm = oid(KEY_FILE_FORMATS[format]);
      expect(unsupported(keyFile(seq(algorithm)))).toBe('missing algorithm parameters');
      expect(unsupported(keyFile(seq(algorithm, new Null())))).toBe('missing algorithm parameters');
    }
  });

  it('answers unsupportedFormat for PBES2 with another KDF, PRF or cipher', () => {
    const saltAndCount = [octets(randomBytes(8)), new Integer({ value: 2048 })];
    const scrypt = seq(oid('1.3.6.1.4.1.11591.4.11'), seq(...saltAndCount));
    expect(unsupported(pbes2File(scrypt))).toBe('PBES2 without PBKDF2');
    const sha256 = seq(oid('1.2.840.113549.2.9'), new Null());
    expect(unsupported(pbes2File(pbkdf2(...saltAndCount, sha256))))
      .toBe('PBKDF2 with a PRF other than HMAC-SHA1');
    const aes = seq(oid('2.16.840.1.101.3.4.1.2'), octets(randomBytes(16)));
    expect(unsupported(pbes2File(pbkdf2(...saltAndCount), aes)))
      .toBe('PBES2 with a cipher other than SEED-CBC');
  });

  const COUNTS: [string, BaseBlock, string][] = [
    ['an OCTET STRING', octets(Buffer.from([8, 0])), 'DER is not a'],
    ['NULL', new Null(), 'DER is not a'],
    ['an empty INTEGER', new Integer({ valueHex: new ArrayBuffer(0) }),
      'empty INTEGER or OBJECT IDENTIFIER in DER'],
    ['negative', new Integer({ value: -1 }), 'iteration count -1 is out of range'],
    ['zero', new Integer({ value: 0 }), 'iteration count 0 is out of range'],
    ['one above the bound', new Integer({ value: 100_001 }),
      'iteration count 100001 is out of range'],
    ['nine bytes long', Integer.fromBigInt(2n ** 64n),
      'iteration count 18446744073709551616 is out of range'],
  ];

  it.each(COUNTS)('answers unsupportedFormat for an iteration count that is %s',
    (_name, count, reason) => {
      const salt = octets(randomBytes(8));
      const pbes1 = keyFile(seq(oid(KEY_FILE_FORMATS.seedCbcWithSha1), seq(salt, count)));
      expect(unsupported(pbes1)).toContain(reason);
      expect(unsupported(pbes2File(pbkdf2(salt, count)))).toContain(reason);
    });

  it('answers unsupportedFormat for a salt that is not an OCTET STRING', () => {
    const count = new Integer({ value: 2048 });
    const file = keyFile(seq(oid(KEY_FILE_FORMATS.seedCbc), seq(new Integer({ value: 5 }), count)));
    expect(unsupported(file)).toBe('DER is not a PbeParameter');
  });

  it.each(FORMATS)('never throws for any one-byte change to the start of a %s file',
    (format) => {
      const file = encryptSigningKeyFile(PKCS8, PASSWORD,
        { format, salt: randomBytes(8), iterations: 16, iv: randomBytes(16) });
      for (let index = 0; index < 100; index += 1) {
        for (const change of [0x01, 0x20, 0x80, 0xff]) {
          const copy = Buffer.from(file);
          copy[index] = copy[index]! ^ change;
          const { kind } = decryptSigningKeyFile(copy, PASSWORD);
          expect(['unsupportedFormat', 'wrongPassword', 'decrypted']).toContain(kind);
        }
      }
    });
});

describe('decryptSigningKeyFile with the optional PBKDF2 fields', () => {
  it('decrypts a PBES2 file that states its key length and HMAC-SHA1 explicitly', () => {
    const salt = randomBytes(8);
    const iv = randomBytes(16);
    const key = pbkdf2Sync(PASSWORD, salt, 2048, 16, 'sha1');
    const kdf = pbkdf2(octets(salt), new Integer({ value: 2048 }), new Integer({ value: 16 }),
      seq(oid(HMAC_SHA1), new Null()));
    const data = octets(seedCbcEncrypt(key, iv, PKCS8));
    const file = keyFile(seq(oid(KEY_FILE_FORMATS.pbes2), seq(kdf, seedCbc(iv))), data);
    expect(decryptSigningKeyFile(file, PASSWORD)).toEqual({ kind: 'decrypted', pkcs8: PKCS8,
      randomNumber: null });
  });
});

describe('encryptSigningKeyFile', () => {
  // The layout CA software writes, byte for byte, before the encrypted data.
  it('writes the header of each format as CA software does', () => {
    const salt = Buffer.from('0102030405060708', 'hex');
    const iv = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
    const header = (format: KeyFileFormat) => encryptSigningKeyFile(PKCS8, PASSWORD,
      { format, salt, iterations: 2048, iv }).subarray(4).toString('hex');
    const pbe = '300e04080102030405060708020208 00'.replace(/ /g, '');
    expect(header('seedCbcWithSha1')).toMatch(
      new RegExp(`^301a06082a831a8c9a44010f${pbe}048`));
    expect(header('seedCbc')).toMatch(new RegExp(`^301a06082a831a8c9a440104${pbe}048`));
    expect(header('pbes2')).toMatch(new RegExp('^304806092a864886f70d01050d303b' +
      '301b06092a864886f70d01050c' + pbe + '301c06082a831a8c9a440104' +
      '0410000102030405060708090a0b0c0d0e0f048'));
  });
});

describe('the random value R among the key\'s attributes', () => {
  const R = randomBytes(20);

  // PKCS8 with the given attributes ([0] SET OF Attribute) appended, built by hand.
  function withAttributes(...attributes: BaseBlock[]): Buffer {
    const body = Buffer.from(PKCS8);
    const tagged = Buffer.from(new Constructed({ idBlock: { tagClass: 3, tagNumber: 0 },
      value: attributes }).toBER());
    const inner = Buffer.concat([body.subarray(4), tagged]);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(inner.length);
    return Buffer.concat([Buffer.from([0x30, 0x82]), length, inner]);
  }
  const attribute = (type: string, ...values: BaseBlock[]) =>
    new Sequence({ value: [new ObjectIdentifier({ value: type }), new Set({ value: values })] });
  const bits = (bytes: Buffer, unusedBits = 0) =>
    new BitString({ valueHex: Uint8Array.from(bytes), unusedBits });

  it('keeps R through encryption and decryption, in every format', () => {
    for (const format of FORMATS) {
      const file = encryptSigningKeyFile(withRandomNumber(PKCS8, R), PASSWORD,
        { format, salt: randomBytes(8), iterations: 2048, iv: randomBytes(16) });
      const result = decryptSigningKeyFile(file, PASSWORD);
      expect(result.kind === 'decrypted' && result.randomNumber).toEqual(R);
    }
  });

  it('reads R from a key written as CAs write it, beside other attributes', () => {
    const pkcs8 = withAttributes(attribute('1.2.3.4', new Null()),
      attribute(RANDOM_NUMBER_OID, bits(R)));
    expect(readRandomNumber(pkcs8)).toEqual(R);
  });

  it('reads no R when it is absent, doubled, partial or not a BIT STRING', () => {
    expect(readRandomNumber(PKCS8)).toBeNull();
    expect(readRandomNumber(withAttributes(attribute(RANDOM_NUMBER_OID, bits(R)),
      attribute(RANDOM_NUMBER_OID, bits(R))))).toBeNull();
    expect(readRandomNumber(withAttributes(attribute(RANDOM_NUMBER_OID, bits(R), bits(R)))))
      .toBeNull();
    expect(readRandomNumber(withAttributes(attribute(RANDOM_NUMBER_OID, bits(R, 3))))).toBeNull();
    expect(readRandomNumber(withAttributes(attribute(RANDOM_NUMBER_OID,
      new OctetString({ valueHex: Uint8Array.from(R) }))))).toBeNull();
    expect(readRandomNumber(Buffer.from('not a key'))).toBeNull();
  });
});
