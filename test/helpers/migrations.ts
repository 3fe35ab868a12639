import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, usingPostgres, type TestDatabase } from './database.ts';

// The committed migrations, and the folder as an earlier release had it: for the tests that
// upgrade a database written by that release.

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)),
  '../../drizzle');

// A copy of the migrations folder whose journal ends just before the migration `tag`; the caller
// removes it. Throws when `tag` is not a migration after the first.
function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'etax-migrations-'));
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as
    { entries: Array<{ tag: string }> };
  const cut = journal.entries.findIndex((entry) => entry.tag === tag);
  if (cut < 1) throw new Error(`no migration ${tag} after the first`);
  journal.entries = journal.entries.slice(0, cut);
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

// An empty PostgreSQL database for the tests of one file that upgrade it across the migration
// `tag`: filled before the first test (only on PostgreSQL), dropped after the last.
export type UpgradedDatabase = {
  database: TestDatabase;
  // Two connections, for writing rows as an earlier release wrote them and reading the result.
  pool: pg.Pool;
  // The migrations folder as the release before `tag` had it.
  earlierDir: string;
  // Applies the migrations of a folder on one connection of the pool.
  migrate(migrationsFolder: string): Promise<void>;
};

export function useDatabaseToUpgrade(tag: string): UpgradedDatabase {
  const upgraded = {
    async migrate(migrationsFolder: string) {
      const client = await upgraded.pool.connect();
      try {
        await migrate(drizzle(client), { migrationsFolder });
      } finally {
        client.release();
      }
    },
  } as UpgradedDatabase;
  beforeAll(async () => {
    if (!usingPostgres) return;
    upgraded.database = await createTestDatabase({ empty: true });
    upgraded.pool = new pg.Pool({ connectionString: upgraded.database.env.DATABASE_URL, max: 2 });
    upgraded.earlierDir = migrationsBefore(tag);
  }, 60_000);
  afterAll(async () => {
    await upgraded.pool?.end();
    await upgraded.database?.drop();
    if (upgraded.earlierDir) rmSync(upgraded.earlierDir, { recursive: true, force: true });
  });
  return upgraded;
}
