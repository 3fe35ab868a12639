import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { delayWasmTierUp } from './wasm-tier-up.ts';

// A new embedded database starts as a copy of a template: a data folder that PGlite's initdb
// made once and that PostgreSQL then shut down cleanly. PGlite makes a new database the same way
// (initdb into memory, then a copy into the folder) but runs initdb every time, which takes
// 4 s of CPU and 780 MB at its peak; the copy of the template's 39 MB takes a quarter of a
// second. The first new database after an install makes the template, in node_modules/.cache,
// named after the PGlite version whose initdb it comes from; an `npm ci` starts afresh.

const require = createRequire(import.meta.url);

function templateFolder(): string {
  // node_modules/@electric-sql/pglite/dist/index.cjs: the package is one folder up.
  const packageDir = path.resolve(path.dirname(require.resolve('@electric-sql/pglite')), '..');
  const packageFile = path.join(packageDir, 'package.json');
  const { version } = JSON.parse(readFileSync(packageFile, 'utf8')) as { version: string };
  const nodeModules = path.resolve(packageDir, '../..');
  return path.join(nodeModules, '.cache', 'etax', `pgdata-pglite-${version}`);
}

function unfinishedName(folder: string): string {
  return `${folder}.${process.pid}-${randomBytes(4).toString('hex')}`;
}

// Renames a finished folder into place, so no process ever sees half of one. When another process
// got there first, its folder is as good as ours.
function moveIntoPlace(unfinished: string, folder: string): void {
  try {
    renameSync(unfinished, folder);
  } catch (error) {
    rmSync(unfinished, { recursive: true, force: true });
    if (!existsSync(path.join(folder, 'PG_VERSION'))) throw error;
  }
}

async function makeTemplate(folder: string): Promise<void> {
  mkdirSync(path.dirname(folder), { recursive: true });
  const unfinished = unfinishedName(folder);
  try {
    delayWasmTierUp();
    const db = await PGlite.create(unfinished);
    await db.close();
  } catch (error) {
    rmSync(unfinished, { recursive: true, force: true });
    throw error;
  }
  moveIntoPlace(unfinished, folder);
}

// Fills pgdataDir, which must not exist yet or be empty, with a new database. Returns false when
// it cannot (no template and no room to make one, e.g. a read-only node_modules): PGlite then
// runs initdb itself, as it would without a template.
export async function copyTemplateDatabase(pgdataDir: string): Promise<boolean> {
  try {
    const folder = templateFolder();
    if (!existsSync(path.join(folder, 'PG_VERSION'))) await makeTemplate(folder);
    const unfinished = unfinishedName(pgdataDir);
    cpSync(folder, unfinished, { recursive: true });
    moveIntoPlace(unfinished, pgdataDir);
    return true;
  } catch {
    return false;
  }
}
