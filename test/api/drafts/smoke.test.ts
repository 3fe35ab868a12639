import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { createSupplierAccount, invoiceBody, request, type SupplierAccount } from '../tax-invoices/helpers.ts';

let app: TestApp;
let account: SupplierAccount;
beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
  account = await createSupplierAccount(app);
});
afterAll(async () => { await app?.close(); });

it('saves and issues', async () => {
  const saved = await app.server.inject(request(account.key, 'POST', '/v1/taxInvoices/drafts',
    { body: { date: '2026-11-01' } }));
  console.log(saved.statusCode, saved.body);
  const id = saved.json().draftId;
  const patched = await app.server.inject(request(account.key, 'PATCH', `/v1/taxInvoices/drafts/${id}`,
    { body: invoiceBody(), headers: { 'supplier-key': account.supplier.supplierKey } }));
  console.log(patched.statusCode, patched.body);
  const issued = await app.server.inject(request(account.key, 'POST', `/v1/taxInvoices/drafts/${id}:issue`,
    { headers: { 'service-client-reference-id': 'r1' } }));
  console.log(issued.statusCode, issued.body);
  const again = await app.server.inject(request(account.key, 'POST', `/v1/taxInvoices/drafts/${id}:issue`,
    { headers: { 'service-client-reference-id': 'r1' } }));
  console.log(again.statusCode, again.body);
  const list = await app.server.inject(request(account.key, 'GET', `/v1/taxInvoices/drafts`));
  console.log(list.statusCode, list.body.slice(0, 300));
  expect(issued.statusCode).toBe(200);
});
