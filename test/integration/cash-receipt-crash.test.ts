// An accepted cash receipt is approved exactly once even when the worker processing it dies.
// Method: one `etax serve` with workers on PostgreSQL and a sandbox authority that takes 3 s per
// approval, so receipts sit ACCEPTED and leased with the call in flight. The process is killed
// with SIGKILL then, and started again; the dead worker's leases are ended at once instead of
// waiting them out. Then every receipt ends TRANSMITTED with one approval number, one
// CASH_RECEIPT_ISSUED event each, and 10 points charged per receipt with no drift in the ledger.
import { describe, expect, it } from 'vitest';
import { receiptBody } from '../api/cash-receipts/helpers.ts';
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

const RECEIPT_COUNT = 30;
const SERVER_ENV = {
  CASH_RECEIPT_SANDBOX_APPROVAL_DELAY_MS: '3000',
  CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS: '0',
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
  from cash_receipts where account_id = $1 group by status order by status`, [account.accountId]);

describe.skipIf(!clusterEnabled)(`killing a worker mid-approval (${CLUSTER_SKIP_REASON})`, () => {
  it('approves and announces every accepted receipt exactly once', async () => {
    const issuer = await call('POST', '/v1/issuers', { identificationNumber: '1234567891',
      organizationName: '카페 이택스', representativeName: '홍길동' });
    expect(issuer.status).toBe(201);
    const before = await ledgerSnapshot(cluster!.assertions.db, account.accountId, 'test');
    const accepted = await Promise.all(Array.from({ length: RECEIPT_COUNT }, (_, index) =>
      call('POST', '/v1/cashReceipts/issue', receiptBody(), {
        'supplier-key': issuer.body.supplierKey as string,
        'service-client-reference-id': `crash-${index}` })));
    expect(accepted.map((response) => response.status)).toEqual(Array(RECEIPT_COUNT).fill(202));
    // Kill while approvals are in flight.
    const leased = () => query<{ count: number }>(`select count(*)::int as count
      from cash_receipts r join cash_receipt_steps s using (issuance_key)
      where r.account_id = $1 and r.status = 'ACCEPTED' and s.leased_until > now()`,
    [account.accountId]);
    await pollUntil(leased, (rows) => rows[0]!.count > 0, JOB_POLL);
    await cluster!.kill(0);
    const atCrash = await statusCounts();
    expect(atCrash.some((row) => row.status === 'ACCEPTED')).toBe(true);
    expect((await leased())[0]!.count).toBeGreaterThan(0);

    await cluster!.restart(0);
    await query(`update cash_receipt_steps s set leased_until = now() from cash_receipts r
      where r.issuance_key = s.issuance_key and r.account_id = $1
        and s.leased_until > now()`, [account.accountId]);
    const final = await pollUntil(statusCounts, (rows) => rows.length === 1 &&
      rows[0]!.status === 'TRANSMITTED', JOB_POLL);
    expect(final).toEqual([{ status: 'TRANSMITTED', count: RECEIPT_COUNT }]);

    const events = await query<{ type: string; count: number }>(`select type,
      count(*)::int as count from webhook_events where account_id = $1
      and type like 'CASH_RECEIPT_%' group by type order by type`, [account.accountId]);
    expect(events).toEqual([{ type: 'CASH_RECEIPT_ISSUED', count: RECEIPT_COUNT },
      { type: 'CASH_RECEIPT_TRANSMITTED', count: RECEIPT_COUNT }]);
    const perReceipt = await query<{ count: number }>(`select count(distinct
      data->>'issuanceKey')::int as count from webhook_events where account_id = $1
      and type = 'CASH_RECEIPT_ISSUED'`, [account.accountId]);
    expect(perReceipt[0]!.count).toBe(RECEIPT_COUNT);

    const after = await expectConsistentSnapshot(cluster!.assertions.db, account.accountId,
      'test');
    expect(before.postedPoints - after.postedPoints).toBe(10 * RECEIPT_COUNT);
  }, 180_000);
});
