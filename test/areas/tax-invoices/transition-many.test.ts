// store.transitionMany, the status change the workers make for a whole fetch of documents: only
// documents in one of `from` move, each with its own changes and history row, and two batches
// that overlap move each document once (run this file with DATABASE_URL for PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
