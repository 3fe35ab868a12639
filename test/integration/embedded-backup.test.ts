// `etax backup` and `etax restore` of the embedded database (docs/operations.md § Backups), run
// as an operator runs them, against a DATA_DIR written by a real app: accounts, points charged,
// tax invoices with their signing certificate's sealed key, a webhook endpoint's sealed secret.
// The round trip keeps every row of every table, the balances and the key that opens the
// secrets; a running server, a damaged, truncated or foreign file, and a DATA_DIR that already
// holds a database are refused with nothing written. Always the embedded database, whatever
// DATABASE_URL the run has: these commands exist for it alone.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync,
  truncateSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { keyFingerprint } from '../../src/platform/db/embedded-backup.ts';
import { runEtax } from '../helpers/cli.ts';
import { temporaryDataDir } from '../helpers/database.ts';
import { expectLedgerConsistent } from '../helpers/ledger-audit.ts';
import {
  createSupplierAccount, invoiceBody, postWithSupplier, request,
} from '../api/tax-invoices/helpers.ts';

const INVOICES = 3;

let root: string;
let dataDir: string;
let backupFile: string;

// A server that creates the job queues and works none: the documents stay as accepted.
async function openApp(): Promise<App> {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent',
    WORKERS_ENABLED: 'false', WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true' });
  const app = await createApp(config);
  await app.start();
  return app;
}

// Every row of every table etax and its job queue keep, as one digest per table.
async function tableDigests(app: App): Promise<Record<string, string>> {
  const pool = app.platform.database.pool;
  const tables = await pool.query<{ name: string }>(`
    select format('%I.%I', table_schema, table_name) as name from information_schema.tables
    where table_type = 'BASE TABLE'
      and table_schema not in ('pg_catalog', 'information_schema') order by 1`);
  const digests: Record<string, string> = {};
  for (const { name } of tables.rows) {
    const result = await pool.query<{ digest: string }>(
      `select count(*) || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '')
        as digest from ${name} t`);
    digests[name] = result.rows[0]!.digest;
  }
  return digests;
}

type Written = {
  accountId: string;
  key: string;
  points: unknown;
  invoices: unknown;
  endpoints: unknown;
  digests: Record<string, string>;
};

async function readBack(app: App, accountId: string, key: string) {
  const get = async (url: string) => {
    const response = await app.server.inject(request(key, 'GET', url));
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as unknown;
  };
  return {
    points: await get('/v1/points'),
    invoices: await get('/v1/taxInvoices?limit=100'),
    endpoints: await get('/v1/webhookEndpoints'),
    digests: await tableDigests(app),
    accountId, key,
  };
}

async function writeData(): Promise<Written> {
  const app = await openApp();
  try {
    const account = await createSupplierAccount(app);
    for (let index = 0; index < INVOICES; index += 1) {
      const issued = await postWithSupplier(app, account.key, '/v1/taxInvoices/issue', {
        supplierKey: account.supplier.supplierKey, body: invoiceBody(),
        referenceId: `backup-${index}`,
      });
      expect(issued.statusCode, issued.body).toBe(200);
    }
    const endpoint = await app.server.inject(request(account.key, 'POST',
      '/v1/webhookEndpoints', { body: { url: 'http://127.0.0.1:9/etax',
        events: ['TAX_INVOICE_ISSUANCE_SUCCESS'] } }));
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    await expectLedgerConsistent(app.platform, account.accountId, 'test');
    // A backup while the server holds DATA_DIR is refused, and writes nothing.
    const refused = await runEtax({ DATA_DIR: dataDir }, ['backup', '--out', backupFile]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/in use by a running etax server; stop it before a backup/);
    expect(existsSync(backupFile)).toBe(false);
    return await readBack(app, account.accountId, account.key);
  } finally {
    await app.close();
  }
}

function folderEntries(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder).sort() : [];
}

// A restore that must fail: exit 2, a message naming the file, and DATA_DIR as it was.
async function expectRefusedRestore(file: string, settings: Record<string, string>,
  message: RegExp) {
  const before = folderEntries(dataDir);
  const result = await runEtax({ DATA_DIR: dataDir, ...settings }, ['restore', file]);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
  expect(result.code).toBe(2);
  expect(folderEntries(dataDir)).toEqual(before);
}

let written: Written;

