// store.transitionMany, the status change the workers make for a whole fetch of documents: only
// documents in one of `from` move, each with its own changes and history row, and two batches
// that overlap move each document once (run this file with DATABASE_URL for PostgreSQL).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endWithoutIssuance } from '../../../src/areas/tax-invoices/lifecycle.ts';
import * as store from '../../../src/areas/tax-invoices/store.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { createSupplierAccount, issue } from '../../api/tax-invoices/helpers.ts';

let app: TestApp;
let key: string;
let supplierKey: string;

beforeAll(async () => {
  // Without workers the documents stay PENDING until the test moves them.
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
  ({ key, supplier: { supplierKey } } = await createSupplierAccount(app));
});
afterAll(async () => {
  await app?.close();
});

async function pendingDocuments(count: number): Promise<string[]> {
  const keys: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const response = await issue(app, key, supplierKey);
    expect(response.statusCode, response.body).toBe(200);
    keys.push((response.json() as { issuanceKey: string }).issuanceKey);
  }
  return keys;
}

const db = () => app.platform.database.db;

describe('transitionMany', () => {
  it('moves only the documents in one of `from`, each with its changes and history', async () => {
    const [first, second, third] = await pendingDocuments(3);
    await db().transaction((tx) => store.transitionMany(tx, { from: ['PENDING'], to: 'CANCELED',
      actor: 'API', items: [{ issuanceKey: third! }] }));
    const issuedAt = new Date('2026-11-22T01:02:03.000Z');
    const moved = await db().transaction((tx) => store.transitionMany(tx, {
      from: ['PENDING', 'APPROVED'], to: 'ISSUED', actor: 'JOB',
      items: [first!, second!, third!, 'txi_unknown'].map((issuanceKey, index) => ({
        issuanceKey, message: `signed ${index}`,
        changes: { signature: `signature ${index}`, signedDigest: `digest ${index}`, issuedAt },
      })),
    }));
    expect(moved).toEqual([first, second].sort());
    const rows = await store.findInvoicesByKeys(db(), [first!, second!, third!]);
    const byKey = new Map(rows.map((row) => [row.issuanceKey, row]));
    expect(byKey.get(first!)).toMatchObject({ status: 'ISSUED', signature: 'signature 0',
      signedDigest: 'digest 0', issuedAt });
    expect(byKey.get(second!)).toMatchObject({ status: 'ISSUED', signature: 'signature 1' });
    expect(byKey.get(third!)).toMatchObject({ status: 'CANCELED', signature: null });
    const history = await store.findStatusChanges(db(), first!);
    expect(history.map((change) => [change.fromStatus, change.toStatus, change.actor,
      change.message])).toEqual([[null, 'PENDING', 'API', null],
      ['PENDING', 'ISSUED', 'JOB', 'signed 0']]);
  });

  it('moves each document once when overlapping batches race', async () => {
    const keys = await pendingDocuments(12);
    const batches = [keys.slice(0, 8), keys.slice(4), [...keys].reverse()];
    const moved = await Promise.all(batches.map((batch, index) =>
      db().transaction((tx) => store.transitionMany(tx, { from: ['PENDING'], to: 'ISSUED',
        actor: 'JOB', items: batch.map((issuanceKey) => ({ issuanceKey,
          message: `batch ${index}` })) }))));
    expect(moved.flat().sort()).toEqual([...keys].sort());
    for (const issuanceKey of keys) {
      const toIssued = (await store.findStatusChanges(db(), issuanceKey))
        .filter((change) => change.toStatus === 'ISSUED');
      expect(toIssued).toHaveLength(1);
    }
  });

  it('changes nothing for an empty batch', async () => {
    expect(await db().transaction((tx) => store.transitionMany(tx, { from: ['PENDING'],
      to: 'ISSUED', actor: 'JOB', items: [] }))).toEqual([]);
  });
});

// A status change rewrites the document's row in place (a heap-only update) only when no index
// depends on the status and the row's page has room for its new version.
describe('status changes in place', () => {
  it('keeps the status out of every index of the documents\' table, and room on its pages',
    async () => {
      const { rows } = await db().execute<{ name: string; definition: string }>(sql`
        select c.relname as name, pg_get_indexdef(i.indexrelid) as definition
          from pg_index i join pg_class c on c.oid = i.indexrelid
         where i.indrelid = 'tax_invoices'::regclass`);
      expect(rows.map((row) => row.name)).toContain('tax_invoices_failed_idx');
      for (const { definition } of rows) expect(definition).not.toMatch(/\bstatus\b/);
      const { rows: [table] } = await db().execute<{ options: string[] | null }>(sql`
        select reloptions as options from pg_class where oid = 'tax_invoices'::regclass`);
      expect(table!.options).toContain('fillfactor=50');
    });

  it('gives a failed document a failure code even when no cause was named, so the index of ' +
    'failures finds it', async () => {
    const [issuanceKey] = await pendingDocuments(1);
    const deps = { points: app.platform.points, recordEvents: app.webhooks.recordEvents,
      documentUrl: (key: string) => key };
    const failed = await db().transaction((tx) => endWithoutIssuance(deps, tx,
      { issuanceKey: issuanceKey!, from: ['PENDING'], to: 'FAILED', actor: 'JOB' }));
    expect(failed).toMatchObject({ status: 'FAILED', failureCode: 'ISSUANCE_FAILED',
      failureMessage: 'The tax invoice could not be issued.' });
    const [account] = await store.findInvoicesByKeys(db(), [issuanceKey!]);
    const failures = await store.listRecentFailures(db(), store.scopeOfRow(account!), 10);
    expect(failures.map((row) => row.issuanceKey)).toContain(issuanceKey);
  });
});
