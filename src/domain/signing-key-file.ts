import { createHash, pbkdf2Sync } from 'node:crypto';
import {
  DER_TAGS,
  DerError,
  encodeDer,
  encodeObjectIdentifier,
  encodeSequence,
  encodeSmallInteger,
  expectTag,
  readChildren,
  readDer,
  readObjectIdentifier,
  readSmallInteger,
} from './der.ts';
import { seedCbcDecrypt, seedCbcEncrypt, SeedPaddingError } from './seed.ts';

// The encrypted private key of a Korean joint certificate (signPri.key, reference domain facts
// §8.2): an EncryptedPrivateKeyInfo whose content is a PKCS#8 PrivateKeyInfo encrypted with
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
// Real files use 2048 iterations; the bound stops a hostile file from costing minutes of CPU.
export const KEY_FILE_ITERATIONS_MAX = 100_000;

export type KeyFileResult =
  | { kind: 'decrypted'; pkcs8: Buffer }
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

function checkIterations(iterations: number): void {
  if (iterations < 1 || iterations > KEY_FILE_ITERATIONS_MAX) {
    throw new DerError(`iteration count ${iterations} is out of range`);
  }
}

function pbkdf1Parameters(parameters: Buffer, password: Buffer, legacy: boolean) {
  const [saltNode, iterationsNode] = readChildren(readDer(parameters));
  const salt = expectTag(saltNode, DER_TAGS.octetString);
  const iterations = readSmallInteger(iterationsNode);
  checkIterations(iterations);
  const derived = pbkdf1Sha1(password, salt, iterations);
  const iv = legacy
    ? LEGACY_FIXED_IV
    : createHash('sha1').update(derived.subarray(16, 20)).digest().subarray(0, 16);
  return { key: derived.subarray(0, KEY_BYTES), iv };
}

function pbes2Parameters(parameters: Buffer, password: Buffer): CipherParameters {
  const [kdf, scheme] = readChildren(readDer(parameters));
  const [kdfOid, kdfParameters] = readChildren(kdf!);
  if (readObjectIdentifier(kdfOid) !== PBKDF2_OID) throw new DerError('PBES2 without PBKDF2');
  const [saltNode, iterationsNode, ...rest] = readChildren(kdfParameters!);
  const salt = expectTag(saltNode, DER_TAGS.octetString);
  const iterations = readSmallInteger(iterationsNode);
  checkIterations(iterations);
  const prf = rest.find((node) => node.tag === DER_TAGS.sequence);
  if (prf && readObjectIdentifier(readChildren(prf)[0]) !== HMAC_SHA1_OID) {
    throw new DerError('PBKDF2 with a PRF other than HMAC-SHA1');
  }
  const [cipherOid, ivNode] = readChildren(scheme!);
  if (readObjectIdentifier(cipherOid) !== KEY_FILE_FORMATS.seedCbc) {
    throw new DerError('PBES2 with a cipher other than SEED-CBC');
  }
  const iv = expectTag(ivNode, DER_TAGS.octetString);
  return { key: pbkdf2Sync(password, salt, iterations, KEY_BYTES, 'sha1'), iv };
}

function cipherParameters(oid: string, parameters: Buffer, password: Buffer): CipherParameters {
  if (oid === KEY_FILE_FORMATS.seedCbcWithSha1) {
    return pbkdf1Parameters(parameters, password, false);
  }
  if (oid === KEY_FILE_FORMATS.seedCbc) return pbkdf1Parameters(parameters, password, true);
  if (oid === KEY_FILE_FORMATS.pbes2) return pbes2Parameters(parameters, password);
  throw new DerError(`unsupported key encryption algorithm ${oid}`);
}

// A PrivateKeyInfo is a SEQUENCE that starts with INTEGER 0; anything else after decryption
// means the password was wrong (domain facts §8.2: padding or parse failure = wrong password).
function looksLikePrivateKeyInfo(plaintext: Buffer): boolean {
  try {
    const [version, algorithm, key] = readChildren(readDer(plaintext));
    return readSmallInteger(version) === 0 && algorithm?.tag === DER_TAGS.sequence &&
      key?.tag === DER_TAGS.octetString;
  } catch {
    return false;
  }
}

// The password is hashed as its UTF-8 bytes, which is what every CA's software does for the
// ASCII passwords they allow.
export function decryptSigningKeyFile(file: Buffer, password: string): KeyFileResult {
  let parameters: CipherParameters;
  let encrypted: Buffer;
  try {
    const [algorithm, data] = readChildren(readDer(file));
    const [oidNode, parameterNode] = readChildren(algorithm!);
    const oid = readObjectIdentifier(oidNode);
    if (parameterNode === undefined) throw new DerError('missing algorithm parameters');
    const parameterDer = encodeDer(parameterNode.tag, parameterNode.value);
    parameters = cipherParameters(oid, parameterDer, Buffer.from(password, 'utf8'));
    encrypted = expectTag(data, DER_TAGS.octetString);
  } catch (error) {
    if (error instanceof DerError) return { kind: 'unsupportedFormat', reason: error.message };
    throw error;
  }
  try {
    const plaintext = seedCbcDecrypt(parameters.key, parameters.iv, encrypted);
    if (!looksLikePrivateKeyInfo(plaintext)) return { kind: 'wrongPassword' };
    return { kind: 'decrypted', pkcs8: plaintext };
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

// Writes a signPri.key the way a CA's software does. Used to build test certificates and by
// anyone who needs to hand a key file back to a business owner.
export function encryptSigningKeyFile(
  pkcs8: Buffer,
  password: string,
  options: EncryptKeyFileOptions,
): Buffer {
  const { format, salt, iterations } = options;
  const saltAndIterations = [encodeDer(DER_TAGS.octetString, salt), encodeSmallInteger(iterations)];
  const parameters = format === 'pbes2'
    ? encodeSequence(
      encodeSequence(encodeObjectIdentifier(PBKDF2_OID), encodeSequence(...saltAndIterations)),
      encodeSequence(
        encodeObjectIdentifier(KEY_FILE_FORMATS.seedCbc),
        encodeDer(DER_TAGS.octetString, options.iv ?? Buffer.alloc(16)),
      ),
    )
    : encodeSequence(...saltAndIterations);
  const oid = KEY_FILE_FORMATS[format];
  const { key, iv } = cipherParameters(oid, parameters, Buffer.from(password, 'utf8'));
  const algorithm = encodeSequence(encodeObjectIdentifier(oid), parameters);
  const encrypted = seedCbcEncrypt(key, iv, pkcs8);
  return encodeSequence(algorithm, encodeDer(DER_TAGS.octetString, encrypted));
}
