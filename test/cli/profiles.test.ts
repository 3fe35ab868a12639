// `etax import profiles`, tested black-box: every test spawns `node bin/etax.js …` as an
// operator would, against a fresh database of the current mode (embedded PGlite, or PostgreSQL
// when DATABASE_URL is set). The rows are counted with pg: on PostgreSQL directly, on PGlite
// through the socket of a running `etax serve`, which also answers
// GET /v1/businessProfiles/{number} for an imported number with a live key. `etax generate
// profiles` has its own file (generate-profiles.test.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runEtax as runCli, runEtaxJson, type CliSettings as Env }
  from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import {
  freePort,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../helpers/server-process.ts';

const SETUP_TIMEOUT_MS = 180_000;
const COUNT = 200;

// Runs a command that must succeed with --json; the import may log warnings on stderr.
const runJson = (env: Env, args: string[]) => runEtaxJson(env, args, { stderrAllowed: true });

// Rows of business_profiles and business_former_names, without the update time.
async function snapshot(client: pg.Client) {
  const profiles = await client.query(`select to_jsonb(p) - 'updated_at' as row
    from business_profiles p order by business_registration_number`);
  const names = await client.query(`select * from business_former_names
    order by business_registration_number, order_index`);
  return { profiles: profiles.rows, names: names.rows };
}

async function countProfiles(client: pg.Client): Promise<number> {
  const result = await client.query('select count(*)::int as count from business_profiles');
  return result.rows[0].count as number;
}

describe('etax import profiles', () => {
  let database: TestDatabase;
  let env: Env;
  let folder: string;
  let server: ServerProcess;
  let client: pg.Client;
  let liveKey: string;
  let firstImport: Record<string, unknown>;
  const file = () => path.join(folder, 'profiles.csv');

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { ...database.env, LOG_LEVEL: 'warn' };
    folder = mkdtempSync(path.join(os.tmpdir(), 'etxi-'));
    const generated = await runCli({}, ['generate', 'profiles', '--count', String(COUNT),
      '--seed', 'import-test', '--out', file()]);
    expect(generated.code, generated.stderr).toBe(0);
    // Imported before the server starts: the CLI opens the database itself.
    firstImport = await runJson(env, ['import', 'profiles', file()]);
    const account = await runJson(env, ['account', 'create', '--name', 'Importer']);
    liveKey = (account.keys as Record<string, string>).live!;
    await runJson(env, ['points', 'grant', '--account', String(account.accountId), '--env', 'live',
      '--amount', '1000']);
    server = startServerProcess({ port: await freePort(), env: cliEnv(env) });
    await waitUntilReady(server, { attemptsMax: 600, pollIntervalMs: 100 });
    const url = env.DATABASE_URL ??
      `postgres://postgres@/postgres?host=${encodeURIComponent(env.DATA_DIR!)}&port=5432`;
    client = new pg.Client({ connectionString: url });
    await client.connect();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await client?.end();
    if (server) await stopServerProcess(server, { exitWaitMs: 30_000 });
    await database?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  }, SETUP_TIMEOUT_MS);

  it('imports every generated row', async () => {
    expect(firstImport).toEqual({
      file: file(), format: 'csv', read: COUNT, imported: COUNT, rejected: 0, rejects: [],
    });
    expect(await countProfiles(client)).toBe(COUNT);
  });

  it('is idempotent: importing the same file again changes nothing', async () => {
    const before = await snapshot(client);
    // The server runs now, so the CLI reaches the database through it.
    const again = await runJson(env, ['import', 'profiles', file()]);
    expect(again).toEqual(firstImport);
    expect(await countProfiles(client)).toBe(COUNT);
    expect(await snapshot(client)).toEqual(before);
  });

  it('imports the same data from JSON Lines with the same result', async () => {
    const jsonl = path.join(folder, 'profiles.jsonl');
    await runCli({}, ['generate', 'profiles', '--count', String(COUNT), '--seed', 'import-test',
      '--out', jsonl]);
    const before = await snapshot(client);
    const summary = await runJson(env, ['import', 'profiles', jsonl]);
    expect(summary).toMatchObject({ format: 'jsonl', read: COUNT, imported: COUNT, rejected: 0 });
    expect(await snapshot(client)).toEqual(before);
  }, 60_000);

  it('rejects bad rows with line numbers and reasons and imports the good ones', async () => {
    const bad = path.join(folder, 'mixed.csv');
    writeFileSync(bad, [
      'businessRegistrationNumber,businessKind,openedOn,categoryCode,postalCode,websites',
      '101-00-00002,INDIVIDUAL,2020-01-01,J,06234,https://a.example|https://b.example',
      '1234567890,INDIVIDUAL,,,,',
      '12345,,,,,',
      '1010000017,PARTNERSHIP,2020-02-30,Z,1234,',
      '1010000021,CORPORATE,,,,',
      '',
    ].join('\n'));
    const rejects = path.join(folder, 'rejects.jsonl');
    const summary = await runJson(env, ['import', 'profiles', bad, '--rejects', rejects]);
    expect(summary).toMatchObject({ read: 5, imported: 2, rejected: 3 });
    const rows = summary.rejects as Array<{ line: number; reasons: string[] }>;
    expect(rows.map((row) => row.line)).toEqual([3, 4, 5]);
    expect(rows[0]!.reasons).toEqual(['businessRegistrationNumber: bad checksum "1234567890"']);
    expect(rows[1]!.reasons).toEqual(['businessRegistrationNumber: not ten digits "12345"']);
    expect(rows[2]!.reasons.join('\n')).toMatch(/businessKind: unknown value/);
    expect(rows[2]!.reasons.join('\n')).toMatch(/openedOn: bad date/);
    expect(rows[2]!.reasons.join('\n')).toMatch(/categoryCode: unknown section/);
    expect(rows[2]!.reasons.join('\n')).toMatch(/postalCode: bad postal code/);
    const written = readFileSync(rejects, 'utf8').trimEnd().split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(written).toEqual(rows);
    expect(await countProfiles(client)).toBe(COUNT + 2);
    const websites = await client.query(`select websites from business_profiles
      where business_registration_number = '1010000002'`);
    expect(websites.rows[0].websites).toEqual(['https://a.example', 'https://b.example']);
  });

  it('prints a human report with the rejected lines and exits 0', async () => {
    const bad = path.join(folder, 'one-bad.jsonl');
    writeFileSync(bad, '{"businessRegistrationNumber":"1234567890"}\nnot json\n');
    const result = await runCli(env, ['import', 'profiles', bad]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${bad}: read 2, imported 0, rejected 2\n` +
      'line 1: businessRegistrationNumber: bad checksum "1234567890"\n' +
      `line 2: not valid JSON: ${jsonError('not json')}\n`);
  });

  it('serves an imported profile to a live key', async () => {
    const [row] = (await client.query(`select business_registration_number as number
      from business_profiles where organization_name is not null limit 1`)).rows;
    const number = String(row.number);
    const hyphenated = `${number.slice(0, 3)}-${number.slice(3, 5)}-${number.slice(5)}`;
    const response = await fetch(`${server.baseUrl}/v1/businessProfiles/${hyphenated}`, {
      headers: { authorization: `Basic ${Buffer.from(`${liveKey}:`).toString('base64')}` },
    });
    expect(response.status).toBe(200);
    const body = await response.json() as Record<string, unknown>;
    const csv = readFileSync(file(), 'utf8');
    expect(csv).toContain(`${number},`);
    expect(body.businessRegistrationNumber).toBe(number);
    expect(csv).toContain(String(body.organizationName));
  });

  // A missing file and an unknown format are refused before a database is opened
  // (arguments.test.ts).
  it('exits 2 for a CSV header with an unknown column, importing nothing', async () => {
    const bad = path.join(folder, 'header.csv');
    writeFileSync(bad, 'businessRegistrationNumber,nickname\n1010000036,x\n');
    const result = await runCli(env, ['import', 'profiles', bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown CSV column\(s\): nickname/);
    const found = await client.query(`select 1 from business_profiles
      where business_registration_number = '1010000036'`);
    expect(found.rowCount).toBe(0);
  });
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}
