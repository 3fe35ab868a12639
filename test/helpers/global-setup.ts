import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  adminQuery,
  TEMPLATE_DATABASE_VARIABLE,
  TEMPLATE_DATA_DIR_VARIABLE,
  temporaryDataDir,
  withDatabaseName,
} from './database.ts';

// Vitest global setup of the projects that open databases: `etax migrate` runs once, on a
// template in the current mode (a PGlite data directory, or a PostgreSQL database on
// DATABASE_URL's server), and createTestDatabase copies it for each test file. Migrating costs
// seconds per database, and initdb of a new embedded database several more; copying costs a
// fraction of that. The template's location reaches the test workers through the environment,
// which they inherit. When several projects of one run use this setup, the first makes the
// template and the others reuse it; the first also removes it when the run ends.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'bin/etax.js');
// initdb and the migrations of a new embedded database take a few seconds, more on a busy
// machine; this bounds a hang.
const MIGRATE_TIMEOUT_MS = 120_000;

const runFile = promisify(execFile);

async function migrate(settings: Record<string, string>): Promise<void> {
  // Only the database settings: a developer's shell cannot change the template.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME,
    LOG_LEVEL: 'warn', ...settings };
  await runFile(process.execPath, [CLI, 'migrate'], { cwd: ROOT, env,
    timeout: MIGRATE_TIMEOUT_MS });
}

async function createEmbeddedTemplate(): Promise<() => Promise<void>> {
  const dataDir = temporaryDataDir('etxt-');
  await migrate({ DATA_DIR: dataDir });
  process.env[TEMPLATE_DATA_DIR_VARIABLE] = dataDir;
  return async () => {
    rmSync(dataDir, { recursive: true, force: true });
  };
}

async function createPostgresTemplate(baseUrl: string): Promise<() => Promise<void>> {
  const name = `etax_template_${randomBytes(6).toString('hex')}`;
  const dataDir = temporaryDataDir('etxt-');
  await adminQuery(baseUrl, `create database ${name}`);
  await migrate({ DATABASE_URL: withDatabaseName(baseUrl, name), DATA_DIR: dataDir });
  rmSync(dataDir, { recursive: true, force: true });
  process.env[TEMPLATE_DATABASE_VARIABLE] = name;
  return async () => {
    await adminQuery(baseUrl, `drop database if exists ${name} with (force)`);
  };
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const baseUrl = process.env.DATABASE_URL;
  const variable = baseUrl ? TEMPLATE_DATABASE_VARIABLE : TEMPLATE_DATA_DIR_VARIABLE;
  if (process.env[variable]) return undefined;
  const teardown = baseUrl ? await createPostgresTemplate(baseUrl) : await createEmbeddedTemplate();
  return async () => {
    delete process.env[variable];
    await teardown();
  };
}
