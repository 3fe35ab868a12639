import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';
import { ADVISORY_LOCKS, withAdvisoryLock } from './advisory-lock.ts';
import { markPhase } from '../startup-phases.ts';

const MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../drizzle',
);

// PostgreSQL's undefined_table and invalid_schema_name.
const MISSING_RELATION_CODES = new Set(['42P01', '3F000']);

type Journal = { entries: Array<{ when: number }> };

// Read once per process: the migrations and the readiness check both need it at start.
let journal: Promise<Journal> | undefined;

function readJournal(): Promise<Journal> {
  const journalFile = path.join(MIGRATIONS_DIR, 'meta/_journal.json');
  journal ??= readFile(journalFile, 'utf8').then((text) => JSON.parse(text) as Journal);
  return journal;
}

// Drizzle's migrator applies every committed migration whose journal time (`when`) is later
// than the newest `created_at` it recorded, all in one transaction. So when the newest recorded
// time is at least the journal's newest, nothing is pending: the same test, in one query,
// without the migrator's lock, DDL and reading and hashing of every migration file.
async function migrationsCurrent(pool: pg.Pool, journal: Journal): Promise<boolean> {
  const newestCommittedMs = Math.max(...journal.entries.map((entry) => entry.when));
  try {
    const result = await pool.query<{ newest: string | null }>(
      'select max(created_at)::text as newest from drizzle.__drizzle_migrations',
    );
    const newest = result.rows[0]?.newest ?? null;
    return newest !== null && Number(newest) >= newestCommittedMs;
  } catch (error) {
    // A new database: no migrations table yet (or not even its schema).
    if (MISSING_RELATION_CODES.has((error as { code?: string }).code ?? '')) return false;
    throw error;
  }
}

// Runs the committed migrations. Several server processes may start at once against one
// PostgreSQL; the advisory lock makes them take turns, so each migration runs exactly once.
export async function runMigrations(pool: pg.Pool): Promise<void> {
  if (!(await migrationsCurrent(pool, await readJournal()))) {
    await withAdvisoryLock(pool, ADVISORY_LOCKS.migrations, async (client) => {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_DIR });
    });
  }
  markPhase('migrations');
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
  return (await readJournal()).entries.length;
}
