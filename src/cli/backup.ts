import type { Config } from '../config.ts';
import {
  backupDataDir, BackupError, restoreDataDir, type BackupManifest,
} from '../platform/db/embedded-backup.ts';
import { CliError, printResult } from './output.ts';

// `etax backup --out FILE` and `etax restore FILE`: the embedded database of DATA_DIR, with the key
// it seals secrets with when etax generated it there (docs/operations.md § Backups and restore). A
// PostgreSQL deployment is backed up with PostgreSQL's own tools.

function embeddedOnly(config: Config, command: string): void {
  if (config.DATABASE_URL !== undefined) {
    throw new CliError(`etax ${command} is for the embedded database in DATA_DIR; with ` +
      'DATABASE_URL set, use PostgreSQL\'s own backups (pg_basebackup and WAL archiving, ' +
      'docs/operations.md)');
  }
}

function summary(manifest: BackupManifest) {
  return {
    createdAt: manifest.createdAt,
    migrations: manifest.migrations,
    files: manifest.files,
    bytes: manifest.bytes,
    sealingKey: manifest.sealingKey,
  };
}

function keyLine(manifest: BackupManifest): string {
  const { fingerprint, source, included } = manifest.sealingKey;
  if (fingerprint === null) return 'no encryption key';
  if (included && source === 'DATA_DIR') {
    return `the generated encryption key (fingerprint ${fingerprint}) is included`;
  }
  return `secrets are sealed with ENCRYPTION_KEY (fingerprint ${fingerprint}), ` +
    'which is not included: keep it apart from the backup';
}

async function asCliErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BackupError) throw new CliError(error.message);
    throw error;
  }
}

export async function backup(config: Config, options: { out: string; json?: boolean }) {
  embeddedOnly(config, 'backup');
  const manifest = await asCliErrors(() => backupDataDir({
    dataDir: config.DATA_DIR,
    out: options.out,
    configuredKey: config.ENCRYPTION_KEY,
    waitMs: config.DATABASE_CONNECT_TIMEOUT_SECONDS * 1000,
  }));
  printResult(Boolean(options.json), { file: options.out, ...summary(manifest) }, [
    `backed up ${config.DATA_DIR} to ${options.out}: ${manifest.files} files, ` +
      `${manifest.bytes} bytes, ${manifest.migrations} migrations`,
    keyLine(manifest),
  ].join('\n'));
}

export async function restore(config: Config, file: string, options: { json?: boolean }) {
  embeddedOnly(config, 'restore');
  const manifest = await asCliErrors(() => restoreDataDir({
    dataDir: config.DATA_DIR,
    file,
    configuredKey: config.ENCRYPTION_KEY,
    previousKeys: config.ENCRYPTION_PREVIOUS_KEYS,
    waitMs: config.DATABASE_CONNECT_TIMEOUT_SECONDS * 1000,
  }));
  printResult(Boolean(options.json), { dataDir: config.DATA_DIR, ...summary(manifest) }, [
    `restored ${config.DATA_DIR} from ${file}, backed up at ${manifest.createdAt} ` +
      `(${manifest.migrations} migrations; etax serve applies newer ones at its start)`,
    keyLine(manifest),
  ].join('\n'));
}
