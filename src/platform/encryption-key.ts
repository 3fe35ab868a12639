import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import {
  createSealingKeyring,
  SEALING_KEY_BYTES,
  type SealingKey,
} from '../domain/sealed-box.ts';

// The key that seals secrets at rest: certificate private keys and uploads (docs/issuers.md
// § Keys at rest) and webhook signing secrets (docs/webhooks.md). A configured
// ENCRYPTION_KEY wins. Otherwise the key lives in DATA_DIR next to the embedded
// database, generated once: a fresh install works without setup, and its sealed data stays
// readable across restarts. A shared PostgreSQL needs the same key in every process, which only
// configuration can give, so that case is warned about at start. After a rotation the keys it
// replaced (ENCRYPTION_PREVIOUS_KEYS) still open what they sealed, until `etax
// reseal` has sealed everything again with the current key (docs/operations.md § Rotating the
// encryption key).

export const GENERATED_KEY_FILE = 'certificate-encryption.key';

type KeyOptions = { configured?: string; dataDir: string; sharedDatabase: boolean; log: Logger };

function decodeKey(text: string, setting: string): Buffer {
  const key = Buffer.from(text, 'base64');
  if (key.length !== SEALING_KEY_BYTES) throw new Error(`${setting} must be 32 bytes in base64`);
  return key;
}

export async function loadCertificateEncryptionKey(options: KeyOptions): Promise<Buffer> {
  if (options.configured !== undefined) {
    return decodeKey(options.configured, 'ENCRYPTION_KEY');
  }
  if (options.sharedDatabase) {
    options.log.warn('ENCRYPTION_KEY is not set: using a key generated in DATA_DIR; ' +
      'other processes on the same database cannot open what this one seals');
  }
  const file = path.join(options.dataDir, GENERATED_KEY_FILE);
  await mkdir(options.dataDir, { recursive: true });
  // The key is written whole to a file of this process's own, then linked under its name. A
  // link never replaces a file, so two processes starting together keep one key, and neither
  // can read the other's file half written (as it could with a write straight to the name).
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(draft, randomBytes(SEALING_KEY_BYTES).toString('base64'),
    { flag: 'wx', mode: 0o600 });
  try {
    await link(draft, file);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  } finally {
    await unlink(draft);
  }
  const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  if (key.length !== SEALING_KEY_BYTES) throw new Error(`${file} does not hold a 32-byte key`);
  return key;
}

// The sealing key of this process: the current key, and the keys it replaced, comma-separated.
export async function loadSealingKey(
  options: KeyOptions & { previous?: string },
): Promise<SealingKey> {
  const current = await loadCertificateEncryptionKey(options);
  const previous = (options.previous ?? '').split(',').filter((text) => text.length > 0)
    .map((text) => decodeKey(text, 'every key of ENCRYPTION_PREVIOUS_KEYS'));
  return createSealingKeyring(current, previous);
}
