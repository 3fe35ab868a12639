// The profile store the search scenario runs against: `etax generate profiles` writes a
// deterministic data set, `etax import profiles` loads it into a PostgreSQL database, and that
// database is kept as a template named after the data set and the schema of the profile tables,
// so later runs copy it in seconds instead of importing again (the import of 1,000,000 profiles
// takes minutes). The server migrates its copy on start, so migrations of other tables reuse the
// template; a change to src/areas/businesses/tables.ts makes a new one. Old templates can be
// dropped by hand (`etax_bench_profiles_*`).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { databaseUrl, withClient } from './postgres.ts';

const run = promisify(execFile);

export type ProfileDataset = { count: number; seed: string };

type DatasetOptions = ProfileDataset & {
  root: string;
  // The server's PostgreSQL (DATABASE_URL); the template lives beside the benchmark database.
  adminUrl: string;
  log(message: string): void;
};

// Imports of this many profiles take minutes; this bounds one step, not the whole build.
const CLI_STEP_TIMEOUT_MS = 60 * 60 * 1_000;

// Named after what decides its content: the data set and the schema of the profile tables.
function templateName(root: string, dataset: ProfileDataset): string {
  const schema = readFileSync(path.join(root, 'src/areas/businesses/tables.ts'), 'utf8');
  const hash = createHash('sha256')
    .update(schema)
    .update(`${dataset.count}/${dataset.seed}`)
    .digest('hex')
    .slice(0, 12);
  return `etax_bench_profiles_${dataset.count}_${hash}`;
}

async function databaseExists(adminUrl: string, name: string): Promise<boolean> {
  return withClient(adminUrl, async (client) => {
    const result = await client.query('select 1 from pg_database where datname = $1', [name]);
    return result.rowCount === 1;
  });
}

async function etax(root: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  await run(process.execPath, [path.join(root, 'bin/etax.js'), ...args], {
    cwd: root,
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    timeout: CLI_STEP_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
}

// Builds the template unless it exists. The build happens under another name and is renamed
// when complete, so an interrupted build is never mistaken for a finished one.
export async function ensureProfileTemplate(options: DatasetOptions): Promise<string> {
  const { root, adminUrl, log } = options;
  const name = templateName(root, options);
  if (await databaseExists(adminUrl, name)) return name;
  const building = `${name}_building`;
  const file = path.join(os.tmpdir(), `etax-bench-profiles-${options.count}-${options.seed}.csv`);
  if (!existsSync(file)) {
    log(`generating ${options.count} profiles (seed ${options.seed}) into ${file}…`);
    await etax(root, ['generate', 'profiles', '--count', String(options.count),
      '--seed', options.seed, '--out', file], {});
  }
  await withClient(adminUrl, async (client) => {
    await client.query(`drop database if exists ${building} with (force)`);
    await client.query(`create database ${building}`);
  });
  const env = { DATABASE_URL: databaseUrl(adminUrl, building) };
  log(`importing them into ${building} (minutes; done once per data set and migrations)…`);
  await etax(root, ['migrate'], env);
  await etax(root, ['import', 'profiles', file], env);
  // VACUUM also merges the GIN indexes' pending lists, which every search would otherwise scan.
  await withClient(databaseUrl(adminUrl, building), (client) => client.query('vacuum analyze'));
  await withClient(adminUrl, (client) =>
    client.query(`alter database ${building} rename to ${name}`));
  return name;
}

// A fresh database holding a copy of the template. FILE_COPY (PostgreSQL 15+) copies the files
// instead of writing every block to the WAL; older servers take the default.
export async function createDatabaseFromTemplate(
  adminUrl: string,
  name: string,
  template: string,
): Promise<void> {
  await withClient(adminUrl, async (client) => {
    try {
      await client.query(`create database ${name} template ${template} strategy file_copy`);
    } catch (error) {
      if ((error as { code?: string }).code !== '42601') throw error;
      await client.query(`create database ${name} template ${template}`);
    }
  });
}
