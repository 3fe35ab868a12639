import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

// Every test file gets a database of its own: a fresh PostgreSQL database on DATABASE_URL when it
// is set, otherwise an embedded PGlite data directory in a temporary folder. The database starts
// as a copy of a template that `etax migrate` prepared once for the whole run
// (test/helpers/global-setup.ts), so each file skips the migrations and, embedded, initdb. Tests
// of what a new database goes through (migrations racing, a first start) ask for an empty one.

export type TestDatabase = {
  env: { DATABASE_URL?: string; DATA_DIR: string };
  drop(): Promise<void>;
};

export type TestDatabaseOptions = {
  // True for a database with nothing in it, not even the migrations.
  empty?: boolean;
};

export const usingPostgres = Boolean(process.env.DATABASE_URL);

// Set by the global setup: a migrated PGlite data directory, or a migrated PostgreSQL database
// on DATABASE_URL's server. Without them (a file run outside the projects' global setup) every
// database starts empty and the app migrates it.
export const TEMPLATE_DATA_DIR_VARIABLE = 'ETAX_TEST_TEMPLATE_DATA_DIR';
export const TEMPLATE_DATABASE_VARIABLE = 'ETAX_TEST_TEMPLATE_DATABASE';

// PostgreSQL refuses to copy a template while another session is connected to it; a copy that
// another worker makes at the same moment can count as one. A few tries ride that out.
const TEMPLATE_COPY_ATTEMPTS_MAX = 5;
const TEMPLATE_COPY_RETRY_MS = 200;

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export function temporaryDataDir(prefix = 'etx-'): string {
  // Short: the embedded socket path DATA_DIR/.s.PGSQL.5432 must stay under the Unix limit.
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

// Runs one statement on the server of `baseUrl` in a connection of its own.
export async function adminQuery(baseUrl: string, text: string): Promise<void> {
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

async function createPostgresDatabase(baseUrl: string, name: string, template?: string) {
  if (template === undefined) {
    await adminQuery(baseUrl, `create database ${name}`);
    return;
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      await adminQuery(baseUrl, `create database ${name} template ${template}`);
      return;
    } catch (error) {
      const busy = /is being accessed by other users/.test(String(error));
      if (!busy || attempt >= TEMPLATE_COPY_ATTEMPTS_MAX) throw error;
      await new Promise((resolve) => setTimeout(resolve, TEMPLATE_COPY_RETRY_MS * attempt));
    }
  }
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const dataDir = temporaryDataDir();
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    const template = options.empty ? undefined : process.env[TEMPLATE_DATA_DIR_VARIABLE];
    if (template) cpSync(template, dataDir, { recursive: true });
    return {
      env: { DATA_DIR: dataDir },
      async drop() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `etax_test_${randomBytes(6).toString('hex')}`;
  const template = options.empty ? undefined : process.env[TEMPLATE_DATABASE_VARIABLE];
  await createPostgresDatabase(baseUrl, name, template || undefined);
  return {
    env: { DATABASE_URL: withDatabaseName(baseUrl, name), DATA_DIR: dataDir },
    async drop() {
      await adminQuery(baseUrl, `drop database if exists ${name} with (force)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
