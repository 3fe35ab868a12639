import { describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import {
  issue,
  createIssuingApp,
  useSupplierAccount,
  waitForStatus,
  type Supplier,
} from './helpers.ts';

// POST /v1/taxInvoices/issue end to end: acceptance, signing and transmission by the jobs, the
// charge, and retrieval.

let app: TestApp;
let key: string;
let accountId: string;
let supplier: Supplier;

useSupplierAccount({ createApp: createIssuingApp }, (made) => {
  ({ app, key, accountId, supplier } = made);
});

describe('issuing a tax invoice', () => {
  it('accepts, signs and transmits it, and charges 100 points', async () => {
    const before = await app.platform.points.getBalance({ accountId, environment: 'test' });
    const response = await issue(app, key, supplier.supplierKey);
    expect(response.statusCode).toBe(200);
    const { issuanceKey } = response.json() as { issuanceKey: string };
    expect(issuanceKey).toMatch(/^txi_/);
    const invoice = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
    expect(invoice.status).toBe('TRANSMITTED');
    expect(invoice.ntsTransactionId).toMatch(/^[0-9]{8}41000000[0-9a-z]{8}$/);
    expect(invoice.totals).toEqual({ supplyCost: 200_000, tax: 20_000, total: 220_000 });
    const after = await app.platform.points.getBalance({ accountId, environment: 'test' });
    expect(before.balance - after.balance).toBe(100);
  });

  it('answers 404 NOT_FOUND for an unknown Supplier-Key and charges nothing', async () => {
    const before = await app.platform.points.getBalance({ accountId, environment: 'test' });
    expectError(await issue(app, key, 'sup_unknown'), 404, 'NOT_FOUND');
    const after = await app.platform.points.getBalance({ accountId, environment: 'test' });
    expect(after).toEqual(before);
  });
});
