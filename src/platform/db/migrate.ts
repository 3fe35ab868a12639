import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';
import { ADVISORY_LOCKS, withAdvisoryLock } from './advisory-lock.ts';

export const MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../drizzle',
);

// Runs the committed migrations. Several server processes may start at once against one
// PostgreSQL; the advisory lock makes them take turns, so each migration runs exactly once.
export async function runMigrations(pool: pg.Pool): Promise<void> {
  await withAdvisoryLock(pool, ADVISORY_LOCKS.migrations, async (client) => {
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
  });
  // A start-up phase (src/cli/startup-phases.ts); a mark costs microseconds.
  performance.mark('etax:migrations', { detail: process.memoryUsage.rss() });
}

// True when every committed migration has been applied (used by /readyz).
export async function migrationsApplied(pool: pg.Pool, expectedCount: number): Promise<boolean> {
  const result = await pool.query<{ count: number }>(
    'select count(*)::int as count from drizzle.__drizzle_migrations',
  );
  return (result.rows[0]?.count ?? 0) >= expectedCount;
}

// The number of migrations committed in drizzle/, read from drizzle-kit's journal.
export async function committedMigrationCount(): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const journalFile = path.join(MIGRATIONS_DIR, 'meta/_journal.json');
  const journal = JSON.parse(await readFile(journalFile, 'utf8'));
  return (journal.entries as unknown[]).length;
}
