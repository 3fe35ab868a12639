import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { SEALING_KEY_BYTES } from '../../domain/sealed-box.ts';

// The key that seals certificate private keys at rest (docs/issuers.md § Keys at rest). A
// configured CERTIFICATE_ENCRYPTION_KEY wins. Otherwise the key lives in DATA_DIR next to the
// embedded database, generated once: a fresh install works without setup, and its sealed data
// stays readable across restarts. A shared PostgreSQL needs the same key in every process, which
// only configuration can give, so that case is warned about at start.

export const GENERATED_KEY_FILE = 'certificate-encryption.key';

type KeyOptions = { configured?: string; dataDir: string; sharedDatabase: boolean; log: Logger };

export async function loadCertificateEncryptionKey(options: KeyOptions): Promise<Buffer> {
  if (options.configured !== undefined) {
    const key = Buffer.from(options.configured, 'base64');
    if (key.length !== SEALING_KEY_BYTES) {
      throw new Error('CERTIFICATE_ENCRYPTION_KEY must be 32 bytes in base64');
    }
    return key;
  }
  if (options.sharedDatabase) {
    options.log.warn('CERTIFICATE_ENCRYPTION_KEY is not set: using a key generated in DATA_DIR; ' +
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
