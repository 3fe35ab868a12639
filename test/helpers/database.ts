import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

// Every test file gets a database of its own: a fresh PostgreSQL database on DATABASE_URL when it
// is set, otherwise an embedded PGlite data directory in a temporary folder.

export type TestDatabase = {
  env: { DATABASE_URL?: string; DATA_DIR: string };
  drop(): Promise<void>;
};

export const usingPostgres = Boolean(process.env.DATABASE_URL);

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export async function createTestDatabase(): Promise<TestDatabase> {
  // Short: the embedded socket path must stay under the Unix limit.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'etx-'));
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    return {
      env: { DATA_DIR: dataDir },
      async drop() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `etax_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    env: { DATABASE_URL: withDatabaseName(baseUrl, name), DATA_DIR: dataDir },
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