beforeAll(async () => {
  root = temporaryDataDir('etx-bk-');
  dataDir = path.join(root, 'd');
  backupFile = path.join(root, 'etax.backup');
  written = await writeData();
}, 240_000);
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('etax backup and etax restore', () => {
  it('backs up a stopped DATA_DIR, with the generated key, into a private file', async () => {
    const result = await runEtax({ DATA_DIR: dataDir },
      ['backup', '--out', backupFile, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    const generatedKey = readFileSync(path.join(dataDir, 'certificate-encryption.key'), 'utf8');
    expect(printed).toMatchObject({ file: backupFile, sealingKey: {
      fingerprint: keyFingerprint(generatedKey), source: 'DATA_DIR', included: true } });
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);
    // Never replaces a file.
    const again = await runEtax({ DATA_DIR: dataDir }, ['backup', '--out', backupFile]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists; a backup never replaces a file/);
  }, 120_000);

  it('refuses damaged, truncated and foreign files, and changes nothing', async () => {
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir);
    const truncated = path.join(root, 'truncated.backup');
    writeFileSync(truncated, readFileSync(backupFile));
    truncateSync(truncated, Math.floor(statSync(backupFile).size / 2));
    await expectRefusedRestore(truncated, {}, /ends too early: truncated\); nothing was restored/);
    const flipped = path.join(root, 'flipped.backup');
    const bytes = readFileSync(backupFile);
    bytes[Math.floor(bytes.length / 3)]! ^= 0xff;
    writeFileSync(flipped, bytes);
    await expectRefusedRestore(flipped, {},
      /cannot be read as an etax backup.*nothing was restored/);
    const text = path.join(root, 'notes.txt');
    writeFileSync(text, 'not a backup\n');
    await expectRefusedRestore(text, {}, /not a gzipped tar archive\); nothing was restored/);
    await expectRefusedRestore(path.join(root, 'missing.backup'), {}, /ENOENT/);
    // A gzipped tar that is not ours: no manifest, and a path that climbs out.
    const foreign = path.join(root, 'foreign');
    mkdirSync(path.join(foreign, 'pgdata'), { recursive: true });
    writeFileSync(path.join(foreign, 'pgdata', 'PG_VERSION'), '17\n');
    const foreignFile = path.join(root, 'foreign.tgz');
    await tar.c({ gzip: true, cwd: foreign, file: foreignFile }, ['pgdata']);
    await expectRefusedRestore(foreignFile, {}, /its manifest is missing; nothing was restored/);
    const climbing = path.join(root, 'climbing.tgz');
    await tar.c({ gzip: true, cwd: foreign, file: climbing, preservePaths: true },
      ['../foreign/pgdata/PG_VERSION']);
    await expectRefusedRestore(climbing, {}, /an entry etax does not write/);
    // With PostgreSQL, PostgreSQL's own backups: neither command touches DATA_DIR.
    const postgres = { DATABASE_URL: 'postgres://etax@127.0.0.1:1/etax' };
    await expectRefusedRestore(backupFile, postgres, /use PostgreSQL's own backups/);
    const onPostgres = await runEtax({ DATA_DIR: dataDir, ...postgres },
      ['backup', '--out', path.join(root, 'postgres.backup')]);
    expect(onPostgres.code).toBe(2);
    expect(onPostgres.stderr).toMatch(/etax backup is for the embedded database/);
    // The right file with the wrong key configured: its secrets would not open.
    const otherKey = randomBytes(32).toString('base64');
    await expectRefusedRestore(backupFile, { ENCRYPTION_KEY: otherKey },
      /sealed with the key file it holds.*nothing was restored/);
    expect(folderEntries(dataDir)).toEqual([]);
  }, 180_000);

  it('restores into an empty DATA_DIR every row, balance and sealed secret', async () => {
    const result = await runEtax({ DATA_DIR: dataDir }, ['restore', backupFile]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^restored .* from .*etax\.backup/);
    // A second restore never replaces the database it made.
    await expectRefusedRestore(backupFile, {}, /already holds a database/);
    const app = await openApp();
    try {
      const restored = await readBack(app, written.accountId, written.key);
      expect(restored.digests).toEqual(written.digests);
      expect(restored.points).toEqual(written.points);
      expect(restored.invoices).toEqual(written.invoices);
      expect((restored.invoices as { taxInvoices: unknown[] }).taxInvoices).toHaveLength(INVOICES);
      expect(restored.endpoints).toEqual(written.endpoints);
      await expectLedgerConsistent(app.platform, written.accountId, 'test');
    } finally {
      await app.close();
    }
    // Every sealed value (the certificate's private key, the webhook secret) opens with the
    // restored key: reseal exits 2 when one does not.
    const resealed = await runEtax({ DATA_DIR: dataDir }, ['reseal', '--json']);
    expect(resealed.stderr).toBe('');
    expect(resealed.code).toBe(0);
    const columns = (JSON.parse(resealed.stdout) as { columns: { column: string;
      resealed: number; unreadable: number }[] }).columns;
    const sealedCount = (name: string) =>
      columns.find((column) => column.column === name)?.resealed;
    expect(sealedCount('issuer_certificates.sealed_private_key')).toBe(1);
    expect(sealedCount('webhook_endpoints.sealed_secret')).toBe(1);
    expect(columns.every((column) => column.unreadable === 0)).toBe(true);
  }, 240_000);
});
