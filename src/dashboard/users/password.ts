import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Passwords are kept as scrypt hashes (node:crypto), never in clear and never logged. The
// stored text names its parameters, so they can be raised later and old hashes still verify:
// `scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>`.

// N = 2^15, r = 8, p = 1: 32 MiB and some 50–100 ms of one core per hash, the cost a sign-in
// pays once and a stolen table pays per guess.
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
// scrypt needs 128 · N · r bytes; Node's default ceiling (32 MiB) is just short of it.
const MEMORY_MAX_BYTES = 64 * 1024 * 1024;

const PASSWORD_LENGTH_MIN = 10;
// Long enough for any passphrase, short enough that hashing cannot be made expensive.
const PASSWORD_LENGTH_MAX = 200;
// 18 random bytes are 24 base64url characters: generated passwords, printed once.
const GENERATED_PASSWORD_BYTES = 18;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, HASH_BYTES, { ...options, maxmem: MEMORY_MAX_BYTES },
      (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'),
    hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'),
    { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// A hash no password matches, verified when the email is unknown so that a sign-in takes as
// long whether the email exists or not.
let decoyHash: Promise<string> | null = null;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(randomBytes(GENERATED_PASSWORD_BYTES).toString('base64url'));
  return decoyHash;
}

export function generatePassword(): string {
  return randomBytes(GENERATED_PASSWORD_BYTES).toString('base64url');
}

// Why a chosen password is refused, or null.
export function passwordProblem(password: string): 'tooShort' | 'tooLong' | null {
  if (password.length < PASSWORD_LENGTH_MIN) return 'tooShort';
  if (password.length > PASSWORD_LENGTH_MAX) return 'tooLong';
  return null;
}
