// An accepted tax invoice is issued exactly once even when the worker processing it dies.
// Method: one `etax serve` with workers on PostgreSQL, a sandbox tax
// authority that takes 3 s per transmission, and no cancel window, so invoices are signed at once
// and sit TRANSMITTING with the call in flight. The process is killed with SIGKILL then, and
// started again. The dead worker's steps are taken up again once their leases run out; waiting
// them out would make the test slow, so they are moved into the past in the database. Then:
// every invoice ends TRANSMITTED with one approval number, each step recorded once, one success
// event each, and 100 points charged per invoice with no drift in the ledger.
import { describe, expect, it } from 'vitest';
import { invoiceBody } from '../api/tax-invoices/helpers.ts';
import {
  CLUSTER_SKIP_REASON,
  clusterEnabled,
  sendJson,
  useCluster,
  type Cluster,
  type CreatedAccount,
} from '../helpers/cluster.ts';
import { expectConsistentSnapshot, ledgerSnapshot } from '../helpers/ledger-audit.ts';
import { pollUntil } from '../helpers/poll.ts';
import { registerSupplier } from '../helpers/registered-supplier.ts';

const INVOICE_COUNT = 30;
const SERVER_ENV = {
  TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0',
  TAX_INVOICE_SANDBOX_LATENCY_MS: '3000',
};
const JOB_POLL = { attemptsMax: 600, intervalMs: 250 };

let cluster: Cluster | undefined;
let account: CreatedAccount;

useCluster({ count: 1, env: SERVER_ENV }, (made) => {
  ({ cluster, account } = made);
});

const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  sendJson(cluster!.servers[0]!, account.keys.test, { method, path, body, headers });
const query = <T>(text: string, values?: unknown[]) => cluster!.query<T>(text, values);

type StatusCount = { status: string; count: number };

const statusCounts = () => query<StatusCount>(`select status, count(*)::int as count
  from tax_invoices where account_id = $1 group by status order by status`, [account.accountId]);

describe.skipIf(!clusterEnabled)(`killing a worker mid-issuance (${CLUSTER_SKIP_REASON})`, () => {
  it('issues and announces every accepted invoice exactly once', async () => {
    const supplierKey = await registerSupplier(call, JOB_POLL);
    const before = await ledgerSnapshot(cluster!.assertions.db, account.accountId, 'test');
    const accepted = await Promise.all(Array.from({ length: INVOICE_COUNT }, (_, index) =>
      call('POST', '/v1/taxInvoices/issue', invoiceBody(), { 'supplier-key': supplierKey,
        'service-client-reference-id': `crash-${index}` })));
    expect(accepted.map((response) => response.status)).toEqual(Array(INVOICE_COUNT).fill(200));
    // Kill while transmissions are in flight.
    await pollUntil(statusCounts, (rows) =>
      rows.some((row) => row.status === 'TRANSMITTING'), JOB_POLL);
    await cluster!.kill(0);
    const atCrash = await statusCounts();
    expect(atCrash.some((row) => row.status !== 'TRANSMITTED')).toBe(true);

    await cluster!.restart(0);
    // The dead worker's leases run out, without waiting for it.
    await query(`update tax_invoice_steps set leased_until = now() - interval '1 second'
      where leased_until is not null`);
    const final = await pollUntil(statusCounts, (rows) => rows.length === 1 &&
      rows[0]!.status === 'TRANSMITTED', JOB_POLL);
    expect(final).toEqual([{ status: 'TRANSMITTED', count: INVOICE_COUNT }]);

    const steps = await query<{ to_status: string; count: number }>(`select to_status,
      count(*)::int as count from tax_invoice_status_changes c join tax_invoices t using
      (issuance_key) where t.account_id = $1 group by to_status order by to_status`,
    [account.accountId]);
    expect(steps).toEqual(['ISSUED', 'PENDING', 'TRANSMITTED', 'TRANSMITTING']
      .map((status) => ({ to_status: status, count: INVOICE_COUNT })));
    const events = await query<{ issuance_key: string; count: number }>(`select
      data->>'issuanceKey' as issuance_key, count(*)::int as count from webhook_events
      where account_id = $1 and type = 'TAX_INVOICE_ISSUANCE_SUCCESS'
      group by data->>'issuanceKey'`, [account.accountId]);
    expect(events).toHaveLength(INVOICE_COUNT);
    expect(events.every((row) => row.count === 1)).toBe(true);

    const after = await expectConsistentSnapshot(cluster!.assertions.db, account.accountId,
      'test');
    expect(before.postedPoints - after.postedPoints).toBe(100 * INVOICE_COUNT);
  }, 180_000);
});
