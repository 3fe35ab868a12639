// SEED, the Korean 128-bit block cipher of RFC 4269, in pure TypeScript. Joint certificate
// private keys (signPri.key) are encrypted with SEED-CBC, and Node's OpenSSL 3 offers SEED only
// behind the legacy provider, which distributions may leave out.
// The S-boxes are computed from their algebraic definition in RFC 4269 Appendix A rather than
// written out as 1,024 constants; test/domain/seed.test.ts checks the result against the RFC's
// test vectors. This is data and arithmetic: it imports nothing from the rest of the code.

export const SEED_BLOCK_BYTES = 16;
const SEED_KEY_BYTES = 16;
const ROUND_COUNT = 16;

// GF(2^8) with the RFC's reduction polynomial x^8 + x^6 + x^5 + x + 1.
const FIELD_POLYNOMIAL = 0x163;

function fieldMultiply(left: number, right: number): number {
  let product = 0;
  let a = left;
  for (let b = right; b !== 0; b >>>= 1) {
    if (b & 1) product ^= a;
    a <<= 1;
    if (a & 0x100) a ^= FIELD_POLYNOMIAL;
  }
  return product;
}

function fieldPower(base: number, exponent: number): number {
  let result = 1;
  let square = base;
  for (let e = exponent; e !== 0; e >>>= 1) {
    if (e & 1) result = fieldMultiply(result, square);
    square = fieldMultiply(square, square);
  }
  return result;
}

// S(x) = A · x^exponent ⊕ constant (RFC 4269 Appendix A). Each matrix is given by its columns:
// column j is A applied to the unit vector with bit j set.
type SboxDefinition = { columns: readonly number[]; exponent: number; constant: number };
const S1_DEFINITION: SboxDefinition = {
  columns: [0x2c, 0xd0, 0x69, 0xc2, 0x41, 0x44, 0x58, 0xe2],
  exponent: 247,
  constant: 169,
};
const S2_DEFINITION: SboxDefinition = {
  columns: [0xd0, 0x2a, 0xe1, 0x2c, 0x21, 0x30, 0xa2, 0x6c],
  exponent: 251,
  constant: 56,
};

function buildSbox({ columns, exponent, constant }: SboxDefinition): Uint8Array {
  const sbox = new Uint8Array(256);
  for (let x = 0; x < 256; x += 1) {
    const power = x === 0 ? 0 : fieldPower(x, exponent);
    let value = constant;
    for (let bit = 0; bit < 8; bit += 1) {
      if ((power >>> bit) & 1) value ^= columns[bit]!;
    }
    sbox[x] = value;
  }
  return sbox;
}

// The masks of the G function: byte k of G's output takes these bits of each S-box output.
const MASKS = [0xfc, 0xf3, 0xcf, 0x3f] as const;

// SS0..SS3 of the RFC: G(X) = SS3[X3] ^ SS2[X2] ^ SS1[X1] ^ SS0[X0], X0 the lowest byte.
function buildGTables(): Uint32Array[] {
  const s1 = buildSbox(S1_DEFINITION);
  const s2 = buildSbox(S2_DEFINITION);
  const tables: Uint32Array[] = [];
  for (let position = 0; position < 4; position += 1) {
    const sbox = position % 2 === 0 ? s1 : s2;
    const table = new Uint32Array(256);
    for (let x = 0; x < 256; x += 1) {
      let word = 0;
      for (let byte = 0; byte < 4; byte += 1) {
        word |= (sbox[x]! & MASKS[(position + byte) % 4]!) << (8 * byte);
      }
      table[x] = word >>> 0;
    }
    tables.push(table);
  }
  return tables;
}

const [SS0, SS1, SS2, SS3] = buildGTables() as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];

function g(x: number): number {
  return (SS0[x & 0xff]! ^ SS1[(x >>> 8) & 0xff]! ^ SS2[(x >>> 16) & 0xff]!
    ^ SS3[x >>> 24]!) >>> 0;
}

// KC_i = the golden-ratio constant 0x9e3779b9 rotated left by i.
function roundConstant(round: number): number {
  const golden = 0x9e3779b9;
  return round === 0 ? golden : ((golden << round) | (golden >>> (32 - round))) >>> 0;
}

// The 32 round-key words of a 16-byte key (RFC 4269 §2.2).
function expandSeedKey(key: Uint8Array): Uint32Array {
  if (key.length !== SEED_KEY_BYTES) throw new RangeError('a SEED key has 16 bytes');
  const view = new DataView(key.buffer, key.byteOffset, key.byteLength);
  let a = view.getUint32(0);
  let b = view.getUint32(4);
  let c = view.getUint32(8);
  let d = view.getUint32(12);
  const roundKeys = new Uint32Array(2 * ROUND_COUNT);
  for (let round = 0; round < ROUND_COUNT; round += 1) {
    const kc = roundConstant(round);
    roundKeys[2 * round] = g((a + c - kc) >>> 0);
    roundKeys[2 * round + 1] = g((b - d + kc) >>> 0);
    if (round % 2 === 0) {
      // A‖B rotated right by 8 bits.
      const low = a & 0xff;
      a = ((a >>> 8) | ((b & 0xff) << 24)) >>> 0;
      b = ((b >>> 8) | (low << 24)) >>> 0;
    } else {
      // C‖D rotated left by 8 bits.
      const high = c >>> 24;
      c = ((c << 8) | (d >>> 24)) >>> 0;
      d = ((d << 8) | high) >>> 0;
    }
  }
  return roundKeys;
}

