import { createHash, pbkdf2Sync } from 'node:crypto';
import { AsnConvert, BitString, OctetString } from '@peculiar/asn1-schema';
import {
  Attributes,
  EncryptedData,
  EncryptedPrivateKeyInfo,
  PrivateKeyInfo,
} from '@peculiar/asn1-pkcs8';
import { AlgorithmIdentifier, Attribute } from '@peculiar/asn1-x509';
import { DerError, parseDer } from './der.ts';
import { KEY_FILE_ITERATIONS_MAX } from './key-file-limits.ts';
import { PbeParameter, Pbes2Parameters, Pbkdf2Parameters } from './pkcs5.ts';
import { SEED_BLOCK_BYTES, seedCbcDecrypt, seedCbcEncrypt, SeedPaddingError } from './seed.ts';
import { RANDOM_NUMBER_OID } from './virtual-id.ts';

// The encrypted private key of a Korean joint certificate (signPri.key, from the owner's NPKI
// folder): an EncryptedPrivateKeyInfo whose content is a PKCS#8 PrivateKeyInfo encrypted with
// SEED-CBC under a key derived from the password, in one of three formats. Decryption is ours
// (src/domain/seed.ts) because Node's OpenSSL 3 has no SEED without the legacy provider.

export const KEY_FILE_FORMATS = {
  // PBES1-style pbeWithSHA1AndSEED-CBC: PBKDF1-SHA1; IV = SHA1(DK[16..20])[0..16].
  seedCbcWithSha1: '1.2.410.200004.1.15',
  // PBES2 with PBKDF2-HMAC-SHA1 and SEED-CBC; the IV is in the scheme parameters.
  pbes2: '1.2.840.113549.1.5.13',
  // Old style: SEED-CBC directly, PBKDF1-SHA1, fixed IV "0123456789012345".
  seedCbc: '1.2.410.200004.1.4',
} as const;

export type KeyFileFormat = keyof typeof KEY_FILE_FORMATS;

const PBKDF2_OID = '1.2.840.113549.1.5.12';
const HMAC_SHA1_OID = '1.2.840.113549.2.7';
const LEGACY_FIXED_IV = Buffer.from('0123456789012345', 'ascii');
const KEY_BYTES = 16;

export type KeyFileResult =
  // The PrivateKeyInfo as decrypted, attributes and all, and the random value R among them (null
  // when the key file carries none, or carries it in a form that cannot be read).
  | { kind: 'decrypted'; pkcs8: Buffer; randomNumber: Buffer | null }
  | { kind: 'wrongPassword' }
  | { kind: 'unsupportedFormat'; reason: string };

// PBKDF1 with SHA-1: DK = SHA1^iterations(password ‖ salt), 20 bytes.
function pbkdf1Sha1(password: Buffer, salt: Buffer, iterations: number): Buffer {
  let digest = createHash('sha1').update(password).update(salt).digest();
  for (let round = 1; round < iterations; round += 1) {
    digest = createHash('sha1').update(digest).digest();
  }
  return digest;
}

type CipherParameters = { key: Buffer; iv: Buffer };

// The count is checked before any hashing, so a hostile count costs nothing.
function checkIterations(count: bigint): number {
  if (count < 1n || count > BigInt(KEY_FILE_ITERATIONS_MAX)) {
    throw new DerError(`iteration count ${count} is out of range`);
  }
  return Number(count);
}

// An absent field and an explicit NULL (which the library reads as null) are both missing.
function requireParameters(algorithm: AlgorithmIdentifier): ArrayBuffer {
  if (!algorithm.parameters) throw new DerError('missing algorithm parameters');
  return algorithm.parameters;
}

function pbkdf1Parameters(parameters: ArrayBuffer, password: Buffer, legacy: boolean) {
  const { salt, iterationCount } = parseDer(parameters, PbeParameter);
  const iterations = checkIterations(iterationCount);
  const derived = pbkdf1Sha1(password, Buffer.from(salt), iterations);
  const iv = legacy
    ? LEGACY_FIXED_IV
    : createHash('sha1').update(derived.subarray(16, 20)).digest().subarray(0, 16);
  return { key: derived.subarray(0, KEY_BYTES), iv };
}

function pbes2Parameters(parameters: ArrayBuffer, password: Buffer): CipherParameters {
  const { keyDerivationFunc, encryptionScheme } = parseDer(parameters, Pbes2Parameters);
  if (keyDerivationFunc.algorithm !== PBKDF2_OID) throw new DerError('PBES2 without PBKDF2');
  const kdf = parseDer(requireParameters(keyDerivationFunc), Pbkdf2Parameters);
  const iterations = checkIterations(kdf.iterationCount);
  if (kdf.prf && kdf.prf.algorithm !== HMAC_SHA1_OID) {
    throw new DerError('PBKDF2 with a PRF other than HMAC-SHA1');
  }
  if (encryptionScheme.algorithm !== KEY_FILE_FORMATS.seedCbc) {
    throw new DerError('PBES2 with a cipher other than SEED-CBC');
  }
  const iv = Buffer.from(parseDer(requireParameters(encryptionScheme), OctetString).buffer);
  // Checked here, where it is a fact about the file, rather than left to the cipher to throw.
  if (iv.length !== SEED_BLOCK_BYTES) throw new DerError(`a SEED-CBC IV of ${iv.length} bytes`);
  const salt = Buffer.from(kdf.salt);
  return { key: pbkdf2Sync(password, salt, iterations, KEY_BYTES, 'sha1'), iv };
}

