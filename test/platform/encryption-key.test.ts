// The key that seals secrets at rest (docs/issuers.md § Keys at rest): a configured
// ENCRYPTION_KEY wins; otherwise one key is generated into DATA_DIR once, readable
// only by its owner, and reused by every later start. A sealed box opens only with its key and
// its context, so a box copied to another row or read with another key fails loudly. After a
// rotation the keyring seals with the new key and still opens what the previous keys sealed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createSealingKey,
  createSealingKeyring,
  SealedBoxError,
} from '../../src/domain/sealed-box.ts';
import {
  GENERATED_KEY_FILE,
  loadCertificateEncryptionKey,
  loadSealingKey,
} from '../../src/platform/encryption-key.ts';

const log = pino({ level: 'silent' });
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'etx-key-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('loadCertificateEncryptionKey', () => {
  it('generates one key into DATA_DIR with mode 0600 and returns the same key again', async () => {
    const options = { dataDir, sharedDatabase: false, log };
    const first = await loadCertificateEncryptionKey(options);
    const second = await loadCertificateEncryptionKey(options);
    expect(first).toHaveLength(32);
    expect(second).toEqual(first);
    expect(statSync(path.join(dataDir, GENERATED_KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('keeps one key when many starts race for an empty DATA_DIR, and leaves no drafts',
    async () => {
      const raceDir = mkdtempSync(path.join(os.tmpdir(), 'etx-key-race-'));
      try {
        const options = { dataDir: raceDir, sharedDatabase: true, log };
        const keys = await Promise.all(
          Array.from({ length: 20 }, () => loadCertificateEncryptionKey(options)));
        expect(new Set(keys.map((key) => key.toString('base64'))).size).toBe(1);
        expect(readdirSync(raceDir)).toEqual([GENERATED_KEY_FILE]);
      } finally {
        rmSync(raceDir, { recursive: true, force: true });
      }
    });

  it('uses the configured key and ignores the file', async () => {
    const configured = randomBytes(32);
    const key = await loadCertificateEncryptionKey({ configured: configured.toString('base64'),
      dataDir, sharedDatabase: true, log });
    expect(key).toEqual(configured);
  });

  it('refuses a configured key that is not 32 bytes', async () => {
    await expect(loadCertificateEncryptionKey({ configured: randomBytes(16).toString('base64'),
      dataDir, sharedDatabase: false, log })).rejects.toThrow(/32 bytes/);
  });
});

describe('sealed boxes', () => {
  const sealing = createSealingKey(randomBytes(32));
  const secret = Buffer.from('private key bytes');

  it('opens with the same key and context, and never holds the plaintext', () => {
    const box = sealing.seal(secret, 'iss_1');
    expect(box).toMatch(/^v1\./);
    expect(Buffer.from(box).includes(secret)).toBe(false);
    expect(sealing.open(box, 'iss_1')).toEqual(secret);
    expect(sealing.seal(secret, 'iss_1')).not.toBe(box);
  });

  it('refuses another context, another key, a tampered box and garbage', () => {
    const box = sealing.seal(secret, 'iss_1');
    const tampered = flipFirstCiphertextByte(box);
    expect(() => sealing.open(box, 'iss_2')).toThrow(SealedBoxError);
    expect(() => createSealingKey(randomBytes(32)).open(box, 'iss_1')).toThrow(SealedBoxError);
    expect(() => sealing.open(tampered, 'iss_1')).toThrow(SealedBoxError);
    expect(() => sealing.open('not a box', 'iss_1')).toThrow(SealedBoxError);
  });
});

describe('after a rotation', () => {
  const [oldKey, olderKey, newKey] = [randomBytes(32), randomBytes(32), randomBytes(32)];
  const secret = Buffer.from('webhook secret');

  it('seals with the current key and opens what any previous key sealed', () => {
    const keyring = createSealingKeyring(newKey, [oldKey, olderKey]);
    for (const key of [oldKey, olderKey, newKey]) {
      expect(keyring.open(createSealingKey(key).seal(secret, 'whe_1'), 'whe_1')).toEqual(secret);
    }
    const box = keyring.seal(secret, 'whe_1');
    expect(createSealingKey(newKey).open(box, 'whe_1')).toEqual(secret);
    expect(() => createSealingKey(oldKey).open(box, 'whe_1')).toThrow(SealedBoxError);
  });

  it('refuses a box of a key it does not hold, and another context', () => {
    const keyring = createSealingKeyring(newKey, [oldKey]);
    expect(() => keyring.open(createSealingKey(olderKey).seal(secret, 'whe_1'), 'whe_1'))
      .toThrow(SealedBoxError);
    expect(() => keyring.open(createSealingKey(oldKey).seal(secret, 'whe_1'), 'whe_2'))
      .toThrow(SealedBoxError);
  });

  it('loads the configured key and the previous keys', async () => {
    const keyring = await loadSealingKey({ configured: newKey.toString('base64'),
      previous: [oldKey, olderKey].map((key) => key.toString('base64')).join(','),
      dataDir, sharedDatabase: true, log });
    expect(keyring.open(createSealingKey(olderKey).seal(secret, 'x'), 'x')).toEqual(secret);
    expect(createSealingKey(newKey).open(keyring.seal(secret, 'x'), 'x')).toEqual(secret);
    await expect(loadSealingKey({ configured: newKey.toString('base64'),
      previous: randomBytes(16).toString('base64'), dataDir, sharedDatabase: true, log }))
      .rejects.toThrow(/PREVIOUS_KEYS must be 32 bytes/);
  });
});

// Flips one bit of the ciphertext itself, so the box always differs from the sealed one (editing a
// base64url character can leave the bytes unchanged, or hit the one character already there).
function flipFirstCiphertextByte(box: string): string {
  const [version, iv, tag, ciphertext] = box.split('.');
  const bytes = Buffer.from(ciphertext!, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  return [version, iv, tag, bytes.toString('base64url')].join('.');
}