// The round function F applied to the right half (r0‖r1) with round key (k0, k1).
function roundFunction(r0: number, r1: number, k0: number, k1: number): [number, number] {
  let t0 = (r0 ^ k0) >>> 0;
  let t1 = (r1 ^ k1) >>> 0;
  t1 = g((t1 ^ t0) >>> 0);
  t0 = g((t0 + t1) >>> 0);
  t1 = g((t1 + t0) >>> 0);
  t0 = (t0 + t1) >>> 0;
  return [t0, t1];
}

// Encrypts or decrypts one block; decryption runs the round keys backwards.
function processBlock(roundKeys: Uint32Array, input: Uint8Array, decrypt: boolean): Uint8Array {
  const view = new DataView(input.buffer, input.byteOffset, SEED_BLOCK_BYTES);
  let l0 = view.getUint32(0);
  let l1 = view.getUint32(4);
  let r0 = view.getUint32(8);
  let r1 = view.getUint32(12);
  for (let step = 0; step < ROUND_COUNT; step += 1) {
    const round = decrypt ? ROUND_COUNT - 1 - step : step;
    const [f0, f1] = roundFunction(r0, r1, roundKeys[2 * round]!, roundKeys[2 * round + 1]!);
    const nextR0 = (l0 ^ f0) >>> 0;
    const nextR1 = (l1 ^ f1) >>> 0;
    l0 = r0;
    l1 = r1;
    r0 = nextR0;
    r1 = nextR1;
  }
  // The last round does not swap the halves.
  const output = new Uint8Array(SEED_BLOCK_BYTES);
  const out = new DataView(output.buffer);
  out.setUint32(0, r0);
  out.setUint32(4, r1);
  out.setUint32(8, l0);
  out.setUint32(12, l1);
  return output;
}

export function seedEncryptBlock(key: Uint8Array, block: Uint8Array): Uint8Array {
  return processBlock(expandSeedKey(key), block, false);
}

export function seedDecryptBlock(key: Uint8Array, block: Uint8Array): Uint8Array {
  return processBlock(expandSeedKey(key), block, true);
}

export class SeedPaddingError extends Error {}

// SEED-CBC with PKCS#7 padding, the mode joint certificate keys use.
export function seedCbcEncrypt(key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array): Buffer {
  if (iv.length !== SEED_BLOCK_BYTES) throw new RangeError('a SEED-CBC IV has 16 bytes');
  const roundKeys = expandSeedKey(key);
  const padLength = SEED_BLOCK_BYTES - (plaintext.length % SEED_BLOCK_BYTES);
  const padded = Buffer.concat([plaintext, Buffer.alloc(padLength, padLength)]);
  const output = Buffer.alloc(padded.length);
  let previous: Uint8Array = iv;
  for (let offset = 0; offset < padded.length; offset += SEED_BLOCK_BYTES) {
    const block = new Uint8Array(SEED_BLOCK_BYTES);
    for (let i = 0; i < SEED_BLOCK_BYTES; i += 1) block[i] = padded[offset + i]! ^ previous[i]!;
    previous = processBlock(roundKeys, block, false);
    output.set(previous, offset);
  }
  return output;
}

// Throws SeedPaddingError when the ciphertext is not whole blocks or the padding is wrong,
// which is how a wrong password usually shows.
export function seedCbcDecrypt(key: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array): Buffer {
  if (iv.length !== SEED_BLOCK_BYTES) throw new RangeError('a SEED-CBC IV has 16 bytes');
  if (ciphertext.length === 0 || ciphertext.length % SEED_BLOCK_BYTES !== 0) {
    throw new SeedPaddingError('the ciphertext is not a whole number of blocks');
  }
  const roundKeys = expandSeedKey(key);
  const output = Buffer.alloc(ciphertext.length);
  let previous: Uint8Array = iv;
  for (let offset = 0; offset < ciphertext.length; offset += SEED_BLOCK_BYTES) {
    const block = ciphertext.subarray(offset, offset + SEED_BLOCK_BYTES);
    const decrypted = processBlock(roundKeys, block, true);
    for (let i = 0; i < SEED_BLOCK_BYTES; i += 1) output[offset + i] = decrypted[i]! ^ previous[i]!;
    previous = block;
  }
  const padLength = output[output.length - 1]!;
  if (padLength < 1 || padLength > SEED_BLOCK_BYTES) throw new SeedPaddingError('bad padding');
  for (let i = output.length - padLength; i < output.length; i += 1) {
    if (output[i] !== padLength) throw new SeedPaddingError('bad padding');
  }
  return output.subarray(0, output.length - padLength);
}