function cipherParameters(
  oid: string,
  parameters: ArrayBuffer,
  password: Buffer,
): CipherParameters {
  if (oid === KEY_FILE_FORMATS.seedCbcWithSha1) {
    return pbkdf1Parameters(parameters, password, false);
  }
  if (oid === KEY_FILE_FORMATS.seedCbc) return pbkdf1Parameters(parameters, password, true);
  if (oid === KEY_FILE_FORMATS.pbes2) return pbes2Parameters(parameters, password);
  throw new DerError(`unsupported key encryption algorithm ${oid}`);
}

// A PrivateKeyInfo is a SEQUENCE that starts with INTEGER 0; anything else after decryption
// means the password was wrong, as a padding failure does: that is how CAs' software tells.
// Its three untagged fields come first; the optional attributes after them are tagged [0].
function readPrivateKeyInfo(plaintext: Buffer): PrivateKeyInfo | null {
  try {
    const info = parseDer(plaintext, PrivateKeyInfo, { universalFieldCount: 3 });
    return info.version === 0 ? info : null;
  } catch (error) {
    if (error instanceof DerError) return null;
    throw error;
  }
}

// R: the one value of the one randomNum attribute, a BIT STRING of whole bytes. Two randomNum
// attributes, or two values, would leave it open which one the certificate was made with.
function randomNumberOf(info: PrivateKeyInfo): Buffer | null {
  const attributes = (info.attributes ?? []).filter(({ type }) => type === RANDOM_NUMBER_OID);
  const values = attributes.length === 1 ? attributes[0]!.values : [];
  if (values.length !== 1) return null;
  try {
    const bits = parseDer(values[0]!, BitString);
    return bits.unusedBits === 0 && bits.value.byteLength > 0 ? Buffer.from(bits.value) : null;
  } catch (error) {
    if (error instanceof DerError) return null;
    throw error;
  }
}

// The R of a decrypted PrivateKeyInfo (as sealed at registration), or null.
export function readRandomNumber(pkcs8: Buffer): Buffer | null {
  const info = readPrivateKeyInfo(pkcs8);
  return info === null ? null : randomNumberOf(info);
}

// The password is hashed as its UTF-8 bytes, which is what every CA's software does for the
// ASCII passwords they allow.
export function decryptSigningKeyFile(file: Buffer, password: string): KeyFileResult {
  let parameters: CipherParameters;
  let encrypted: Buffer;
  try {
    const { encryptionAlgorithm, encryptedData } = parseDer(file, EncryptedPrivateKeyInfo);
    const parameterDer = requireParameters(encryptionAlgorithm);
    const passwordBytes = Buffer.from(password, 'utf8');
    parameters = cipherParameters(encryptionAlgorithm.algorithm, parameterDer, passwordBytes);
    encrypted = Buffer.from(encryptedData.buffer);
  } catch (error) {
    if (error instanceof DerError) return { kind: 'unsupportedFormat', reason: error.message };
    throw error;
  }
  try {
    const plaintext = seedCbcDecrypt(parameters.key, parameters.iv, encrypted);
    const info = readPrivateKeyInfo(plaintext);
    if (info === null) return { kind: 'wrongPassword' };
    return { kind: 'decrypted', pkcs8: plaintext, randomNumber: randomNumberOf(info) };
  } catch (error) {
    if (error instanceof SeedPaddingError) return { kind: 'wrongPassword' };
    throw error;
  }
}

export type EncryptKeyFileOptions = {
  format: KeyFileFormat;
  salt: Buffer;
  iterations: number;
  // PBES2 only: the IV written into the scheme parameters.
  iv?: Buffer;
};

// The algorithm parameters of `format`, encoded as the file carries them.
function encodeParameters(options: EncryptKeyFileOptions): ArrayBuffer {
  const saltAndCount = {
    salt: Uint8Array.from(options.salt).buffer,
    iterationCount: BigInt(options.iterations),
  };
  if (options.format !== 'pbes2') return AsnConvert.serialize(new PbeParameter(saltAndCount));
  const iv = new OctetString(options.iv ?? Buffer.alloc(SEED_BLOCK_BYTES));
  return AsnConvert.serialize(new Pbes2Parameters({
    keyDerivationFunc: new AlgorithmIdentifier({
      algorithm: PBKDF2_OID,
      parameters: AsnConvert.serialize(new Pbkdf2Parameters(saltAndCount)),
    }),
    encryptionScheme: new AlgorithmIdentifier({
      algorithm: KEY_FILE_FORMATS.seedCbc,
      parameters: AsnConvert.serialize(iv),
    }),
  }));
}

// Writes a signPri.key the way a CA's software does. Used to build test certificates and by
// anyone who needs to hand a key file back to a business owner.
export function encryptSigningKeyFile(
  pkcs8: Buffer,
  password: string,
  options: EncryptKeyFileOptions,
): Buffer {
  const parameters = encodeParameters(options);
  const oid = KEY_FILE_FORMATS[options.format];
  const { key, iv } = cipherParameters(oid, parameters, Buffer.from(password, 'utf8'));
  return Buffer.from(AsnConvert.serialize(new EncryptedPrivateKeyInfo({
    encryptionAlgorithm: new AlgorithmIdentifier({ algorithm: oid, parameters }),
    encryptedData: new EncryptedData(seedCbcEncrypt(key, iv, pkcs8)),
  })));
}

// The PrivateKeyInfo with R as its randomNum attribute, as a CA's software writes it into the key
// file beside the key. Used by the sandbox CA.
export function withRandomNumber(pkcs8: Buffer, randomNumber: Buffer): Buffer {
  const info = readPrivateKeyInfo(pkcs8);
  if (info === null) throw new DerError('not a PrivateKeyInfo');
  info.attributes = new Attributes([new Attribute({ type: RANDOM_NUMBER_OID,
    values: [AsnConvert.serialize(new BitString(Uint8Array.from(randomNumber)))] })]);
  return Buffer.from(AsnConvert.serialize(info));
}
