import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
} from 'node:crypto';

// AES-256-GCM for secrets at rest (joint certificate private keys, uploads waiting for their
// registration job, webhook signing secrets). A box is `v1.<iv>.<tag>.<ciphertext>` in base64url.
// The context (e.g. the row's id) is bound as associated data, so a box copied to another row
// does not open.
//
// The same key also gives keyed digests (HMAC-SHA256 under a key derived from it with HKDF): for
// a personal number that must be found or kept unique by equality (a bank account number) but
// not stored in clear. A plain hash of a number with so few digits is reversed by trying them
// all; a keyed one needs the key. A digest is `d1.<base64url>`, and names its purpose, so equal
// values of different kinds give different digests.

export const SEALING_KEY_BYTES = 32;
const IV_BYTES = 12;
const VERSION = 'v1';

export class SealedBoxError extends Error {}

export type SealingKey = { seal(plaintext: Buffer, context: string): string;
  open(box: string, context: string): Buffer;
  // The keyed digest of `value` for `purpose` under the current key.
  digest(value: string, purpose: string): string;
  // The digests under every configured key, the current key's first: what a lookup by equality
  // matches until `etax reseal` has written every digest again with the current key.
  digests(value: string, purpose: string): string[];
  // A key of its own for `purpose`, derived from this one (and from each key it replaced) with
  // HKDF: what it seals opens with no other purpose's key, nor with the secrets' own key.
  derived(purpose: string): SealingKey };

const DIGEST_VERSION = 'd1';

function deriveKey(key: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `etax derived key v1: ${purpose}`,
    SEALING_KEY_BYTES));
}

function digester(key: Buffer) {
  const digestKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0),
    'etax keyed digest v1', SEALING_KEY_BYTES));
  return (value: string, purpose: string) => `${DIGEST_VERSION}.${createHmac('sha256', digestKey)
    .update(purpose).update('\u0000').update(value).digest('base64url')}`;
}

export function createSealingKey(key: Buffer): SealingKey {
  if (key.length !== SEALING_KEY_BYTES) throw new RangeError('a sealing key has 32 bytes');
  const digest = digester(key);
  return {
    digest,
    digests: (value, purpose) => [digest(value, purpose)],
    derived: (purpose) => createSealingKey(deriveKey(key, purpose)),
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'));
      return [VERSION, ...parts].join('.');
    },
    open(box, context) {
      const [version, iv, tag, ciphertext] = box.split('.');
      const parts = [iv, tag, ciphertext];
      if (version !== VERSION || parts.some((part) => part === undefined) ||
        box.split('.').length !== 4) {
        throw new SealedBoxError('not a sealed box');
      }
      try {
        // The whole 16-byte tag, never a shorter one: GCM would otherwise accept a tag cut to
        // 4 bytes, which a forger can guess.
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv!, 'base64url'),
          { authTagLength: 16 });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag!, 'base64url'));
        const encrypted = Buffer.from(ciphertext!, 'base64url');
        return Buffer.concat([decipher.update(encrypted), decipher.final()]);
      } catch {
        throw new SealedBoxError('the box does not open with this key and context');
      }
    },
  };
}

// The current key and the keys it replaced: seals with the current key and opens a box with
// whichever key sealed it, so that secrets sealed before a key rotation stay readable until they
// are sealed again with the current key. GCM's tag tells a wrong key apart from the right one.
export function createSealingKeyring(current: Buffer, previous: readonly Buffer[]): SealingKey {
  const [sealer, ...openers] = [current, ...previous].map(createSealingKey);
  return {
    seal: (plaintext, context) => sealer!.seal(plaintext, context),
    derived: (purpose) => createSealingKeyring(deriveKey(current, purpose),
      previous.map((key) => deriveKey(key, purpose))),
    digest: (value, purpose) => sealer!.digest(value, purpose),
    digests: (value, purpose) => [...new Set([sealer!, ...openers].map((key) =>
      key.digest(value, purpose)))],
    open(box, context) {
      for (const key of [sealer!, ...openers]) {
        try {
          return key.open(box, context);
        } catch (error) {
          if (!(error instanceof SealedBoxError)) throw error;
        }
      }
      throw new SealedBoxError('the box does not open with any configured key and this context');
    },
  };
}
