import { createHash, randomBytes } from 'node:crypto';

export const ENVIRONMENTS = ['test', 'live'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const PLANS = ['FREE', 'STANDARD', 'PREMIUM'] as const;
export type Plan = (typeof PLANS)[number];

// 32 random bytes (256 bits) per key; base64url keeps keys copy-paste safe.
const KEY_RANDOM_BYTES = 32;
// The prefix plus 43 base64url characters; longer strings cannot be keys and are not hashed.
const KEY_LENGTH_MAX = 64;
const KEY_PATTERN = /^(test|live)_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(environment: Environment): string {
  return `${environment}_${randomBytes(KEY_RANDOM_BYTES).toString('base64url')}`;
}

// Keys carry 256 bits of entropy, so a fast hash is enough: nobody can brute-force the input.
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function redactApiKey(key: string): string {
  return `${key.slice(0, 9)}…${key.slice(-4)}`;
}

export function looksLikeApiKey(key: string): boolean {
  return key.length <= KEY_LENGTH_MAX && KEY_PATTERN.test(key);
}

